"""Aggregates of stored scores, computed in SQL (never by loading every row).

Only ``scored`` results count towards count, mean, median, pass rate, histogram and daily
means (not-scorable results and errors are excluded, as in Mastra's runEvals); outcome
counts and cost cover every result. The same SQL runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
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


def _scored(filter: ScoreFilter | None) -> list[Any]:
    return [*(filter or ScoreFilter()).clauses(), col(ScoreRecord.outcome) == "scored"]


def outcome_counts(session: Session, *, filter: ScoreFilter | None = None) -> dict[str, int]:
    """How many results of each outcome."""
    outcome = col(ScoreRecord.outcome)
    query = select(outcome, func.count()).where(*(filter or ScoreFilter()).clauses())
    return {str(o): int(n) for o, n in session.exec(query.group_by(outcome)).all()}


def median_score(
    session: Session, *, filter: ScoreFilter | None = None, count: int | None = None
) -> float | None:
    """The median score, by ORDER BY ... LIMIT/OFFSET (no full load; works on every database)."""
    n = count if count is not None else _count_scored(session, filter)
    if n == 0:
        return None
    score = col(ScoreRecord.score)
    query = (
        select(score).where(*_scored(filter)).order_by(score).offset((n - 1) // 2).limit(2 - n % 2)
    )
    middle = [float(v) for v in session.exec(query).all() if v is not None]
    return sum(middle) / len(middle)


def _count_scored(session: Session, filter: ScoreFilter | None) -> int:
    return int(session.exec(select(func.count()).where(*_scored(filter))).one())


def score_stats(
    session: Session, *, filter: ScoreFilter | None = None, threshold: float | None = None
) -> ScoreStats:
    """Count, mean, median, min, max, pass rate at ``threshold``, outcome counts and cost.

    One scan grouped by outcome gives everything but the median (only ``scored`` rows have
    a score, which ``add_scores`` enforces), then the median is read at its offset.
    """
    score, outcome = col(ScoreRecord.score), col(ScoreRecord.outcome)
    passed_column: Any = (
        func.sum(case((score >= threshold, 1), else_=0)) if threshold is not None else literal(0)
    )
    # sqlalchemy's select: sqlmodel's is typed for at most four columns.
    query = (
        sa_select(
            outcome,
            func.count(),
            func.coalesce(func.sum(ScoreRecord.cost), 0.0),
            func.count(score),
            func.sum(score),
            func.min(score),
            func.max(score),
            passed_column,
        )
        .where(*(filter or ScoreFilter()).clauses())
        .group_by(outcome)
    )
    groups = session.execute(query).all()
    counts = {str(g[0]): int(g[1]) for g in groups}
    scored = [g for g in groups if g[3]]
    count = sum(int(g[3]) for g in scored)
    passed = sum(int(g[7] or 0) for g in scored)
    return ScoreStats(
        count=count,
        mean=_total(g[4] for g in scored) / count if count else None,
        median=median_score(session, filter=filter, count=count),
        min=min((float(g[5]) for g in scored), default=None),
        max=max((float(g[6]) for g in scored), default=None),
        pass_rate=passed / count if count and threshold is not None else None,
        threshold=threshold,
        outcome_counts=counts,
        total=sum(counts.values()),
        cost=_total(g[2] for g in groups),
    )


def _total(values: Iterable[float | None]) -> float:
    return float(math.fsum(v for v in values if v is not None))


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
            select(func.min(score), func.max(score)).where(*_scored(filter))
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
        .where(*_scored(filter), score >= lo, score <= hi)
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
        .where(*_scored(filter))
        .group_by(day)
        .order_by(day)
    )
    return [
        DailyMean(date.fromisoformat(str(d)), int(n), float(m))
        for d, n, m in session.exec(query).all()
    ]
