"""Scoring rules: a scorer version, the traces it takes (filters, a sample by trace id) and a
daily spend cap; runners score each new trace a rule takes. ``rule_traces`` holds each trace a
rule took, keyed by (rule, trace), so no rule scores a trace twice, with what it set aside and
what it cost.

Revision ID: 0019_scoring_rules
Revises: 0018_health_checks
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0019_scoring_rules"
down_revision: str | None = "0018_health_checks"
branch_labels = None
depends_on = None

_JSON = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    op.create_table(
        "scoring_rules",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scorer_id", sa.Integer(), nullable=False),
        sa.Column("scorer_version_id", sa.Integer(), nullable=False),
        sa.Column("filters", _JSON, nullable=False),
        sa.Column("sample", sa.Float(), nullable=True),
        sa.Column("max_cost_per_day", sa.Float(), nullable=True),
        sa.Column("allow_unpriced", sa.Boolean(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("seen_up_to", sa.BigInteger(), nullable=False),
        sa.Column("capped_on", sa.String(length=10), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["scorer_id"], ["scorers.id"]),
        sa.ForeignKeyConstraint(["scorer_version_id"], ["scorer_versions.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "rule_traces",
        sa.Column("rule_id", sa.Integer(), nullable=False),
        sa.Column("trace_id", sa.String(length=100), nullable=False),
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("runner", sa.String(length=200), nullable=False),
        sa.Column("reserved", sa.Float(), nullable=False),
        sa.Column("cost", sa.Float(), nullable=True),
        sa.Column("done", sa.Boolean(), nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["rule_id"], ["scoring_rules.id"]),
        sa.PrimaryKeyConstraint("rule_id", "trace_id"),
    )
    op.create_index("ix_rule_traces_rule_day", "rule_traces", ["rule_id", "day"])


def downgrade() -> None:
    op.drop_index("ix_rule_traces_rule_day", table_name="rule_traces")
    op.drop_table("rule_traces")
    op.drop_table("scoring_rules")
