"""Imported agent traces, kept so they can be listed and scored again later.

Revision ID: 0005_traces
Revises: 0004_score_cover_indexes
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

# Spelled out here, not imported from the models: a migration stays as it was written.
JSON_TYPE = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")

revision = "0005_traces"
down_revision: str | None = "0004_score_cover_indexes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "traces",
        sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
        sa.Column("trace_id", sa.String(100), nullable=False, unique=True),
        sa.Column("name", sa.String(300), nullable=False),
        sa.Column("agent", sa.String(300), nullable=True),
        sa.Column("source", sa.String(500), nullable=False),
        sa.Column("formats", sa.String(30), nullable=False),
        sa.Column("span_count", sa.Integer(), nullable=False),
        sa.Column("agent_runs", sa.Integer(), nullable=False),
        sa.Column("model_calls", sa.Integer(), nullable=False),
        sa.Column("tool_calls", sa.Integer(), nullable=False),
        sa.Column("errors", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=True),
        sa.Column("spans", JSON_TYPE, nullable=False),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_traces_started", "traces", ["started_at"])


def downgrade() -> None:
    op.drop_index("ix_traces_started", table_name="traces")
    op.drop_table("traces")
