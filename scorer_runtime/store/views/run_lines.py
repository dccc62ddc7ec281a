"""Run lines, for the Runs page and Home's latest runs: runs with their scorer's and dataset's
names and what their stored scores say (count, mean, outcomes, how much of the cost is known),
a page at a time (stability checks' repeat runs are left to the Trust page)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select

from scorer_runtime.store.aggregates import priced_unpriced_columns
from scorer_runtime.store.runs import people_runs
from scorer_runtime.store.tables import (
    DatasetRecord,
    RunRecord,
    ScoreRecord,
    ScorerRecord,
    ScorerVersionRecord,
    SpendReservationRecord,
)
from scorer_runtime.types import OUTCOMES, RunStatus


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
    status: RunStatus
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
    outcome_counts: dict[str, int] = field(default_factory=dict)
    """Stored results by outcome (outcomes with none are absent)."""
    use_cache: bool = True
    """Whether the run takes judge answers from the judge answer cache."""
    judge_answers: int = 0
    """Judge answers in the stored results so far (the run's counter)."""
    cached_answers: int = 0
    """Of them, those the judge answer cache gave."""
    saved_cost: float = 0.0
    """What the cached answers cost when first asked."""
    stability_check_id: int | None = None
    """The stability check this run is a repeat of (None: an ordinary run)."""
    running_since: datetime | None = None
    """When the stretch of running going on now began (None while not running)."""
    active_s: float = 0.0
    """Seconds spent running in the stretches that ended (see ``time_running``)."""
    pace: dict[str, Any] | None = None
    """While it runs: its pace as its runner last measured it (see ``batch.pace``)."""
    set_aside: int = 0
    """Judge answers its cap set aside and no stored result gave back: in flight while it
    runs; once it has stopped, answers lost when a runner stopped (``store.reservations``),
    counted as spent at their worst case."""
    set_aside_cost: float = 0.0
    """What those answers count for, at their worst case (dollars)."""

    @property
    def spent(self) -> float:
        """What counts against its cap: its results' cost, and what it set aside and did
        not get back (answers lost when a runner stopped, at their worst case)."""
        return self.cost + self.set_aside_cost

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
    """What a run's stored scores say beyond its row: scored count, mean, priced, unpriced,
    and how many results ended in each outcome."""

    scored: int = 0
    mean: float | None = None
    priced: int = 0
    unpriced: int = 0
    outcome_counts: dict[str, int] = field(default_factory=dict)


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
        func.count(),
        *[func.count().filter(col(ScoreRecord.outcome) == name) for name in OUTCOMES],
    ]
    query = (
        sa_select(*columns)
        .where(col(ScoreRecord.run_id).in_(run_ids))
        .group_by(col(ScoreRecord.run_id))
    )
    tallies = {}
    for run_id, n, mean, p, u, total, *counts in session.execute(query).all():
        if run_id is None:
            continue
        outcomes: dict[str, int] = {
            name: int(c) for name, c in zip(OUTCOMES, counts, strict=True) if c
        }
        if sum(outcomes.values()) != int(total):  # an outcome add_scores does not write
            outcomes = _outcome_counts(session, int(run_id))
        mean = None if mean is None else float(mean)
        tallies[int(run_id)] = _Tally(int(n), mean, int(p), int(u), outcomes)
    return tallies


def _set_aside(session: Session, run_ids: Sequence[int]) -> dict[int, tuple[int, float]]:
    """Per run: the reservations its cap holds (how many, their dollars), in one query."""
    if not run_ids:
        return {}
    run_id = col(SpendReservationRecord.run_id)
    query = (
        sa_select(run_id, func.count(), func.sum(SpendReservationRecord.amount))
        .where(run_id.in_(run_ids))
        .group_by(run_id)
    )
    return {int(r): (int(n), float(c or 0.0)) for r, n, c in session.execute(query).all()}


def _outcome_counts(session: Session, run_id: int) -> dict[str, int]:
    outcome = col(ScoreRecord.outcome)
    query = select(outcome, func.count()).where(ScoreRecord.run_id == run_id).group_by(outcome)
    return {str(o): int(c) for o, c in session.exec(query).all()}


def _line(
    run: RunRecord,
    scorer: str,
    version: int,
    dataset: str,
    tally: _Tally,
    held: tuple[int, float] = (0, 0.0),
) -> RunLine:
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
        outcome_counts=tally.outcome_counts,
        use_cache=run.use_cache,
        judge_answers=run.judge_answers,
        cached_answers=run.cached_answers,
        saved_cost=run.saved_cost,
        stability_check_id=run.stability_check_id,
        running_since=run.running_since,
        active_s=run.active_s,
        pace=run.pace,
        set_aside=held[0],
        set_aside_cost=held[1],
    )


def runs_page(session: Session, *, before_id: int | None = None, limit: int = 50) -> RunsPage:
    """Up to ``limit`` runs older than ``before_id`` (newest first), with names, means and
    how much of their cost is known: three statements (the runs, their scores' tallies
    and their caps' reservations, each in one grouped query), whatever the page's size.

    Only the runs people started: a trust check's runs belong to their check (the
    Trust page shows them), so they are left out.
    """
    query = _named_runs().where(people_runs())
    if before_id is not None:
        query = query.where(col(RunRecord.id) < before_id)
    rows = session.exec(query.order_by(col(RunRecord.id).desc()).limit(limit + 1)).all()
    more = len(rows) > limit
    rows = rows[:limit]
    ids = [run.id for run, *_ in rows if run.id is not None]
    tallies, held = _tallies(session, ids), _set_aside(session, ids)
    lines = [
        _line(r, s, v, d, tallies.get(r.id or 0, _Tally()), held.get(r.id or 0, (0, 0.0)))
        for r, s, v, d in rows
    ]
    return RunsPage(lines, lines[-1].run_id if more and lines else None)


def run_line(session: Session, *, run_id: int) -> RunLine | None:
    """One run with its names, mean and known cost (None when there is no such run)."""
    row = session.exec(_named_runs().where(col(RunRecord.id) == run_id)).first()
    if row is None:
        return None
    run, scorer, version, dataset = row
    tally = _tallies(session, [run_id]).get(run_id, _Tally())
    held = _set_aside(session, [run_id]).get(run_id, (0, 0.0))
    return _line(run, scorer, version, dataset, tally, held)


def cached_answer_counts(
    session: Session, *, score_ids: Sequence[int]
) -> dict[int, tuple[int, int]]:
    """For each stored result: how many of its judge answers came from the judge answer
    cache, and how many judge answers it has (results without any are absent). For the few
    newest results of a run: it reads their judge evidence."""
    if not score_ids:
        return {}
    query = select(ScoreRecord.id, ScoreRecord.judge).where(col(ScoreRecord.id).in_(score_ids))
    counts: dict[int, tuple[int, int]] = {}
    for score_id, judge in session.exec(query).all():
        answers = [
            e
            for e in (judge or {}).values()
            if isinstance(e, dict) and e.get("status") == "success"
        ]
        if score_id is not None and answers:
            counts[score_id] = (sum(1 for e in answers if e.get("cached")), len(answers))
    return counts
