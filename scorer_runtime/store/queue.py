"""The run queue: runs waiting (status ``queued``), runners claiming them, runners alive.

A runner (``scorer-studio worker``) claims one run at a time with a single conditional
``UPDATE … RETURNING``: of many runners polling one store, exactly one gets each run. On
PostgreSQL the pick is ``FOR UPDATE SKIP LOCKED``, so runners racing for the queue each get a
different run instead of waiting on one another; on SQLite writes are serialized anyway. A
running run whose runner stopped beating (or, on this host, whose process ended) is claimed
the same way, by a compare-and-set on the runner it names, and resumed by the claimer.

Runners beat their own row in ``runners`` while they live, busy or idle, so the studio can
tell whether anything will pick up a queued run.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, update
from sqlmodel import Session, col, select

from scorer_runtime.process import runner_is_gone
from scorer_runtime.store.errors import ConflictError
from scorer_runtime.store.runs import (
    STALE_AFTER,
    RunInfo,
    close_crashed_stretch,
    get_run,
    is_stale,
)
from scorer_runtime.store.tables import RunnerRecord, RunRecord, utc_now

RUNNER_GONE_AFTER = timedelta(seconds=10)
"""A runner whose row has not beaten for this long is taken as gone (it beats every second)."""
_RESUMABLE = ("stopped", "cancelled", "failed")


@dataclass(frozen=True, slots=True)
class RunnerInfo:
    """A runner serving the queue: ``host:pid``, when it started, when it last beat."""

    name: str
    started_at: datetime
    heartbeat_at: datetime


def _is_postgres(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def queued_run_waiting(session: Session) -> bool:
    """Whether any run waits in the queue (the cheap read runners poll before claiming)."""
    found = session.exec(select(RunRecord.id).where(RunRecord.status == "queued").limit(1))
    return found.first() is not None


def claim_queued(session: Session, *, runner: str) -> int | None:
    """Mark the oldest queued run running for ``runner`` and return its id (None: none).

    One statement, so two runners never both get the same run.
    """
    pick = select(RunRecord.id).where(RunRecord.status == "queued").order_by(col(RunRecord.id))
    pick = pick.limit(1)
    if _is_postgres(session):
        pick = pick.with_for_update(skip_locked=True)
    now = utc_now()
    claim = (
        update(RunRecord)
        .where(col(RunRecord.id) == pick.scalar_subquery(), col(RunRecord.status) == "queued")
        .values(
            status="running",
            runner=runner,
            heartbeat_at=now,
            started_at=func.coalesce(col(RunRecord.started_at), now),
            running_since=now,
            finished_at=None,
            error=None,
        )
        .returning(col(RunRecord.id))
    )
    claimed = session.execute(claim).scalar_one_or_none()
    return None if claimed is None else int(claimed)


def stalled_runs(session: Session, *, now: datetime | None = None) -> list[RunInfo]:
    """Running runs whose runner stopped beating or (on this host) ended: to be taken over."""
    running = session.exec(select(RunRecord).where(RunRecord.status == "running")).all()
    return [
        get_run(session, run_id=r.id)
        for r in running
        if r.id is not None and (is_stale(r, now=now) or runner_is_gone(r.runner))
    ]


def claim_stalled(session: Session, *, run: RunInfo, runner: str) -> bool:
    """Take over ``run`` (found by :func:`stalled_runs`) for ``runner``, unless someone else
    did first or its runner beat again meanwhile. True when this runner now owns it."""
    previous = (
        col(RunRecord.runner).is_(None)
        if run.runner is None
        else col(RunRecord.runner) == run.runner
    )
    now = utc_now()
    # The crashed stretch ended at the runner's last beat; the time since is not running time.
    since = run.running_since
    ran = 0.0 if since is None else max(((run.heartbeat_at or since) - since).total_seconds(), 0)
    claim = (
        update(RunRecord)
        .where(col(RunRecord.id) == run.id, col(RunRecord.status) == "running", previous)
        .values(
            runner=runner,
            heartbeat_at=now,
            running_since=now,
            active_s=col(RunRecord.active_s) + ran,
        )
        .returning(col(RunRecord.id))
    )
    if not runner_is_gone(run.runner):  # judged by its beat alone: still old, or it lives
        claim = claim.where(col(RunRecord.heartbeat_at) < utc_now() - STALE_AFTER)
    return session.execute(claim).scalar_one_or_none() is not None


def enqueue_again(session: Session, *, run_id: int) -> RunInfo:
    """Put a stopped (budget reached), cancelled, failed or stalled run back in the queue, to
    score what has no result yet; a run queued already stays as it is."""
    run = session.get(RunRecord, run_id)
    if run is None:
        raise ConflictError(f"there is no run {run_id}")
    crashed = run.status == "running" and (is_stale(run) or runner_is_gone(run.runner))
    if run.status == "queued":
        return get_run(session, run_id=run_id)
    if run.status not in _RESUMABLE and not crashed:
        raise ConflictError(f"run {run_id} is {run.status}: there is nothing to resume")
    close_crashed_stretch(run)  # a crashed run stopped running at its last heartbeat
    run.status = "queued"
    run.cancel_requested = False
    run.error = None
    run.finished_at = None
    session.add(run)
    session.flush()
    return get_run(session, run_id=run_id)


def hand_back(session: Session, *, run_id: int, runner: str) -> bool:
    """A stopping runner puts its run back in the queue (unless someone asked to cancel it,
    or it had just ended): the next runner resumes it. True when it went back; its stretch of
    running ends now, so the time it waits for the next runner is not running time."""
    since = session.execute(
        select(RunRecord.running_since).where(col(RunRecord.id) == run_id)
    ).scalar_one_or_none()
    ran = 0.0 if since is None else max((utc_now() - since).total_seconds(), 0.0)
    back = (
        update(RunRecord)
        .where(col(RunRecord.id) == run_id, col(RunRecord.runner) == runner)
        # Still running, or cancelled by the runner's own stop (no one asked: see below);
        # a run that ended done or failed as the runner stopped stays as it ended.
        .where(col(RunRecord.status).in_(("running", "cancelled")))
        .where(col(RunRecord.cancel_requested).is_(False))
        .values(
            status="queued",
            finished_at=None,
            error=None,
            running_since=None,
            active_s=col(RunRecord.active_s) + ran,
        )
        .returning(col(RunRecord.id))
    )
    return session.execute(back).scalar_one_or_none() is not None


def runner_beat(session: Session, *, name: str) -> None:
    """Record that runner ``name`` is alive (its row is made on its first beat)."""
    now = utc_now()
    found = session.get(RunnerRecord, name)
    if found is None:
        session.add(RunnerRecord(name=name, started_at=now, heartbeat_at=now))
    else:
        found.heartbeat_at = now
        session.add(found)
    session.flush()


def remove_runner(session: Session, *, name: str) -> None:
    """A runner that stops says so (a killed one's row ages out instead)."""
    session.execute(delete(RunnerRecord).where(col(RunnerRecord.name) == name))


def live_runners(session: Session, *, now: datetime | None = None) -> list[RunnerInfo]:
    """Runners that beat recently (and, on this host, whose process lives), oldest first."""
    since = (now or utc_now()) - RUNNER_GONE_AFTER
    rows = session.exec(
        select(RunnerRecord)
        .where(col(RunnerRecord.heartbeat_at) >= since)
        .order_by(col(RunnerRecord.started_at))
    ).all()
    return [
        RunnerInfo(r.name, r.started_at, r.heartbeat_at) for r in rows if not runner_is_gone(r.name)
    ]
