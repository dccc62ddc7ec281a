"""Scores: the covering indexes by scorer and by version also hold ``run_id``, so the Results
page's figures, which leave stability checks' repeat runs out by their run, are still read
from the index alone (without it, a scorer's figures read every one of its rows: about five
times slower at 20,000 results).

Revision ID: 0015_score_cover_run
Revises: 0014_run_active_time
Create Date: 2026-12-02
"""

from __future__ import annotations

from alembic import op

revision = "0015_score_cover_run"
down_revision: str | None = "0014_run_active_time"
branch_labels = None
depends_on = None

_COVER = ["created_at", "outcome", "score", "cost"]
_INDEXES = (
    ("ix_scores_scorer_created_cover", "scorer_id"),
    ("ix_scores_version_created_cover", "scorer_version_id"),
)


def upgrade() -> None:
    for name, lead in _INDEXES:
        op.drop_index(name, table_name="scores")
        op.create_index(name, "scores", [lead, *_COVER, "run_id"])


def downgrade() -> None:
    for name, lead in _INDEXES:
        op.drop_index(name, table_name="scores")
        op.create_index(name, "scores", [lead, *_COVER])
