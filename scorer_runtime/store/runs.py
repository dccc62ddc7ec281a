"""Batch runs: create, follow, cancel (from any process), finish, and list them with their
names and what their stored scores say (count, mean, how much of the cost is known).

A run's ``cancel_requested`` flag and ``heartbeat_at`` are how processes talk: the studio sets
the flag, the runner polls it while beating the heartbeat; a running run whose heartbeat
stopped was killed and may be resumed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import ColumnElement, and_, case, func, update
from sqlmodel import Session, col, select

from scorer_runtime.process import runner_is_gone, this_runner
from scorer_runtime.secrets import environment_secrets, redact
from scorer_runtime.store.datasets import count_examples
from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.info import info_of
from scorer_runtime.store.tables import (
    AlignmentRecord,
    ExampleRecord,
    HealthCheckRecord,
    RunRecord,
    ScoreRecord,
    ScorerVersionRecord,
    StabilityCheckRecord,
    utc_now,
)
from scorer_runtime.types import RUN_STATUSES, RunStatus

STALE_AFTER = timedelta(seconds=30)
"""A running run whose heartbeat is older than this is taken as crashed."""
_FAILED = ("step_error", "provider_error", "judge_format_error")


def people_runs() -> ColumnElement[bool]:
    """The runs people started: not a repeat of a stability check, not a run of a health
    check nor of an alignment (those belong to their check). Every list, count and pick of
    runs filters by it."""
    return and_(
        col(RunRecord.stability_check_id).is_(None),
        col(RunRecord.health_check_id).is_(None),
        col(RunRecord.alignment_id).is_(None),
    )


def check_runs() -> ColumnElement[bool]:
    """The runs a trust check made (stability repeats, health check runs, an alignment's
    runs): not people's."""
    return ~people_runs()


@dataclass(frozen=True, slots=True)
class RunInfo:
    """A batch run as the store hands it out: a scorer version over a dataset, and where it is
    (see :class:`~scorer_runtime.store.tables.RunRecord` for what each field means)."""

    id: int
    scorer_id: int
    scorer_version_id: int
    dataset_id: int
    status: RunStatus
    concurrency: int
    total: int
    done_count: int
    failed_count: int
    cost: float
    cancel_requested: bool
    error: str | None
    runner: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    heartbeat_at: datetime | None
    use_cache: bool
    judge_answers: int
    cached_answers: int
    saved_cost: float
    stability_check_id: int | None = None
    """The stability check this run is a repeat of (it scores the check's sample only)."""
    health_check_id: int | None = None
    """The health check this run is part of (it scores the check's sample only)."""
    perturbation: dict[str, Any] | None = None
    """How the health check's run changes each example before scoring it (None: not at all)."""
    alignment_id: int | None = None
    """The alignment this run is part of (it scores the alignment's graded examples only)."""
    candidate: str | None = None
    """In an alignment, the candidate it scores (None: the version as it is)."""
    candidate_spec: dict[str, Any] | None = None
    """The candidate's spec that scores the run instead of the version's own."""
    max_cost: float | None = None
    allow_unpriced: bool = False
    running_since: datetime | None = None
    active_s: float = 0.0
    pace: dict[str, Any] | None = None
    """While it runs: its pace as its runner last measured it (see ``batch.pace``)."""

    @property
    def of_check(self) -> bool:
        """Whether a trust check made the run (a stability repeat, a health check's run):
        it belongs to its check, not among the runs people started."""
        return (
            self.stability_check_id is not None
            or self.health_check_id is not None
            or self.alignment_id is not None
        )


class Timed(Protocol):
    """A run as far as its time spent running goes (:class:`RunInfo`, a run line)."""

    @property
    def active_s(self) -> float: ...

    @property
    def running_since(self) -> datetime | None: ...


def time_running(run: Timed, *, now: datetime | None = None) -> float:
    """Seconds the run spent running: its stretches that ended, and the one going on now (up
    to ``now``). The time it sat stopped at its cap, cancelled, crashed or queued before a
    resume is not counted."""
    if run.running_since is None:
        return run.active_s
    return run.active_s + max(((now or utc_now()) - run.running_since).total_seconds(), 0.0)


def close_stretch(run: RunRecord, at: datetime) -> None:
    """End the stretch of running going on (if any) at ``at``: its seconds join ``active_s``."""
    if run.running_since is not None:
        run.active_s += max((at - run.running_since).total_seconds(), 0.0)
        run.running_since = None


def close_crashed_stretch(run: RunRecord) -> None:
    """End a crashed run's stretch at its last heartbeat: the last moment it was seen running."""
    close_stretch(run, run.heartbeat_at or run.running_since or utc_now())


