"""Drafts: scorers being built in the studio, saved as they change.

Revision ID: 0003_drafts
Revises: 0002_traces_and_labels
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

# Spelled out here, not imported from the models: a migration stays as it was written.
JSON_TYPE = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")

revision = "0003_drafts"
down_revision: str | None = "0002_traces_and_labels"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "drafts",
        sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
        sa.Column("scorer_id", sa.Integer(), sa.ForeignKey("scorers.id"), nullable=True),
        sa.Column("title", sa.String(300), nullable=False),
        sa.Column("spec", JSON_TYPE, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_drafts_updated", "drafts", ["updated_at"])


def downgrade() -> None:
    op.drop_index("ix_drafts_updated", table_name="drafts")
    op.drop_table("drafts")
