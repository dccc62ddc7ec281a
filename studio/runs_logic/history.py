"""Runs as the Runs page lists and follows them: names, counts, mean, and where each run is.

A run's stored status says what its runner last wrote; :func:`run_phase` adds what only the
outside can see — a run marked running whose process is gone, a run whose process was
started but has not begun, or exited before it could. Streamlit-free and tested on a real
SQLite file.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select

from scorer_runtime.batch.summary import CostWords, cost_words
from scorer_runtime.store import (
    DatasetRecord,
    RunRecord,
    ScoreRecord,
    ScorerRecord,
    ScorerVersionRecord,
    utc_now,
)
from scorer_runtime.store.aggregates import priced_unpriced_columns
from scorer_runtime.store.runs import STALE_AFTER
from studio.runs_logic.launch import Launcher, pid_alive

PAGE_SIZE = 10
"""Runs per page of the list (pages come from the database, newest first)."""

RunPhase = Literal[
    "queued",
    "starting",
    "running",
    "stopping",
    "cancelled",
    "failed",
    "done",
    "stalled",
    "not_started",
]
"""Where a run is, as a person sees it (the stored status plus what the processes say)."""

PHASE_LABELS: dict[RunPhase, str] = {
    "queued": "Waiting to start",
    "starting": "Starting…",
    "running": "Running",
    "stopping": "Stopping…",
    "cancelled": "Cancelled",
    "failed": "Stopped by an error",
    "done": "Finished",
    "stalled": "Stopped unexpectedly",
    "not_started": "Did not start",
}
"""Every phase in plain words (the stored statuses word for word as ``RUN_STATUS_LABELS``)."""

ACTIVE_PHASES: frozenset[RunPhase] = frozenset({"queued", "starting", "running", "stopping"})
"""Phases in which the page follows the run live."""
RESUMABLE_PHASES: frozenset[RunPhase] = frozenset({"cancelled", "failed", "stalled", "not_started"})


@dataclass(frozen=True, slots=True)
class RunLine:
    """One run with its names, counts and mean, as the page shows it."""

    run_id: int
    scorer_id: int
    scorer: str
    version_id: int
    version: int
    dataset_id: int
    dataset: str
    status: str
    cancel_requested: bool
    concurrency: int
    total: int
    done: int
    failed: int
    cost: float
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    heartbeat_at: datetime | None = None
    runner: str | None = None
    error: str | None = None
    scored: int = 0
    mean: float | None = None
    priced: int = 0
    """Stored results that called the judge and have a cost."""
    unpriced: int = 0
    """Stored results that called the judge but have no cost (no price for the model)."""

    @property
    def remaining(self) -> int:
        """Examples still without a result."""
        return max(self.total - self.done, 0)

    @property
    def cost_words(self) -> CostWords:
        """The run's cost so far in words, saying how much of it is known."""
        return cost_words(self.cost, self.priced, self.unpriced)


@dataclass(frozen=True, slots=True)
class RunsPage:
    """A page of runs, newest first, and the cursor of the next (older) page."""

    lines: list[RunLine]
    older_than: int | None
    """Pass as ``before_id`` for the next page (None: this is the last page)."""


def _query() -> Select[RunRecord, str, int, str]:
    return (
        select(RunRecord, ScorerRecord.name, ScorerVersionRecord.version, DatasetRecord.name)
        .join(ScorerRecord, col(ScorerRecord.id) == col(RunRecord.scorer_id))
        .join(ScorerVersionRecord, col(ScorerVersionRecord.id) == col(RunRecord.scorer_version_id))
        .join(DatasetRecord, col(DatasetRecord.id) == col(RunRecord.dataset_id))
    )


@dataclass(frozen=True, slots=True)
class _Tally:
    """What a run's stored scores say beyond its row: scored count, mean, priced, unpriced."""

    scored: int = 0
    mean: float | None = None
    priced: int = 0
    unpriced: int = 0


