"""Drift of live scores: the intervals on a window's change are checked against independent
references (Newcombe's own published table, scipy's Wilson intervals combined here, scipy's
Welch t-test), and an alert fires once on a planted drop and never on a steady stream."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from scipy.stats import binomtest, ttest_ind

from scorer_runtime.trust.drift import ScorePoint, compare_windows, drift_readings, window_start
from scorer_runtime.trust.intervals import newcombe, welch

START = datetime(2026, 12, 1, tzinfo=UTC)

# Newcombe (1998), Table II, method 10: the published 95 % limits of eight examples.
NEWCOMBE_TABLE = [
    ((56, 70, 48, 80), (0.0524, 0.3339)),
    ((9, 10, 3, 10), (0.1705, 0.8090)),
    ((6, 7, 2, 7), (0.0582, 0.8062)),
    ((5, 56, 0, 29), (-0.0381, 0.1926)),
    ((0, 10, 0, 20), (-0.1611, 0.2775)),
    ((0, 10, 0, 10), (-0.2775, 0.2775)),
    ((10, 10, 0, 20), (0.6791, 1.0000)),
    ((10, 10, 0, 10), (0.6075, 1.0000)),
]


@pytest.mark.parametrize(("counts", "published"), NEWCOMBE_TABLE)
def test_newcombes_interval_matches_his_published_table(counts, published):
    low, high = newcombe(*counts)
    assert low == pytest.approx(published[0], abs=5e-5)
    assert high == pytest.approx(published[1], abs=5e-5)


@pytest.mark.parametrize(
    "counts", [(0, 30, 30, 30), (30, 30, 30, 30), (0, 1, 1, 1), (17, 40, 31, 45), (3, 12, 0, 9)]
)
def test_newcombes_interval_is_scipys_wilson_intervals_combined(counts):
    a, n_a, b, n_b = counts
    ci_a = binomtest(a, n_a).proportion_ci(method="wilson")
    ci_b = binomtest(b, n_b).proportion_ci(method="wilson")
    p_a, p_b = a / n_a, b / n_b
    low = p_a - p_b - math.hypot(p_a - ci_a.low, ci_b.high - p_b)
    high = p_a - p_b + math.hypot(ci_a.high - p_a, p_b - ci_b.low)
    assert newcombe(*counts) == pytest.approx((max(low, -1), min(high, 1)), abs=1e-9)


def test_no_change_in_an_all_passing_stream_is_never_claimed_certain():
    low, high = newcombe(30, 30, 30, 30)
    assert low < -0.1
    assert high > 0.1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_welchs_interval_is_scipys(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(0, 1, 23), rng.uniform(0.2, 0.9, 41)
    expected = ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert welch(a, b) == pytest.approx((expected.low, expected.high), abs=1e-9)


def test_welch_needs_two_scores_a_side_and_no_spread_gives_the_difference_itself():
    assert welch(np.array([0.5]), np.array([0.1, 0.2])) is None
    assert welch(np.full(5, 0.25), np.full(7, 0.75)) == (-0.5, -0.5)


def test_windows_are_utc_hours_and_days():
    at = datetime(2026, 12, 1, 15, 42, 7, tzinfo=UTC)
    assert window_start(at, "hour") == datetime(2026, 12, 1, 15, tzinfo=UTC)
    assert window_start(at.replace(tzinfo=None), "day") == START


def _stream(levels: list[float], per_window: int, seed: int) -> list[ScorePoint]:
    """Scores of successive hours: each hour's scores drawn around its level."""
    rng = random.Random(seed)
    return [
        ScorePoint(START + timedelta(hours=h, minutes=i), min(1.0, max(0.0, rng.gauss(level, 0.1))))
        for h, level in enumerate(levels)
        for i in range(per_window)
    ]


@pytest.mark.parametrize("measure", ["mean", "pass_rate"])
def test_a_planted_drop_alerts_once_in_the_window_where_it_began(measure):
    levels = [0.8] * 6 + [0.35] * 6
    readings = drift_readings(
        _stream(levels, 40, seed=7), period="hour", measure=measure, drop_threshold=0.1
    )
    alerts = [r for r in readings if r.alert]
    assert [r.window for r in alerts] == [START + timedelta(hours=6)]
    assert alerts[0].difference < -0.1
    assert alerts[0].ci_high is not None
    assert alerts[0].ci_high < 0
    assert "drop" in alerts[0].words


@pytest.mark.parametrize("measure", ["mean", "pass_rate"])
@pytest.mark.parametrize("seed", range(5))
def test_a_steady_stream_never_alerts(measure, seed):
    readings = drift_readings(
        _stream([0.7] * 24, 30, seed=seed), period="hour", measure=measure, drop_threshold=0.1
    )
    assert len(readings) == 23
    assert not any(r.alert for r in readings)


def test_a_real_drop_under_the_threshold_and_a_window_of_few_scores_do_not_alert():
    small = compare_windows(
        START,
        [0.7] * 500 + [0.6] * 500,
        [0.7] * 1000,
        period="day",
        measure="mean",
        drop_threshold=0.1,
    )
    assert small.ci_high is not None
    assert small.ci_high < 0
    assert not small.alert
    assert "smaller than the alert threshold" in small.words
    few = compare_windows(
        START, [0.0] * 4, [1.0] * 40, period="day", measure="pass_rate", drop_threshold=0.1
    )
    assert not few.alert
    assert "too few scores" in few.words
