"""Two runs side by side, in SQL: per-example deltas, summary deltas, and what to compare.

The two runs' scores are joined by example in the database; verdicts (pass / fail at a
threshold, or the outcome when there is no score), the change between them, the score delta
and the ordering — changed verdicts first, then the largest score changes — are SQL
expressions, so a page of 50 rows or a summary costs a few queries however large the runs.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import and_, case, func, select
from sqlalchemy.sql import ColumnElement, Select
from sqlmodel import Session, col
from sqlmodel import select as sm_select

from scorer_runtime.store.aggregates import ScoreStats, score_stats
from scorer_runtime.store.info import info_of
from scorer_runtime.store.runs import RunInfo, people_runs
from scorer_runtime.store.scores import ScoreFilter
from scorer_runtime.store.tables import ExampleRecord, RunRecord, ScoreRecord
from scorer_runtime.types import Outcome, RunStatus

Change = Literal["flipped", "changed", "same"]
"""``flipped``: pass became fail or back; ``changed``: any other verdict change (an error, a
not-scorable answer, a missing result); ``same``: the verdict held."""

MISSING = "missing"
"""The verdict of an example that has no result in one of the runs."""
_VERDICTS = ("pass", "fail")
_SCORES = ScoreRecord.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class RunPair:
    """The two runs compared: ``before`` (A, the baseline) and ``after`` (B)."""

    before: int
    after: int


@dataclass(frozen=True, slots=True)
class SideScore:
    """One run's result for an example (``score_id`` None when the run has none)."""

    score_id: int | None
    outcome: Outcome | None
    score: float | None
    verdict: str


@dataclass(frozen=True, slots=True)
class CompareRow:
    """One example in both runs: each side, the score delta (after - before) and the change."""

    example_id: int
    before: SideScore
    after: SideScore
    delta: float | None
    change: Change


class _Sides:
    """The SQL of a comparison: the union of both runs' examples, each side left-joined."""

    def __init__(self, pair: RunPair, threshold: float) -> None:
        t = _SCORES
        ids = (
            select(t.c.example_id)
            .where(t.c.run_id.in_((pair.before, pair.after)), t.c.example_id.is_not(None))
            .group_by(t.c.example_id)
            .subquery("ex")
        )
        self.a, self.b = t.alias("a"), t.alias("b")
        self.example_id = ids.c.example_id
        self.joined = ids.outerjoin(
            self.a, and_(self.a.c.example_id == ids.c.example_id, self.a.c.run_id == pair.before)
        ).outerjoin(
            self.b, and_(self.b.c.example_id == ids.c.example_id, self.b.c.run_id == pair.after)
        )
        self.va, self.vb = _verdict(self.a, threshold), _verdict(self.b, threshold)
        self.delta = self.b.c.score - self.a.c.score
        both_verdicts = and_(self.va.in_(_VERDICTS), self.vb.in_(_VERDICTS))
        self.rank = case((self.va == self.vb, 2), (both_verdicts, 0), else_=1)

    def where(self, only_changed: bool) -> list[ColumnElement[bool]]:
        return [self.rank < 2] if only_changed else []

    def rows_query(self, only_changed: bool) -> Select[Any]:
        a, b = self.a.c, self.b.c
        return (
            select(*_columns(self.example_id, a, self.va, b, self.vb), self.delta, self.rank)
            .select_from(self.joined)
            .where(*self.where(only_changed))
            .order_by(
                self.rank,
                case((self.delta.is_(None), 1), else_=0),
                func.abs(self.delta).desc(),
                self.example_id,
            )
        )


def _columns(example_id: Any, a: Any, va: Any, b: Any, vb: Any) -> list[Any]:
    return [example_id, a.id, a.outcome, a.score, va, b.id, b.outcome, b.score, vb]


def _verdict(side: Any, threshold: float) -> ColumnElement[str]:
    scored = side.c.outcome == "scored"
    return case(
        (side.c.id.is_(None), MISSING),
        (and_(scored, side.c.score >= threshold), "pass"),
        (scored, "fail"),
        else_=side.c.outcome,
    )


