"""Aggregates of stored scores, computed in SQL (never by loading every row).

Only ``scored`` results count towards count, mean, median, pass rate, histogram and daily
means (not-scorable results and errors are excluded, as in Mastra's runEvals); outcome
counts and cost cover every result. The same SQL runs on SQLite and PostgreSQL.

A cost total is only as good as the prices behind it: litellm cannot price every model (a
local model, a fine-tune, a new one), and a result it could not price has no cost (NULL; a
result that made no judge call is stored with cost 0). So the stats also count the results
with a cost (*priced*) and without one (*unpriced*), straight from the covering indexes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlalchemy import Float, Integer, case, cast, func, literal
from sqlalchemy import select as sa_select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import GenericFunction
from sqlmodel import Session, col, select

from scorer_runtime.store.scores import ScoreFilter
from scorer_runtime.store.tables import ScoreRecord
from scorer_runtime.types import OUTCOMES


class _floor_nonneg(GenericFunction[int]):
    """floor() of a non-negative number: CAST on SQLite (whose floor() is optional)."""

    type = Integer()
    inherit_cache = True
    name = "floor_nonneg"


@compiles(_floor_nonneg, "sqlite")
def _floor_sqlite(element: Any, compiler: Any, **kw: Any) -> str:
    return f"CAST({compiler.process(element.clauses, **kw)} AS INTEGER)"


@compiles(_floor_nonneg)
def _floor_default(element: Any, compiler: Any, **kw: Any) -> str:
    return f"CAST(FLOOR({compiler.process(element.clauses, **kw)}) AS INTEGER)"


class _utc_day(GenericFunction[str]):
    """The UTC calendar day of a timestamp, as ``YYYY-MM-DD`` text."""

    inherit_cache = True
    name = "utc_day"


@compiles(_utc_day, "sqlite")
def _day_sqlite(element: Any, compiler: Any, **kw: Any) -> str:
    # SQLite stores the timestamps as UTC text, so date() reads the UTC day.
    return f"date({compiler.process(element.clauses, **kw)})"


@compiles(_utc_day)
def _day_default(element: Any, compiler: Any, **kw: Any) -> str:
    arg = compiler.process(element.clauses, **kw)
    return f"to_char(({arg}) AT TIME ZONE 'UTC', 'YYYY-MM-DD')"


@dataclass(frozen=True, slots=True)
class ScoreStats:
    """Summary numbers of the scores a filter covers."""

    count: int
    """Scored results (the ones with a score)."""
    mean: float | None
    median: float | None
    min: float | None
    max: float | None
    pass_rate: float | None
    """Share of scored results with score >= threshold (None without a threshold)."""
    threshold: float | None
    outcome_counts: dict[str, int] = field(default_factory=dict)
    total: int = 0
    """All results, whatever their outcome."""
    cost: float = 0.0
    """The sum of the known costs (an unpriced result adds nothing: see ``unpriced``)."""
    priced: int = 0
    """Results with a positive cost (litellm knew the model's price)."""
    unpriced: int = 0
    """Results that called the judge without a known price: ``cost`` leaves them out."""


def scored_clauses(filter: ScoreFilter | None) -> list[Any]:
    """The WHERE clauses of the ``scored`` results ``filter`` covers (the ones with a score)."""
    return [*(filter or ScoreFilter()).clauses(), col(ScoreRecord.outcome) == "scored"]


def _per_outcome() -> list[Any]:
    # One filtered count per known outcome, instead of GROUP BY outcome: the covering
    # indexes are ordered by time, so grouping would sort every row; FILTER is the cheapest
    # conditional count on SQLite. add_scores admits no other outcome (_outcome_counts checks).
    outcome = col(ScoreRecord.outcome)
    return [func.count().filter(outcome == name) for name in OUTCOMES]


def _outcome_counts(session: Session, filter: ScoreFilter | None, known: Any) -> dict[str, int]:
    """Counts by outcome from a row of ``count(*), _per_outcome()...``; rows with an outcome
    outside OUTCOMES (written by hand, not by add_scores) are grouped in a second query."""
    total, *counts = known
    out: dict[str, int] = {name: int(n) for name, n in zip(OUTCOMES, counts, strict=True) if n}
    if sum(out.values()) == int(total or 0):
        return out
    outcome = col(ScoreRecord.outcome)
    query = select(outcome, func.count()).where(*(filter or ScoreFilter()).clauses())
    return {str(o): int(n) for o, n in session.exec(query.group_by(outcome)).all()}


def priced_unpriced_columns() -> list[Any]:
    """Two count columns, priced then unpriced results, for a query's select list: the same
    scan as the other aggregates (or a query of one's own, such as counts per run).

    A stored cost is NULL exactly when the judge was called and its price is unknown (a
    result that made no judge call is stored with cost 0): so *unpriced* is a NULL cost and
    *priced* a positive one, both read from the covering indexes alone. A zero cost (no judge
    call, or a model priced at nothing) is neither.
    """
    cost = col(ScoreRecord.cost)
    return [func.count().filter(cost > 0), func.count().filter(cost.is_(None))]


@dataclass(frozen=True, slots=True)
class CostTotal:
    """The known cost of some results, and how much of it is known."""

    cost: float
    """The sum of the known costs."""
    priced: int
    """Results with a positive cost."""
    unpriced: int
    """Results that called the judge without a known price (left out of ``cost``)."""


def cost_total(session: Session, *, filter: ScoreFilter | None = None) -> CostTotal:
    """The known cost of the results ``filter`` covers, with their priced and unpriced counts
    (what :func:`score_stats` says of cost, without the other numbers)."""
    known = func.coalesce(func.sum(ScoreRecord.cost), 0.0)
    query = sa_select(known, *priced_unpriced_columns()).where(*(filter or ScoreFilter()).clauses())
    cost, priced, unpriced = session.execute(query).one()
    return CostTotal(float(cost or 0.0), int(priced or 0), int(unpriced or 0))


def outcome_counts(session: Session, *, filter: ScoreFilter | None = None) -> dict[str, int]:
    """How many results of each outcome."""
    query = sa_select(func.count(), *_per_outcome()).where(*(filter or ScoreFilter()).clauses())
    return _outcome_counts(session, filter, session.execute(query).one())


def median_score(
    session: Session, *, filter: ScoreFilter | None = None, count: int | None = None
) -> float | None:
    """The median score, by ORDER BY ... LIMIT/OFFSET (no full load; works on every database)."""
    n = count if count is not None else _count_scored(session, filter)
    if n == 0:
        return None
    score = col(ScoreRecord.score)
    query = (
        select(score)
        .where(*scored_clauses(filter))
        .order_by(score)
        .offset((n - 1) // 2)
        .limit(2 - n % 2)
    )
    middle = [float(v) for v in session.exec(query).all() if v is not None]
    return sum(middle) / len(middle)


def _count_scored(session: Session, filter: ScoreFilter | None) -> int:
    return int(session.exec(select(func.count()).where(*scored_clauses(filter))).one())


def pass_count(session: Session, *, filter: ScoreFilter, threshold: float) -> int:
    """Scored results with a score at or above ``threshold`` (the pass rate's numerator)."""
    query = select(func.count()).where(*scored_clauses(filter), col(ScoreRecord.score) >= threshold)
    return int(session.exec(query).one())


def score_spread(session: Session, *, filter: ScoreFilter) -> float | None:
    """The standard deviation of the scores, from SQL sums (None with no score)."""
    score = col(ScoreRecord.score)
    n, total, squares = session.exec(
        select(func.count(score), func.sum(score), func.sum(score * score)).where(
            *scored_clauses(filter)
        )
    ).one()
    if not n:
        return None
    mean = float(total or 0.0) / int(n)
    # Clamped: rounding can make the variance of equal scores a tiny negative number.
    return float(max(float(squares or 0.0) / int(n) - mean * mean, 0.0) ** 0.5)


def score_stats(
    session: Session, *, filter: ScoreFilter | None = None, threshold: float | None = None
) -> ScoreStats:
    """Count, mean, median, min, max, pass rate at ``threshold``, outcome counts, cost, and
    how many results have a known cost (``priced``) or not (``unpriced``).

    One scan gives everything but the median (only ``scored`` rows have a score, which
    ``add_scores`` enforces), then the median is read at its offset.
    """
    score = col(ScoreRecord.score)
    passed_column: Any = (
        func.count().filter(score >= threshold) if threshold is not None else literal(0)
    )
    # sqlalchemy's select: sqlmodel's is typed for at most four columns.
    query = sa_select(
        func.coalesce(func.sum(ScoreRecord.cost), 0.0),
        func.count(score),
        func.sum(score),
        func.min(score),
        func.max(score),
        passed_column,
        *priced_unpriced_columns(),
        func.count(),
        *_per_outcome(),
    ).where(*(filter or ScoreFilter()).clauses())
    row = session.execute(query).one()
    cost, count, total_score, low, high, passed, priced, unpriced, *known = row
    count = int(count)
    counts = _outcome_counts(session, filter, known)
    return ScoreStats(
        count=count,
        mean=float(total_score) / count if count else None,
        median=median_score(session, filter=filter, count=count),
        min=float(low) if count else None,
        max=float(high) if count else None,
        pass_rate=int(passed or 0) / count if count and threshold is not None else None,
        threshold=threshold,
        outcome_counts=counts,
        total=sum(counts.values()),
        cost=float(cost or 0.0),
        priced=int(priced or 0),
        unpriced=int(unpriced or 0),
    )


@dataclass(frozen=True, slots=True)
class HistogramBin:
    """Scores in ``[lo, hi)`` (the last bin also holds ``hi``)."""

    lo: float
    hi: float
    count: int


def score_histogram(
    session: Session,
    *,
    filter: ScoreFilter | None = None,
    bins: int = 10,
    lo: float | None = None,
    hi: float | None = None,
) -> list[HistogramBin]:
    """Equal-width bins from ``lo`` to ``hi`` (default: the smallest and largest score)."""
    if bins < 1:
        raise ValueError("a histogram needs at least one bin")
    score = col(ScoreRecord.score)
    if lo is None or hi is None:
        low, high = session.exec(
            select(func.min(score), func.max(score)).where(*scored_clauses(filter))
        ).one()
        if low is None:
            return []
        lo = float(low) if lo is None else lo
        hi = float(high or 0.0) if hi is None else hi
    if hi < lo:
        raise ValueError(f"the histogram range is empty: lo {lo} is above hi {hi}")
    width = hi - lo
    if width == 0:
        bucket: Any = cast(0, Integer)
    else:
        scaled = (score - lo) * cast(bins, Float) / width
        bucket = case((score >= hi, bins - 1), else_=_floor_nonneg(scaled))
    query = (
        select(bucket, func.count())
        .where(*scored_clauses(filter), score >= lo, score <= hi)
        .group_by(bucket)
    )
    counts = {int(b): int(n) for b, n in session.exec(query).all()}
    step = width / bins
    return [HistogramBin(lo + i * step, lo + (i + 1) * step, counts.get(i, 0)) for i in range(bins)]


@dataclass(frozen=True, slots=True)
class DailyMean:
    """The mean score of one UTC day."""

    day: date
    count: int
    mean: float


def mean_per_day(session: Session, *, filter: ScoreFilter | None = None) -> list[DailyMean]:
    """Mean score per UTC day, oldest first (days without scores are left out)."""
    day = _utc_day(col(ScoreRecord.created_at))
    score = col(ScoreRecord.score)
    query = (
        select(day, func.count(score), func.avg(score))
        .where(*scored_clauses(filter))
        .group_by(day)
        .order_by(day)
    )
    return [
        DailyMean(date.fromisoformat(str(d)), int(n), float(m))
        for d, n, m in session.exec(query).all()
    ]
