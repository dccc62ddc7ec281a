"""A result that made no judge call costs 0, so a NULL cost always means "price unknown".

Cost totals count NULL costs as unpriced results straight from the covering indexes; rows
stored before this rule (a failure before any step, a judge step that failed before calling)
had NULL with no judge call, and are set to 0 here.

Revision ID: 0006_zero_cost_no_judge_call
Revises: 0005_traces
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_zero_cost_no_judge_call"
down_revision: str | None = "0005_traces"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(sa.text("UPDATE scores SET cost = 0 WHERE cost IS NULL AND attempts = 0"))


def downgrade() -> None:
    """Nothing to undo: a zero cost for a result without judge calls is true either way."""