_CHANGES: dict[int, Change] = {0: "flipped", 1: "changed", 2: "same"}


def _row(values: Any) -> CompareRow:
    example_id, a_id, a_out, a_score, va, b_id, b_out, b_score, vb, delta, rank = values
    return CompareRow(
        example_id=int(example_id),
        before=SideScore(a_id, a_out, a_score, str(va)),
        after=SideScore(b_id, b_out, b_score, str(vb)),
        delta=None if delta is None else float(delta),
        change=_CHANGES[int(rank)],
    )


def compare_rows(
    session: Session,
    *,
    pair: RunPair,
    threshold: float,
    offset: int = 0,
    limit: int = 50,
    only_changed: bool = False,
) -> list[CompareRow]:
    """A page of the comparison: flipped verdicts first, then other changed verdicts, then
    the rest; within each, the largest score change first (ties by example id)."""
    query = _Sides(pair, threshold).rows_query(only_changed).offset(offset).limit(limit)
    return [_row(values) for values in session.execute(query).all()]


def count_rows(
    session: Session, *, pair: RunPair, threshold: float, only_changed: bool = False
) -> int:
    """How many examples the comparison lists (for "page 2 of 7")."""
    sides = _Sides(pair, threshold)
    query = select(func.count()).select_from(sides.joined).where(*sides.where(only_changed))
    return int(session.execute(query).scalar_one())


def iter_comparison(
    session: Session, *, pair: RunPair, threshold: float, cap: int | None = None
) -> Iterator[CompareRow]:
    """Every row of the comparison in page order (at most ``cap``; None: no cap), streamed
    from one cursor in chunks, so a download never holds the whole comparison."""
    query = _Sides(pair, threshold).rows_query(False).limit(cap)
    result = session.execute(query.execution_options(yield_per=1000))
    for values in result:
        yield _row(values)


@dataclass(frozen=True, slots=True)
class CompareSummary:
    """What changed between two runs, in numbers."""

    before: ScoreStats
    after: ScoreStats
    threshold: float
    examples: int
    """Examples with a result in either run."""
    transitions: dict[tuple[str, str], int] = field(default_factory=dict)
    """(verdict before, verdict after) -> examples; only pairs that occur."""
    paired: int = 0
    """Examples scored in both runs."""
    paired_mean_delta: float | None = None
    """Mean of (after - before) over the examples scored in both runs."""

    @property
    def flipped(self) -> int:
        """Examples whose pass/fail verdict flipped."""
        return self.fail_to_pass + self.pass_to_fail

    @property
    def pass_to_fail(self) -> int:
        """Examples that passed before and fail after."""
        return self.transitions.get(("pass", "fail"), 0)

    @property
    def fail_to_pass(self) -> int:
        """Examples that failed before and pass after."""
        return self.transitions.get(("fail", "pass"), 0)

    @property
    def changed(self) -> int:
        """Examples whose verdict changed in any way (flips included)."""
        return sum(n for (a, b), n in self.transitions.items() if a != b)

    @property
    def mean_delta(self) -> float | None:
        """After's mean minus before's (over each run's own scored examples)."""
        if self.before.mean is None or self.after.mean is None:
            return None
        return self.after.mean - self.before.mean

    @property
    def pass_rate_delta(self) -> float | None:
        """After's pass rate minus before's (None when either has no scored result)."""
        if self.before.pass_rate is None or self.after.pass_rate is None:
            return None
        return self.after.pass_rate - self.before.pass_rate