def create_run(
    session: Session,
    *,
    scorer_version_id: int,
    dataset_id: int,
    concurrency: int = 4,
    stability_check_id: int | None = None,
    health_check_id: int | None = None,
    perturbation: dict[str, Any] | None = None,
    alignment_id: int | None = None,
    candidate: str | None = None,
    candidate_spec: dict[str, Any] | None = None,
    use_cache: bool = True,
    here: bool = False,
) -> RunInfo:
    """A queued run of a scorer version over a dataset (over the sample of a stability
    check when ``stability_check_id`` is given, of a health check, changed as
    ``perturbation`` says, when ``health_check_id`` is; ``use_cache``: whether its judge answers may
    come from the judge answer cache). With ``alignment_id`` it scores the alignment's
    graded examples of the dataset, with ``candidate_spec`` instead of the version's spec.

    ``here=True`` makes a run this process scores itself (the command line's ``run``, a
    stability check or version A/B scored in place): it is stored already running, owned by
    this process, so a runner serving the queue on the same store never claims it (it would
    score it with what the runner knows, not what the command was told, e.g. ``--api-base``).
    """
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
        stability_check_id=stability_check_id,
        health_check_id=health_check_id,
        perturbation=perturbation,
        alignment_id=alignment_id,
        candidate=candidate,
        candidate_spec=candidate_spec,
        use_cache=use_cache,
    )
    if here:
        now = utc_now()
        run.status, run.runner = "running", this_runner()
        run.started_at = run.heartbeat_at = run.running_since = now
    run.total = _run_total(session, run)
    session.add(run)
    session.flush()
    return info_of(RunInfo, run)


def _run_total(session: Session, run: RunRecord) -> int:
    """How many examples the run scores: its dataset's, or its trust check's sample."""
    if run.alignment_id is not None:
        return len(alignment_example_ids(session, run.alignment_id, dataset_id=run.dataset_id))
    if run.health_check_id is not None:
        health = session.get(HealthCheckRecord, run.health_check_id)
        if health is None:
            raise not_found("health check", run.health_check_id)
        return len(health.example_ids)
    if run.stability_check_id is None:
        return count_examples(session, dataset_id=run.dataset_id)
    check = session.get(StabilityCheckRecord, run.stability_check_id)
    if check is None:
        raise not_found("stability check", run.stability_check_id)
    return len(check.example_ids)


def alignment_example_ids(session: Session, alignment_id: int, *, dataset_id: int) -> list[int]:
    """The graded examples of an alignment (tuning part and holdout) in one dataset, in id
    order: what each of its runs of that dataset scores."""
    alignment = session.get(AlignmentRecord, alignment_id)
    if alignment is None:
        raise not_found("alignment", alignment_id)
    ids = [*alignment.tuning_ids, *alignment.holdout_ids]
    query = select(ExampleRecord.id).where(
        ExampleRecord.dataset_id == dataset_id, col(ExampleRecord.id).in_(ids)
    )
    return sorted(int(i) for i in session.exec(query) if i is not None)


def get_run(session: Session, *, run_id: int) -> RunInfo:
    """The run ``run_id``; raises NotFoundError."""
    return info_of(RunInfo, _run(session, run_id=run_id))


def _run(session: Session, *, run_id: int) -> RunRecord:
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
    repeats: bool = True,
) -> list[RunInfo]:
    """Runs newest first, optionally of one scorer, version, dataset or status (at most
    ``limit``): what lists of runs and the run pickers of results and comparisons show.
    ``repeats=False`` leaves out the runs of stability and health checks (they belong to
    their check, not among the runs people started)."""
    query = select(RunRecord)
    if not repeats:
        query = query.where(people_runs())
    if scorer_id is not None:
        query = query.where(RunRecord.scorer_id == scorer_id)
    if version_id is not None:
        query = query.where(RunRecord.scorer_version_id == version_id)
    if dataset_id is not None:
        query = query.where(RunRecord.dataset_id == dataset_id)
    if status is not None:
        query = query.where(RunRecord.status == status)
    found = session.exec(query.order_by(col(RunRecord.id).desc()).limit(limit)).all()
    return [info_of(RunInfo, run) for run in found]


def is_stale(run: RunInfo | RunRecord, *, now: datetime | None = None) -> bool:
    """Whether a run marked running stopped beating (its process is gone)."""
    beat = run.heartbeat_at or run.started_at
    return beat is None or (now or utc_now()) - beat > STALE_AFTER


