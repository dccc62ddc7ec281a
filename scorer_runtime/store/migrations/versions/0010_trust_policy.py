"""Judge trust: a trust policy per scorer, and approvals of scorer versions.

Revision ID: 0010_trust_policy
Revises: 0009_runners
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_trust_policy"
down_revision: str | None = "0009_runners"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "trust_policies",
        sa.Column("scorer_id", sa.Integer(), sa.ForeignKey("scorers.id"), nullable=False),
        sa.Column("min_graded", sa.Integer(), nullable=False),
        sa.Column("min_kappa_low", sa.Float(), nullable=False),
        sa.Column("max_flip_rate", sa.Float(), nullable=False),
        sa.Column("pass_mark", sa.Float(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("scorer_id"),
    )
    op.create_table(
        "approvals",
        sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
        sa.Column(
            "scorer_version_id", sa.Integer(), sa.ForeignKey("scorer_versions.id"), nullable=False
        ),
        sa.Column("approver", sa.String(200), nullable=False),
        sa.Column("badge", sa.String(30), nullable=False),
        sa.Column("override_reason", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_approvals_version", "approvals", ["scorer_version_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_approvals_version", table_name="approvals")
    op.drop_table("approvals")
    op.drop_table("trust_policies")
