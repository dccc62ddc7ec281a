"""Batch runs: create, follow, cancel (from any process), finish, and list them with their
names and what their stored scores say (count, mean, how much of the cost is known).

A run's ``cancel_requested`` flag and ``heartbeat_at`` are how processes talk: the studio sets
the flag, the runner polls it while beating the heartbeat; a running run whose heartbeat
stopped was killed and may be resumed.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import case, func, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select

from scorer_runtime.store.aggregates import priced_unpriced_columns
from scorer_runtime.store.datasets import count_examples
from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.tables import (
    RUN_STATUSES,
    DatasetRecord,
    RunRecord,
    RunStatus,
    ScoreRecord,
    ScorerRecord,
    ScorerVersionRecord,
    utc_now,
)

STALE_AFTER = timedelta(seconds=30)
"""A running run whose heartbeat is older than this is taken as crashed."""
_FAILED = ("step_error", "provider_error", "judge_format_error")


def create_run(
    session: Session, *, scorer_version_id: int, dataset_id: int, concurrency: int = 4
) -> RunRecord:
    """A queued run of a scorer version over a dataset."""
    if concurrency < 1:
        raise ConflictError("concurrency must be 1 or more")
    version = session.get(ScorerVersionRecord, scorer_version_id)
    if version is None:
        raise not_found("scorer version", scorer_version_id)
    run = RunRecord(
        scorer_id=version.scorer_id,
        scorer_version_id=scorer_version_id,
        dataset_id=dataset_id,
        concurrency=concurrency,
        total=count_examples(session, dataset_id=dataset_id),
    )
    session.add(run)
    session.flush()
    return run


def get_run(session: Session, *, run_id: int) -> RunRecord:
    """The run ``run_id``; raises NotFoundError."""
    run = session.get(RunRecord, run_id)
    if run is None:
        raise not_found("run", run_id)
    return run


def list_runs(
    session: Session,
    *,
    scorer_id: int | None = None,
    version_id: int | None = None,
    dataset_id: int | None = None,
    status: RunStatus | None = None,
    limit: int = 50,
) -> Sequence[RunRecord]:
    """Runs newest first, optionally of one scorer, version, dataset or status (at most
    ``limit``): what lists of runs and the run pickers of results and comparisons show."""
    query = select(RunRecord)
    if scorer_id is not None:
        query = query.where(RunRecord.scorer_id == scorer_id)
    if version_id is not None:
        query = query.where(RunRecord.scorer_version_id == version_id)
    if dataset_id is not None:
        query = query.where(RunRecord.dataset_id == dataset_id)
    if status is not None:
        query = query.where(RunRecord.status == status)
    return session.exec(query.order_by(col(RunRecord.id).desc()).limit(limit)).all()


def is_stale(run: RunRecord, *, now: datetime | None = None) -> bool:
    """Whether a run marked running stopped beating (its process is gone)."""
    beat = run.heartbeat_at or run.started_at
    return beat is None or (now or utc_now()) - beat > STALE_AFTER


def this_runner() -> str:
    """``host:pid`` of this process, as stored on the runs it runs."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _runner_is_gone(runner: str | None) -> bool:
    """Whether the recorded runner was a process on this host that no longer exists."""
    host, _, pid = (runner or "").rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, under another user
        return False
    return False


def start_run(session: Session, *, run_id: int) -> RunRecord:
    """Mark a run running (also when resuming); refuses a run another process is running.

    A run whose runner stopped beating, or whose runner process on this host is gone
    (killed), is taken over.
    """
    run = get_run(session, run_id=run_id)
    if run.status == "running" and not is_stale(run) and not _runner_is_gone(run.runner):
        raise ConflictError(
            f"run {run_id} is being run by another process right now (last heartbeat "
            f"{(utc_now() - (run.heartbeat_at or utc_now())).total_seconds():.0f} s ago); "
            "wait for it, or cancel it first"
        )
    now = utc_now()
    run.status = "running"
    run.cancel_requested = False
    run.error = None
    run.finished_at = None
    run.started_at = run.started_at or now
    run.heartbeat_at = now
    run.runner = this_runner()
    run.total = count_examples(session, dataset_id=run.dataset_id)
    session.add(run)
    session.flush()
    return run


