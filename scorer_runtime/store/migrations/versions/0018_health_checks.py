"""Health checks: a seeded sample of a dataset that a scorer version scores once as it is and
once per perturbation family (an injected instruction, a forged verdict, …); each of those
runs is tagged with its check and says which perturbation it applied. A trust policy may
allow at most a share of verdicts swayed per family (``trust_policies.max_swayed_rate``).

Revision ID: 0018_health_checks
Revises: 0016_judge_rate_windows
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0018_health_checks"
down_revision: str | None = "0017_spend_reservations"
branch_labels = None
depends_on = None

_JSON = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    op.create_table(
        "health_checks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scorer_id", sa.Integer(), nullable=False),
        sa.Column("scorer_version_id", sa.Integer(), nullable=False),
        sa.Column("dataset_id", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("example_ids", _JSON, nullable=False),
        sa.Column("families", _JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["scorer_id"], ["scorers.id"]),
        sa.ForeignKeyConstraint(["scorer_version_id"], ["scorer_versions.id"]),
        sa.ForeignKeyConstraint(["dataset_id"], ["datasets.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_health_checks_version", "health_checks", ["scorer_version_id", "id"])
    # Added in place, as 0013 added stability_check_id (no batch copy while scores point at runs).
    op.add_column(
        "runs",
        sa.Column(
            "health_check_id",
            sa.Integer(),
            sa.ForeignKey("health_checks.id", name="fk_runs_health_check_id"),
            nullable=True,
        ),
        inline_references=True,
    )
    op.add_column("runs", sa.Column("perturbation", _JSON, nullable=True))
    op.create_index("ix_runs_health_check_id", "runs", ["health_check_id"])
    op.add_column("trust_policies", sa.Column("max_swayed_rate", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("trust_policies") as batch:
        batch.drop_column("max_swayed_rate")
    op.drop_index("ix_runs_health_check_id", table_name="runs")
    with op.batch_alter_table("runs") as batch:  # its foreign key goes with it
        batch.drop_column("perturbation")
        batch.drop_column("health_check_id")
    op.drop_index("ix_health_checks_version", table_name="health_checks")
    op.drop_table("health_checks")
