"""Alignments ("Improve this judge"): the graded examples of one scorer version split into a
tuning part and a holdout; the current version and each candidate score them in runs tagged
with the alignment, a candidate's run carrying the candidate's spec.

Revision ID: 0020_alignments
Revises: 0019_scoring_rules
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0020_alignments"
down_revision: str | None = "0019_scoring_rules"
branch_labels = None
depends_on = None

_JSON = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    op.create_table(
        "alignments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scorer_id", sa.Integer(), nullable=False),
        sa.Column("scorer_version_id", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("tuning_ids", _JSON, nullable=False),
        sa.Column("holdout_ids", _JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["scorer_id"], ["scorers.id"]),
        sa.ForeignKeyConstraint(["scorer_version_id"], ["scorer_versions.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_alignments_version", "alignments", ["scorer_version_id", "id"])
    # Added in place, as 0013 and 0018 added their checks' columns.
    op.add_column(
        "runs",
        sa.Column(
            "alignment_id",
            sa.Integer(),
            sa.ForeignKey("alignments.id", name="fk_runs_alignment_id"),
            nullable=True,
        ),
        inline_references=True,
    )
    op.add_column("runs", sa.Column("candidate", sa.String(length=40), nullable=True))
    op.add_column("runs", sa.Column("candidate_spec", _JSON, nullable=True))
    op.create_index("ix_runs_alignment_id", "runs", ["alignment_id"])


def downgrade() -> None:
    op.drop_index("ix_runs_alignment_id", table_name="runs")
    with op.batch_alter_table("runs") as batch:  # its foreign key goes with it
        batch.drop_column("candidate_spec")
        batch.drop_column("candidate")
        batch.drop_column("alignment_id")
    op.drop_index("ix_alignments_version", table_name="alignments")
    op.drop_table("alignments")
