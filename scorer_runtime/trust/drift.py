"""Drift of live scores: each window's mean score (or pass rate) against the window before it,
with a 95 % interval on the difference, and whether the change is an alert.

A window is a UTC hour or a UTC day. A window is compared with the one just before it (its
baseline): a drop that lasts alerts once, in the window where it began, and the windows
after it are compared with the lower level. It is an **alert** when both hold:

- the interval of (this window - the baseline) lies wholly below zero: chance alone would
  rarely give a drop this large (Welch's t for means, Newcombe's hybrid score interval for
  pass rates; both in :mod:`scorer_runtime.trust.intervals`);
- the drop itself is at least the threshold the person set (a tiny drop that many scores make
  certain is not worth a message).

Windows with fewer than ``min_scores`` scores (either side) are read, never alerted on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

import numpy as np

from scorer_runtime.trust.intervals import newcombe, welch

Period = Literal["hour", "day"]
Measure = Literal["mean", "pass_rate"]
MIN_SCORES = 10
"""Scores each window needs, current and baseline, before a change in it can be an alert."""
_LENGTH: dict[Period, timedelta] = {"hour": timedelta(hours=1), "day": timedelta(days=1)}
PERIODS: tuple[Period, ...] = ("hour", "day")
MEASURES: tuple[Measure, ...] = ("mean", "pass_rate")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class AlertSettings:
    """What a scoring rule's drift alerts watch: each ``period`` against the one before, on
    the ``measure``, alerting on a drop of at least ``drop``; messages POSTed to the webhook
    whose address is in the environment variable ``webhook_env`` (None: shown, not sent)."""

    period: Period
    measure: Measure
    drop: float
    webhook_env: str | None = None


def alert_settings(
    period: str, measure: str, drop: float, webhook_env: str | None = None
) -> AlertSettings:
    """Checked :class:`AlertSettings`; ValueError in words for a value that cannot be."""
    if period not in PERIODS:
        raise ValueError(f"alerts compare an hour or a day with the one before, not {period!r}")
    if measure not in MEASURES:
        raise ValueError(
            f"alerts watch the mean score or the pass rate (mean or pass_rate), not {measure!r}"
        )
    if not drop > 0 or (measure == "pass_rate" and drop > 1):
        most = " and at most 1 (0.1: ten points of pass rate)" if measure == "pass_rate" else ""
        raise ValueError(f"the smallest drop worth an alert must be above 0{most}")
    env = (webhook_env or "").strip() or None
    if env is not None and not _ENV_NAME.fullmatch(env):
        raise ValueError(
            f"{env!r} is not the name of an environment variable: give the name of the one "
            "holding the webhook's address, such as SCORER_STUDIO_ALERT_WEBHOOK (the address "
            "itself is a secret and is never stored)"
        )
    return AlertSettings(period, measure, float(drop), env)


@dataclass(frozen=True, slots=True)
class ScorePoint:
    """One stored score of live traffic: when it was scored and its value."""

    at: datetime
    score: float


@dataclass(frozen=True, slots=True)
class DriftReading:
    """One window against the window before it."""

    window: datetime
    """When the window began (UTC)."""
    n: int
    value: float
    """The window's mean score or pass rate."""
    baseline_n: int
    baseline_value: float
    difference: float
    """``value - baseline_value``: negative for a drop."""
    ci_low: float | None
    ci_high: float | None
    alert: bool
    words: str


def window_start(at: datetime, period: Period) -> datetime:
    """The start of the UTC hour or day ``at`` falls in (a naive time is read as UTC)."""
    at = at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)
    if period == "hour":
        return at.replace(minute=0, second=0, microsecond=0)
    return at.replace(hour=0, minute=0, second=0, microsecond=0)


def by_window(points: Iterable[ScorePoint], period: Period) -> dict[datetime, list[float]]:
    """The scores of each window that holds any, oldest window first."""
    windows: dict[datetime, list[float]] = {}
    for point in points:
        windows.setdefault(window_start(point.at, period), []).append(point.score)
    return dict(sorted(windows.items()))


def drift_readings(
    points: Iterable[ScorePoint],
    *,
    period: Period,
    measure: Measure,
    drop_threshold: float,
    pass_mark: float = 0.5,
    min_scores: int = MIN_SCORES,
) -> list[DriftReading]:
    """Each window that has a window just before it, read against that one, oldest first."""
    windows = by_window(points, period)
    readings = []
    for start, scores in windows.items():
        before = windows.get(start - _LENGTH[period])
        if before is not None:
            readings.append(
                compare_windows(
                    start,
                    scores,
                    before,
                    period=period,
                    measure=measure,
                    drop_threshold=drop_threshold,
                    pass_mark=pass_mark,
                    min_scores=min_scores,
                )
            )
    return readings


def compare_windows(
    start: datetime,
    scores: Sequence[float],
    baseline: Sequence[float],
    *,
    period: Period,
    measure: Measure,
    drop_threshold: float,
    pass_mark: float = 0.5,
    min_scores: int = MIN_SCORES,
) -> DriftReading:
    """One window's scores against its baseline's: the difference, its interval, the alert."""
    now, then = np.asarray(scores, dtype=np.float64), np.asarray(baseline, dtype=np.float64)
    if measure == "pass_rate":
        passed_now, passed_then = int((now >= pass_mark).sum()), int((then >= pass_mark).sum())
        value, base = passed_now / now.size, passed_then / then.size
        interval: tuple[float, float] | None = newcombe(
            passed_now, now.size, passed_then, then.size
        )
    else:
        value, base = float(now.mean()), float(then.mean())
        interval = welch(now, then)
    difference = value - base
    low, high = interval if interval is not None else (None, None)
    enough = now.size >= min_scores and then.size >= min_scores
    alert = enough and high is not None and high < 0 and -difference >= drop_threshold
    words = _words(
        period, measure, value, base, now.size, then.size, low, high, alert, enough, min_scores
    )
    return DriftReading(
        start, now.size, value, then.size, base, difference, low, high, alert, words
    )


def _words(
    period: Period,
    measure: Measure,
    value: float,
    base: float,
    n: int,
    baseline_n: int,
    low: float | None,
    high: float | None,
    alert: bool,
    enough: bool,
    min_scores: int,
) -> str:
    """The reading in a sentence a product manager reads."""
    what = "Pass rate" if measure == "pass_rate" else "Mean score"
    method = "Newcombe's interval" if measure == "pass_rate" else "Welch's t interval"
    before, now = _shown(base, measure), _shown(value, measure)
    change = f"{what} {before} the {period} before ({baseline_n} scores), {now} "
    change += f"this {period} ({n} scores)"
    if not enough:
        return f"{change}: too few scores to tell a real change (at least {min_scores} each)."
    if low is None or high is None:
        return f"{change}."
    span = f"95 % interval of the change {low:+.2f} to {high:+.2f} ({method})"
    if alert:
        return f"{change}: a drop chance alone would rarely give; {span}."
    if high < 0:
        return f"{change}: a real drop, but smaller than the alert threshold; {span}."
    return f"{change}: no drop beyond chance; {span}."


def _shown(value: float, measure: Measure) -> str:
    return f"{value:.0%}" if measure == "pass_rate" else f"{value:.2f}"