def compare_summary(session: Session, *, pair: RunPair, threshold: float) -> CompareSummary:
    """Summary deltas: each run's numbers, verdict transitions and the paired mean change."""
    sides = _Sides(pair, threshold)
    # One pass over the join: the delta is only non-null where both runs have a score.
    groups = session.execute(
        select(sides.va, sides.vb, func.count(), func.count(sides.delta), func.sum(sides.delta))
        .select_from(sides.joined)
        .group_by(sides.va, sides.vb)
    ).all()
    transitions = {(str(va), str(vb)): int(n) for va, vb, n, _, _ in groups}
    paired = sum(int(m) for *_, m, _ in groups)
    total_delta = math.fsum(float(d) for *_, d in groups if d is not None)
    return CompareSummary(
        before=score_stats(session, filter=ScoreFilter(run_id=pair.before), threshold=threshold),
        after=score_stats(session, filter=ScoreFilter(run_id=pair.after), threshold=threshold),
        threshold=threshold,
        examples=sum(transitions.values()),
        transitions=transitions,
        paired=paired,
        paired_mean_delta=total_delta / paired if paired else None,
    )


# -- choosing what to compare ----------------------------------------------------------------


def latest_run(session: Session, *, version_id: int, dataset_id: int) -> RunInfo | None:
    """The newest finished run of a version on a dataset; else its newest run of any status
    (never a stability check's repeat, which scored a sample only)."""
    query = sm_select(RunRecord).where(
        RunRecord.scorer_version_id == version_id,
        RunRecord.dataset_id == dataset_id,
        people_runs(),
    )
    newest = col(RunRecord.id).desc()
    done = session.exec(query.where(RunRecord.status == "done").order_by(newest).limit(1)).first()
    found = done or session.exec(query.order_by(newest).limit(1)).first()
    return info_of(RunInfo, found) if found is not None else None


def default_pair(session: Session, *, look_back: int = 50) -> RunPair | None:
    """What to compare first: the newest run that has an earlier run on its dataset, against
    that earlier run (the same scorer preferred) — usually "this week against last week"."""
    own = people_runs()  # a trust check's run belongs to its check
    recent = session.exec(
        sm_select(RunRecord).where(own).order_by(col(RunRecord.id).desc()).limit(look_back)
    ).all()
    for newest in recent:
        earlier = sm_select(RunRecord).where(
            own, RunRecord.dataset_id == newest.dataset_id, col(RunRecord.id) < newest.id
        )
        same_scorer = col(RunRecord.scorer_id) == newest.scorer_id
        order = (case((same_scorer, 0), else_=1), col(RunRecord.id).desc())
        before = session.exec(earlier.order_by(*order).limit(1)).first()
        if before is not None and before.id is not None and newest.id is not None:
            return RunPair(before=before.id, after=newest.id)
    return None


@dataclass(frozen=True, slots=True)
class RunFacts:
    """What a comparison says about one of its runs (plain values, safe to cache)."""

    id: int
    scorer_id: int
    scorer_version_id: int
    dataset_id: int
    status: RunStatus
    created_at: datetime


def run_facts(session: Session, *, run_id: int) -> RunFacts | None:
    """A run's facts, or None when no such run exists (any more)."""
    run = session.get(RunRecord, run_id)
    if run is None or run.id is None:
        return None
    return RunFacts(
        run.id, run.scorer_id, run.scorer_version_id, run.dataset_id, run.status, run.created_at
    )


def example_numbers(session: Session, *, ids: Sequence[int]) -> dict[int, int]:
    """Each example's number in its dataset, as the Examples page numbers it (1, 2, 3… in the
    order they were added), in one query; unknown ids are left out."""
    if not ids:
        return {}
    mine, other = ExampleRecord.__table__.alias("mine"), ExampleRecord.__table__.alias("other")  # type: ignore[attr-defined]
    query = (
        select(mine.c.id, func.count(other.c.id))
        .join(other, and_(other.c.dataset_id == mine.c.dataset_id, other.c.id <= mine.c.id))
        .where(mine.c.id.in_(ids))
        .group_by(mine.c.id)
    )
    return {int(i): int(n) for i, n in session.execute(query).all()}


def example_inputs(session: Session, *, ids: Sequence[int]) -> dict[int, Any]:
    """The stored input of each of these examples (one query; unknown ids are left out), for
    previews next to a page of the comparison."""
    if not ids:
        return {}
    query = sm_select(ExampleRecord.id, ExampleRecord.input).where(col(ExampleRecord.id).in_(ids))
    return {int(i): value for i, value in session.exec(query).all() if i}
