"""A capped run's spend reservations: the worst case of each example on its way to the judge,
kept in the store so a run killed mid-flight still counts what it may have been charged.

Revision ID: 0017_spend_reservations
Revises: 0016_judge_rate_windows
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017_spend_reservations"
down_revision: str | None = "0016_judge_rate_windows"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "spend_reservations",
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("runner_token", sa.String(length=32), nullable=False),
        sa.Column("example_id", sa.Integer(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.Column("lost", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"]),
        sa.PrimaryKeyConstraint("run_id", "runner_token", "example_id"),
    )


def downgrade() -> None:
    op.drop_table("spend_reservations")
