"""Scores: one covering index per scorer and per version instead of two (faster bulk inserts).

``(…, created_at, outcome, score, cost)`` serves both the history pages (newest first) and
the aggregates (a covering scan), so the separate ``(…, created_at)`` and
``(…, outcome, created_at, score, cost)`` indexes go: two fewer B-trees to update per row.

Revision ID: 0004_score_cover_indexes
Revises: 0003_drafts
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0004_score_cover_indexes"
down_revision: str | None = "0003_drafts"
branch_labels = None
depends_on = None

_NEW = (
    ("ix_scores_scorer_created_cover", ["scorer_id", "created_at", "outcome", "score", "cost"]),
    (
        "ix_scores_version_created_cover",
        ["scorer_version_id", "created_at", "outcome", "score", "cost"],
    ),
)
_OLD = (
    ("ix_scores_scorer_created", ["scorer_id", "created_at"]),
    ("ix_scores_version_created", ["scorer_version_id", "created_at"]),
    ("ix_scores_scorer_outcome_score", ["scorer_id", "outcome", "created_at", "score", "cost"]),
    (
        "ix_scores_version_outcome_score",
        ["scorer_version_id", "outcome", "created_at", "score", "cost"],
    ),
)


def upgrade() -> None:
    # New ones first: the old ones keep serving queries until the new ones exist.
    for name, columns in _NEW:
        op.create_index(name, "scores", columns)
    for name, _ in _OLD:
        op.drop_index(name, table_name="scores")


def downgrade() -> None:
    for name, columns in _OLD:
        op.create_index(name, "scores", columns)
    for name, _ in _NEW:
        op.drop_index(name, table_name="scores")
