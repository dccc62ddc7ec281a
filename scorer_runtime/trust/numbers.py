"""Agreement on a number scale: Spearman's rank correlation and the mean absolute error.

Each comes with a 95 % bootstrap interval: the examples are resampled with replacement
(seeded) and every resample is measured at once with numpy. Ranks in a resample are found from
counts of each distinct score (tied scores share their mean rank), so no resample is sorted;
the point estimates are scipy's ``spearmanr`` and numpy's mean.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorer_runtime.trust.agreement import Estimate

CHUNK = 100
"""Resamples measured together (bounds the memory: CHUNK × n numbers per array)."""


def number_agreement(
    human: NDArray[np.float64], judge: NDArray[np.float64], *, resamples: int, seed: int
) -> tuple[Estimate, Estimate, list[str]]:
    """Spearman's rank correlation and the mean absolute error of people's and the judge's
    scores, each with its interval, and why Spearman is missing when it is."""
    from scipy.stats import spearmanr

    rho, mae = _resampled(human, judge, resamples=resamples, seed=seed)
    error = Estimate(float(np.mean(np.abs(human - judge))), *_percentiles(mae))
    for who, scores in (("People", human), ("The judge", judge)):
        if np.all(scores == scores[0]):
            words = (
                f"{who} gave every example the same score ({scores[0]:g}), so the rank "
                "correlation (Spearman) cannot be measured."
            )
            return Estimate(None), error, [words]
    point = float(spearmanr(human, judge).statistic)
    return Estimate(point, *_percentiles(rho)), error, []


def rank_correlation(
    x_codes: NDArray[np.int64], y_codes: NDArray[np.int64], x_size: int, y_size: int
) -> NDArray[np.float64]:
    """Spearman's correlation of each row of ``x_codes`` with the same row of ``y_codes``.

    Codes are the places of the scores among the distinct scores (``np.unique``'s inverse).
    """
    centre = (x_codes.shape[1] + 1) / 2.0  # mean ranks of n values always average (n + 1) / 2
    x = _mean_ranks(x_codes, x_size)
    y = _mean_ranks(y_codes, y_size)
    x -= centre
    y -= centre
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = (x * y).sum(axis=1) / np.sqrt((x * x).sum(axis=1) * (y * y).sum(axis=1))
    return np.asarray(rho, dtype=np.float64)


def _mean_ranks(codes: NDArray[np.int64], size: int) -> NDArray[np.float64]:
    """The rank (1-based, ties sharing their mean) of every code in each row."""
    rows = codes.shape[0]
    flat = (codes + np.arange(rows)[:, None] * size).ravel()
    counts = np.bincount(flat, minlength=rows * size).reshape(rows, size)
    mean_rank = np.cumsum(counts, axis=1) - (counts - 1) / 2.0
    return np.asarray(mean_rank.ravel()[flat].reshape(codes.shape), dtype=np.float64)


def _resampled(
    human: NDArray[np.float64], judge: NDArray[np.float64], *, resamples: int, seed: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Spearman and the mean absolute error of each bootstrap resample."""
    rng = np.random.default_rng(seed)
    x_values, x_codes = np.unique(human, return_inverse=True)
    y_values, y_codes = np.unique(judge, return_inverse=True)
    gaps = np.abs(human - judge)
    rhos: list[NDArray[np.float64]] = []
    maes: list[NDArray[np.float64]] = []
    for start in range(0, resamples, CHUNK):
        picked = rng.integers(0, human.size, size=(min(CHUNK, resamples - start), human.size))
        rhos.append(
            rank_correlation(x_codes[picked], y_codes[picked], x_values.size, y_values.size)
        )
        maes.append(gaps[picked].mean(axis=1))
    return np.concatenate(rhos), np.concatenate(maes)


def _percentiles(values: NDArray[Any]) -> tuple[float | None, float | None]:
    defined = values[np.isfinite(values)]
    if defined.size == 0:
        return None, None
    low, high = np.percentile(defined, [2.5, 97.5])
    return float(low), float(high)
