"""Scores of agent traces (trace and span ids), human labels, and which process runs a run.

Revision ID: 0002_traces_and_labels
Revises: 0001_initial
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_traces_and_labels"
down_revision: str | None = "0001_initial"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("scores") as batch:
        batch.add_column(sa.Column("trace_id", sa.String(100), nullable=True))
        batch.add_column(sa.Column("span_id", sa.String(100), nullable=True))
    op.create_index(
        "ix_scores_trace",
        "scores",
        ["trace_id", "span_id"],
        sqlite_where=sa.text("trace_id IS NOT NULL"),
        postgresql_where=sa.text("trace_id IS NOT NULL"),
    )
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("runner", sa.String(200), nullable=True))
    op.create_table(
        "labels",
        sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
        sa.Column("example_id", sa.Integer(), sa.ForeignKey("examples.id"), nullable=False),
        sa.Column("scorer_id", sa.Integer(), sa.ForeignKey("scorers.id"), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("note", sa.String(), nullable=False),
        sa.Column("labeller", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_labels_scorer_example", "labels", ["scorer_id", "example_id"])


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("runner")
    op.drop_table("labels")
    op.drop_index("ix_scores_trace", table_name="scores")
    with op.batch_alter_table("scores") as batch:
        batch.drop_column("span_id")
        batch.drop_column("trace_id")
