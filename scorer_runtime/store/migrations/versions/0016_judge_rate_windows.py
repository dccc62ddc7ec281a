"""Judge rate limits shared by every runner of a store: per judge and second, the requests
and tokens granted so far; and a running run's pace (whether a limit holds it back).

Revision ID: 0016_judge_rate_windows
Revises: 0015_score_cover_run
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0016_judge_rate_windows"
down_revision: str | None = "0015_score_cover_run"
branch_labels = None
depends_on = None

_JSON = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    op.create_table(
        "judge_rate_windows",
        sa.Column("limit_key", sa.String(length=64), nullable=False),
        sa.Column("unix_second", sa.BigInteger(), nullable=False),
        sa.Column("requests", sa.Integer(), nullable=False),
        sa.Column("tokens", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("limit_key", "unix_second"),
    )
    # Plain ADD COLUMN (no table copy): scores refer to runs, so SQLite could not drop it.
    op.add_column("runs", sa.Column("pace", _JSON, nullable=True))


def downgrade() -> None:
    op.drop_column("runs", "pace")
    op.drop_table("judge_rate_windows")
