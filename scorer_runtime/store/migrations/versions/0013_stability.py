"""Stability checks: a seeded sample of a dataset that a scorer version scores several
times; each repeat is a run tagged with its check.

Revision ID: 0013_stability
Revises: 0009_runners
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0013_stability"
down_revision: str | None = "0012_run_budget"
branch_labels = None
depends_on = None

_JSON = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    op.create_table(
        "stability_checks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scorer_id", sa.Integer(), nullable=False),
        sa.Column("scorer_version_id", sa.Integer(), nullable=False),
        sa.Column("dataset_id", sa.Integer(), nullable=False),
        sa.Column("repeats", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("example_ids", _JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["scorer_id"], ["scorers.id"]),
        sa.ForeignKeyConstraint(["scorer_version_id"], ["scorer_versions.id"]),
        sa.ForeignKeyConstraint(["dataset_id"], ["datasets.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_stability_checks_version", "stability_checks", ["scorer_version_id", "id"])
    # Added in place (SQLite adds a column with its REFERENCES clause without copying the
    # table, which a batch copy could not do while scores point at runs).
    op.add_column(
        "runs",
        sa.Column(
            "stability_check_id",
            sa.Integer(),
            sa.ForeignKey("stability_checks.id", name="fk_runs_stability_check_id"),
            nullable=True,
        ),
        inline_references=True,
    )
    op.create_index("ix_runs_stability_check_id", "runs", ["stability_check_id"])


def downgrade() -> None:
    op.drop_index("ix_runs_stability_check_id", table_name="runs")
    with op.batch_alter_table("runs") as batch:  # its foreign key goes with it
        batch.drop_column("stability_check_id")
    op.drop_index("ix_stability_checks_version", table_name="stability_checks")
    op.drop_table("stability_checks")