def mark_running(session: Session, *, run_id: int) -> RunInfo:
    """Mark a run running (also when resuming); refuses a run another process is running.

    A run whose runner stopped beating, or whose runner process on this host is gone
    (killed), is taken over; so is one this process claimed from the queue.
    """
    run = _run(session, run_id=run_id)
    taken = run.runner != this_runner() and not runner_is_gone(run.runner)
    if run.status == "running" and taken and not is_stale(run):
        raise ConflictError(
            f"run {run_id} is being run by another process right now (last heartbeat "
            f"{(utc_now() - (run.heartbeat_at or utc_now())).total_seconds():.0f} s ago); "
            "wait for it, or cancel it first"
        )
    now = utc_now()
    mine = run.status == "running" and run.runner == this_runner()
    if not (mine and run.running_since is not None):  # claimed or made here: its stretch goes on
        close_crashed_stretch(run)  # a crashed runner's stretch ended at its last beat
        run.running_since = now
    run.status = "running"
    run.cancel_requested = False
    run.error = None
    run.finished_at = None
    run.started_at = run.started_at or now
    run.heartbeat_at = now
    run.runner = this_runner()
    run.total = _run_total(session, run)
    session.add(run)
    session.flush()
    return info_of(RunInfo, run)


def beat(
    session: Session,
    *,
    run_id: int,
    done: int,
    failed: int,
    cost: float,
    answers: int = 0,
    cached: int = 0,
    saved: float = 0.0,
    pace: dict[str, Any] | None = None,
) -> bool:
    """Record progress and the heartbeat (and add a commit's judge answers, cache hits and
    saved cost to the run's counters, in the same statement); return whether someone asked
    to cancel the run."""
    values: dict[str, Any] = {
        "done_count": done,
        "failed_count": failed,
        "cost": cost,
        "heartbeat_at": utc_now(),
    }
    if pace is not None:
        values["pace"] = pace
    if answers:
        values["judge_answers"] = RunRecord.judge_answers + answers
        values["cached_answers"] = RunRecord.cached_answers + cached
        values["saved_cost"] = RunRecord.saved_cost + saved
    session.execute(update(RunRecord).where(col(RunRecord.id) == run_id).values(**values))
    flag = session.exec(select(RunRecord.cancel_requested).where(RunRecord.id == run_id)).one()
    return bool(flag)


def request_cancel(session: Session, *, run_id: int) -> RunInfo:
    """Ask the process running ``run_id`` to stop; a queued run is cancelled at once."""
    run = _run(session, run_id=run_id)
    run.cancel_requested = True
    crashed = run.status == "running" and (is_stale(run) or runner_is_gone(run.runner))
    if run.status == "queued" or crashed:
        close_crashed_stretch(run)
        run.status = "cancelled"
        run.finished_at = utc_now()
    session.add(run)
    session.flush()
    return info_of(RunInfo, run)


def cancel_unended(session: Session, runs: Iterable[RunInfo]) -> list[int]:
    """Ask each of ``runs`` that has not ended to stop (:func:`request_cancel`); their ids.
    A check's runs (stability repeats, health runs) are stopped together this way."""
    asked = []
    for run in runs:
        if run.status in ("queued", "running"):
            request_cancel(session, run_id=run.id)
            asked.append(run.id)
    return asked


def finish_run(
    session: Session, *, run_id: int, status: RunStatus, error: str | None = None
) -> RunInfo:
    """Close a run with its final status; the counters are recomputed from the scores."""
    if status not in RUN_STATUSES:
        raise ValueError(f"status must be one of {', '.join(RUN_STATUSES)}")
    run = _run(session, run_id=run_id)
    done, failed, cost = run_counts(session, run_id=run_id)
    run.status = status
    # A run stops on an exception whose text may be a provider's: stored redacted.
    run.error = None if error is None else redact(error, environment_secrets())
    run.done_count, run.failed_count, run.cost = done, failed, cost
    run.finished_at = run.heartbeat_at = utc_now()
    close_stretch(run, run.finished_at)
    run.pace = None  # an ended run goes at no pace
    session.add(run)
    session.flush()
    return info_of(RunInfo, run)


def run_counts(session: Session, *, run_id: int) -> tuple[int, int, float]:
    """(results stored, results that are errors, total cost) of a run, from its scores."""
    failed = func.sum(case((col(ScoreRecord.outcome).in_(_FAILED), 1), else_=0))
    done, n_failed, cost = session.exec(
        select(func.count(), failed, func.coalesce(func.sum(ScoreRecord.cost), 0.0)).where(
            ScoreRecord.run_id == run_id
        )
    ).one()
    return int(done), int(n_failed or 0), float(cost or 0.0)
