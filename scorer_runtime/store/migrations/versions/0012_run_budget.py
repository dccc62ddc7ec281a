"""A run's spend cap: the dollars it may not pass, and whether an unpriced model may run
under it unchecked.

Revision ID: 0012_run_budget
Revises: 0009_runners
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_run_budget"
down_revision: str | None = "0011_answer_cache"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (no table copy): scores refer to runs, so SQLite could not drop it.
    op.add_column("runs", sa.Column("max_cost", sa.Float(), nullable=True))
    op.add_column(
        "runs",
        sa.Column("allow_unpriced", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_column("runs", "allow_unpriced")
    op.drop_column("runs", "max_cost")
