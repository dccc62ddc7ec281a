"""A run's time spent running, without the pauses between a stop and a resume: the seconds
of its ended stretches (``active_s``) and when the stretch going on now began
(``running_since``).

Runs stored before keep the time shown until now: from their start to their end (or, for a
run waiting to be resumed, to its last heartbeat); a run running now counts from its start.

Revision ID: 0014_run_active_time
Revises: 0013_stability
Create Date: 2026-12-02
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from alembic import op

revision = "0014_run_active_time"
down_revision: str | None = "0013_stability"
branch_labels = None
depends_on = None

_RUNS = sa.table(
    "runs",
    sa.column("id", sa.Integer()),
    sa.column("status", sa.String()),
    sa.column("started_at", sa.DateTime(timezone=True)),
    sa.column("finished_at", sa.DateTime(timezone=True)),
    sa.column("heartbeat_at", sa.DateTime(timezone=True)),
    sa.column("running_since", sa.DateTime(timezone=True)),
    sa.column("active_s", sa.Float()),
)


def upgrade() -> None:
    # Plain ADD COLUMN (a batch copy of ``runs`` would trip the scores' foreign keys on SQLite).
    op.add_column("runs", sa.Column("running_since", sa.DateTime(timezone=True), nullable=True))
    op.add_column("runs", sa.Column("active_s", sa.Float(), nullable=False, server_default="0"))
    _backfill(op.get_bind())


def _backfill(bind: sa.Connection) -> None:
    """What each run stored before ran for, as well as its row can tell (runs are few)."""
    query = sa.select(
        _RUNS.c.id, _RUNS.c.status, _RUNS.c.started_at, _RUNS.c.finished_at, _RUNS.c.heartbeat_at
    ).where(_RUNS.c.started_at.is_not(None))
    for run_id, status, started, finished, beat in bind.execute(query).all():
        if status == "running":
            values: dict[str, object] = {"running_since": started}
        else:
            values = {"active_s": _seconds(started, finished or beat)}
        bind.execute(sa.update(_RUNS).where(_RUNS.c.id == run_id).values(**values))


def _seconds(start: datetime, end: datetime | None) -> float:
    return 0.0 if end is None else max((end - start).total_seconds(), 0.0)


def downgrade() -> None:
    op.drop_column("runs", "active_s")
    op.drop_column("runs", "running_since")
