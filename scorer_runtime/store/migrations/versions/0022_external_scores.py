"""External scores: evaluation events other tools send (``gen_ai.evaluation.result``) are
stored as scores of an external scorer, one per evaluation name. ``scorers.external_name``
marks such a scorer (and finds it by the name the other tool uses); ``scores.label`` keeps a
verdict in words; ``scores.event_key`` (unique where set) stores an event delivered twice once.

Columns are added in place (no table copy): the scores table may be large.

Revision ID: 0022_external_scores
Revises: 0021_rule_alerts
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022_external_scores"
down_revision: str | None = "0021_rule_alerts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("scorers", sa.Column("external_name", sa.String(length=200), nullable=True))
    op.create_index("ix_scorers_external_name", "scorers", ["external_name"], unique=True)
    op.add_column("scores", sa.Column("label", sa.String(length=200), nullable=True))
    op.add_column("scores", sa.Column("event_key", sa.String(length=64), nullable=True))
    op.create_index(
        "ix_scores_event_key",
        "scores",
        ["event_key"],
        unique=True,
        sqlite_where=sa.text("event_key IS NOT NULL"),
        postgresql_where=sa.text("event_key IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_scores_event_key", table_name="scores")
    with op.batch_alter_table("scores") as batch:
        batch.drop_column("event_key")
        batch.drop_column("label")
    op.drop_index("ix_scorers_external_name", table_name="scorers")
    with op.batch_alter_table("scorers") as batch:
        batch.drop_column("external_name")