def _tallies(session: Session, run_ids: Sequence[int]) -> dict[int, _Tally]:
    """The :class:`_Tally` of each run, in one grouped query (as ``score_stats`` counts)."""
    if not run_ids:
        return {}
    scored = col(ScoreRecord.outcome) == "scored"
    columns: list[Any] = [
        col(ScoreRecord.run_id),
        func.count().filter(scored),
        func.avg(ScoreRecord.score).filter(scored),
        *priced_unpriced_columns(),
    ]
    query = (
        sa_select(*columns)
        .where(col(ScoreRecord.run_id).in_(run_ids))
        .group_by(col(ScoreRecord.run_id))
    )
    return {
        int(run_id): _Tally(int(n), None if mean is None else float(mean), int(p), int(u))
        for run_id, n, mean, p, u in session.execute(query).all()
        if run_id is not None
    }


def _line(run: RunRecord, scorer: str, version: int, dataset: str, tally: _Tally) -> RunLine:
    assert run.id is not None
    return RunLine(
        run_id=run.id,
        scorer_id=run.scorer_id,
        scorer=scorer,
        version_id=run.scorer_version_id,
        version=version,
        dataset_id=run.dataset_id,
        dataset=dataset,
        status=run.status,
        cancel_requested=run.cancel_requested,
        concurrency=run.concurrency,
        total=run.total,
        done=run.done_count,
        failed=run.failed_count,
        cost=run.cost,
        created_at=run.created_at,
        started_at=run.started_at,
        finished_at=run.finished_at,
        heartbeat_at=run.heartbeat_at,
        runner=run.runner,
        error=run.error,
        scored=tally.scored,
        mean=tally.mean,
        priced=tally.priced,
        unpriced=tally.unpriced,
    )


def runs_page(
    session: Session, *, before_id: int | None = None, limit: int = PAGE_SIZE
) -> RunsPage:
    """Up to ``limit`` runs older than ``before_id`` (newest first), with names, means and
    how much of their cost is known."""
    query = _query()
    if before_id is not None:
        query = query.where(col(RunRecord.id) < before_id)
    rows = session.exec(query.order_by(col(RunRecord.id).desc()).limit(limit + 1)).all()
    more = len(rows) > limit
    rows = rows[:limit]
    tallies = _tallies(session, [run.id for run, *_ in rows if run.id is not None])
    lines = [_line(r, s, v, d, tallies.get(r.id or 0, _Tally())) for r, s, v, d in rows]
    return RunsPage(lines, lines[-1].run_id if more and lines else None)


def run_line(session: Session, *, run_id: int) -> RunLine | None:
    """One run with its names and mean (None when there is no such run)."""
    query = _query().where(col(RunRecord.id) == run_id)
    row = session.exec(query).first()
    if row is None:
        return None
    run, scorer, version, dataset = row
    tally = _tallies(session, [run_id]).get(run_id, _Tally())
    return _line(run, scorer, version, dataset, tally)


def runner_is_gone(runner: str | None) -> bool:
    """Whether the recorded runner (``host:pid``) was a process on this host that has ended."""
    host, _, pid = (runner or "").rpartition(":")
    return host == socket.gethostname() and pid.isdigit() and not pid_alive(int(pid))


def run_phase(line: RunLine, launched: Launcher | None, *, now: datetime | None = None) -> RunPhase:
    """Where the run is, from its row and the process started for it (if this machine knows).

    A process launched after the run last finished, and still alive, is *starting* (it has
    not marked the run running yet); one that exited without starting leaves a queued run
    that *did not start*. A running run whose runner stopped beating or is gone *stalled*.
    """
    if line.status == "running":
        beat = line.heartbeat_at or line.started_at
        if beat is None or (now or utc_now()) - beat > STALE_AFTER or runner_is_gone(line.runner):
            return "stalled"
        return "stopping" if line.cancel_requested else "running"
    if launched is not None and line.status in ("queued", "cancelled", "failed"):
        newer = line.finished_at is None or launched.launched_at > line.finished_at
        if launched.alive and newer:
            return "starting"
        if line.status == "queued" and not launched.alive:
            return "not_started"
    if line.status == "queued" and (now or utc_now()) - line.created_at > STALE_AFTER:
        return "not_started"  # queued long ago by something that never started it
    return _STORED.get(line.status, "failed")


_STORED: dict[str, RunPhase] = {
    "queued": "queued",
    "running": "running",
    "cancelled": "cancelled",
    "failed": "failed",
    "done": "done",
}