def beat(session: Session, *, run_id: int, done: int, failed: int, cost: float) -> bool:
    """Record progress and the heartbeat; return whether someone asked to cancel the run."""
    session.execute(
        update(RunRecord)
        .where(col(RunRecord.id) == run_id)
        .values(done_count=done, failed_count=failed, cost=cost, heartbeat_at=utc_now())
    )
    flag = session.exec(select(RunRecord.cancel_requested).where(RunRecord.id == run_id)).one()
    return bool(flag)


def request_cancel(session: Session, *, run_id: int) -> RunRecord:
    """Ask the process running ``run_id`` to stop; a queued run is cancelled at once."""
    run = get_run(session, run_id=run_id)
    run.cancel_requested = True
    crashed = run.status == "running" and (is_stale(run) or _runner_is_gone(run.runner))
    if run.status == "queued" or crashed:
        run.status = "cancelled"
        run.finished_at = utc_now()
    session.add(run)
    session.flush()
    return run


def finish_run(
    session: Session, *, run_id: int, status: RunStatus, error: str | None = None
) -> RunRecord:
    """Close a run with its final status; the counters are recomputed from the scores."""
    if status not in RUN_STATUSES:
        raise ValueError(f"status must be one of {', '.join(RUN_STATUSES)}")
    run = get_run(session, run_id=run_id)
    done, failed, cost = run_counts(session, run_id=run_id)
    run.status, run.error = status, error
    run.done_count, run.failed_count, run.cost = done, failed, cost
    run.finished_at = run.heartbeat_at = utc_now()
    session.add(run)
    session.flush()
    return run


def run_counts(session: Session, *, run_id: int) -> tuple[int, int, float]:
    """(results stored, results that are errors, total cost) of a run, from its scores."""
    failed = func.sum(case((col(ScoreRecord.outcome).in_(_FAILED), 1), else_=0))
    done, n_failed, cost = session.exec(
        select(func.count(), failed, func.coalesce(func.sum(ScoreRecord.cost), 0.0)).where(
            ScoreRecord.run_id == run_id
        )
    ).one()
    return int(done), int(n_failed or 0), float(cost or 0.0)


@dataclass(frozen=True, slots=True)
class RunLine:
    """One run with its scorer's and dataset's names and what its stored scores say: how many
    were scored, their mean, and how many results have a known cost."""

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
    """Stored results with a positive cost (see ``aggregates.priced_unpriced_columns``)."""
    unpriced: int = 0
    """Stored results that called the judge without a known price (a NULL cost)."""

    @property
    def remaining(self) -> int:
        """Examples still without a result."""
        return max(self.total - self.done, 0)


@dataclass(frozen=True, slots=True)
class RunsPage:
    """A page of runs, newest first, and the cursor of the next (older) page."""

    lines: list[RunLine]
    older_than: int | None
    """Pass as ``before_id`` for the next page (None: this is the last page)."""


def _named_runs() -> Select[RunRecord, str, int, str]:
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


def runs_page(session: Session, *, before_id: int | None = None, limit: int = 50) -> RunsPage:
    """Up to ``limit`` runs older than ``before_id`` (newest first), with names, means and
    how much of their cost is known: two statements (the runs, then their scores' tallies
    in one grouped query), whatever the page's size."""
    query = _named_runs()
    if before_id is not None:
        query = query.where(col(RunRecord.id) < before_id)
    rows = session.exec(query.order_by(col(RunRecord.id).desc()).limit(limit + 1)).all()
    more = len(rows) > limit
    rows = rows[:limit]
    tallies = _tallies(session, [run.id for run, *_ in rows if run.id is not None])
    lines = [_line(r, s, v, d, tallies.get(r.id or 0, _Tally())) for r, s, v, d in rows]
    return RunsPage(lines, lines[-1].run_id if more and lines else None)


def run_line(session: Session, *, run_id: int) -> RunLine | None:
    """One run with its names, mean and known cost (None when there is no such run)."""
    row = session.exec(_named_runs().where(col(RunRecord.id) == run_id)).first()
    if row is None:
        return None
    run, scorer, version, dataset = row
    tally = _tallies(session, [run_id]).get(run_id, _Tally())
    return _line(run, scorer, version, dataset, tally)
