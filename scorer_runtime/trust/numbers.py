"""Agreement on a number scale: Spearman's rank correlation and the mean absolute error.

Spearman's point estimate is scipy's ``spearmanr``; its 95 % interval is Fisher's z with
Bonett and Wright's standard error (see :func:`scorer_runtime.trust.intervals.fisher_interval`,
with the treatment of a perfectly monotone sample), so 30 perfectly ordered pairs do not read
"1.00 to 1.00". It needs at least 4 examples.

The mean absolute error's interval is a percentile bootstrap (the examples resampled with
replacement, 1,000 seeded resamples measured at once with numpy). When every pair matches
exactly the bootstrap can only draw 0: the upper end is then Wilson's upper bound for the share
of examples that could differ, times the width of the scale (an example that differs is at
most that far off), so the interval never reads "0 to 0".
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from scorer_runtime.trust.agreement import Estimate
from scorer_runtime.trust.intervals import fisher_interval, percentile_interval, wilson
from scorer_runtime.trust.scale import Scale

MAE_RESAMPLES = 1000
CHUNK = 100
"""Resamples measured together (bounds the memory: CHUNK × n numbers per array)."""


def number_agreement(
    human: NDArray[np.float64], judge: NDArray[np.float64], scale: Scale, *, seed: int
) -> tuple[Estimate, Estimate, list[str]]:
    """Spearman's rank correlation and the mean absolute error of people's and the judge's
    scores, each with its interval, and why Spearman is missing when it is."""
    from scipy.stats import spearmanr

    error = mean_absolute_error(human, judge, scale, seed=seed)
    for who, scores in (("People", human), ("The judge", judge)):
        if np.all(scores == scores[0]):
            words = (
                f"{who} gave every example the same score ({scores[0]:g}), so the rank "
                "correlation (Spearman) cannot be measured."
            )
            return Estimate(None), error, [words]
    point = float(spearmanr(human, judge).statistic)
    low, high = fisher_interval(point, int(human.size))
    missing: list[str] = []
    if low is None:
        missing.append(
            "The interval of the rank correlation (Spearman) needs at least 4 examples: "
            "grade more examples on the Review page."
        )
    return Estimate(point, low, high), error, missing


def mean_absolute_error(
    human: NDArray[np.float64], judge: NDArray[np.float64], scale: Scale, *, seed: int
) -> Estimate:
    """The mean distance between people's and the judge's scores, with its 95 % interval."""
    gaps = np.abs(human - judge)
    point = float(np.mean(gaps))
    if not np.any(gaps > 0):
        return Estimate(point, 0.0, wilson(0, int(gaps.size))[1] * (scale.high - scale.low))
    return Estimate(point, *percentile_interval(_resampled_means(gaps, seed=seed)))


def _resampled_means(gaps: NDArray[np.float64], *, seed: int) -> NDArray[np.float64]:
    """The mean of each bootstrap resample of ``gaps``."""
    rng = np.random.default_rng(seed)
    means: list[NDArray[np.float64]] = []
    for start in range(0, MAE_RESAMPLES, CHUNK):
        size = min(CHUNK, MAE_RESAMPLES - start)
        picked = rng.integers(0, gaps.size, size=(size, gaps.size))
        means.append(gaps[picked].mean(axis=1))
    return np.concatenate(means)
