"""The judge answer cache: answers kept by a hash of their request; runs count their hits.

``judge_answers`` holds successful, schema-valid judge answers by the SHA-256 of everything
that decides them (never an API key). A run says whether it may use them (``use_cache``)
and counts its judge answers, those from the cache, and what they had cost (saved).

Revision ID: 0011_answer_cache
Revises: 0009_runners
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_answer_cache"
down_revision: str | None = "0010_trust_policy"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "judge_answers",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("scorer_id", sa.Integer(), nullable=True),
        sa.Column("answer", sa.String(), nullable=False),
        sa.Column("cost", sa.Float(), nullable=True),
        sa.Column("input_tokens", sa.Integer(), nullable=False),
        sa.Column("output_tokens", sa.Integer(), nullable=False),
        sa.Column("total_tokens", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_index("ix_judge_answers_scorer_created", "judge_answers", ["scorer_id", "created_at"])
    # Plain ADD COLUMN (constant defaults): a batch copy of ``runs`` would trip the scores'
    # foreign keys on SQLite.
    op.add_column(
        "runs", sa.Column("use_cache", sa.Boolean(), nullable=False, server_default=sa.true())
    )
    for name in ("judge_answers", "cached_answers"):
        op.add_column("runs", sa.Column(name, sa.Integer(), nullable=False, server_default="0"))
    op.add_column("runs", sa.Column("saved_cost", sa.Float(), nullable=False, server_default="0"))


def downgrade() -> None:
    for name in ("saved_cost", "cached_answers", "judge_answers", "use_cache"):
        op.drop_column("runs", name)
    op.drop_index("ix_judge_answers_scorer_created", table_name="judge_answers")
    op.drop_table("judge_answers")
