"""Judge rate limits shared by every runner of a store: per judge and second, the requests
and tokens granted so far.

Revision ID: 0014_judge_rate_windows
Revises: 0013_stability
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_judge_rate_windows"
down_revision: str | None = "0013_stability"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "judge_rate_windows",
        sa.Column("limit_key", sa.String(length=64), nullable=False),
        sa.Column("unix_second", sa.BigInteger(), nullable=False),
        sa.Column("requests", sa.Integer(), nullable=False),
        sa.Column("tokens", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("limit_key", "unix_second"),
    )


def downgrade() -> None:
    op.drop_table("judge_rate_windows")
