"""95 % intervals that never claim more than the data holds.

- **Proportions** (the share of the same verdict, pass rates, flip rates): Wilson's score
  interval (Wilson 1927, "Probable inference, the law of succession, and statistical
  inference", JASA 22:209-212). 30 agreements of 30 give 0.886 to 1, not 1 to 1.
- **Kappa** (Cohen's and quadratic-weighted): a Bayesian bootstrap over the confusion table
  (Rubin 1981, "The Bayesian bootstrap", Annals of Statistics 9:130-134). The cell
  probabilities are drawn from their Dirichlet posterior, Dirichlet(counts + a), with Perks'
  prior a = 1 / cells in every cell (total prior mass 1 example, whatever the number of
  labels; Perks 1947, recommended for the multinomial by Berger, Bernardo and Sun 2015,
  "Overall objective priors", Bayesian Analysis 10:189-221). Each draw's kappa is measured at
  once with numpy; the interval is the 2.5th to 97.5th percentile of the draws. An empty
  cell still gets a little probability, so with zero disagreements the lower end is below 1.
  Seeded: the same data always gives the same interval.
- **Spearman's rank correlation**: Fisher's z transform with Bonett and Wright's standard
  error, sqrt((1 + r²/2) / (n - 3)) (Bonett & Wright 2000, "Sample size requirements for
  estimating Pearson, Kendall and Spearman correlations", Psychometrika 65:23-28); it needs
  n ≥ 4. A perfectly monotone sample (|r| = 1) has an infinite z: the interval is then
  computed at |r| = (n - 1) / n and reaches out to the observed 1 (or -1): this project's
  convention, so it keeps a width that shrinks as n grows instead of collapsing to 1 to 1.
- **A difference of two proportions** (a pass rate now against a baseline window): Newcombe's
  hybrid score interval, his method 10, built from the two Wilson intervals (Newcombe 1998,
  "Interval estimation for the difference between independent proportions: comparison of
  eleven methods", Statistics in Medicine 17:873-890). 0 of 10 against 0 of 10 gives -0.28 to
  0.28, never 0 to 0.
- **A difference of two means** (a mean score now against a baseline window): Welch's t
  interval, with the Welch-Satterthwaite degrees of freedom (Welch 1947, "The generalization
  of 'Student's' problem when several different population variances are involved",
  Biometrika 34:28-35); it needs two scores in each window.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.stats import t as student_t

Z95 = 1.959963984540054
"""The standard normal's 97.5th percentile (two-sided 95 %)."""
DRAWS = 50_000
"""Dirichlet draws of the confusion table for kappa's interval: the Monte Carlo error of its
ends is about 0.003 at n = 10 (less with more examples); 0.2 s for 5 labels."""


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval of ``successes / n`` (``n`` ≥ 1), without continuity correction."""
    if n < 1:
        raise ValueError("Wilson's interval needs at least one trial.")
    share = successes / n
    denominator = 1.0 + z * z / n
    centre = (share + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    return low, 1.0 if successes == n else min(1.0, centre + half)


def dirichlet_tables(table: NDArray[Any], *, draws: int = DRAWS, seed: int) -> NDArray[np.float64]:
    """``draws`` tables of cell probabilities from Dirichlet(counts + 1 / cells), seeded."""
    counts = np.asarray(table, dtype=np.float64)
    alpha = counts + 1.0 / counts.size
    rng = np.random.default_rng(seed)
    gammas = rng.standard_gamma(alpha.ravel(), size=(draws, counts.size))
    shares = gammas / gammas.sum(axis=1, keepdims=True)
    return np.asarray(shares.reshape(draws, *counts.shape), dtype=np.float64)


def percentile_interval(values: NDArray[np.float64]) -> tuple[float | None, float | None]:
    """The 2.5th and 97.5th percentiles of the finite values (``None`` when there are none)."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return None, None
    low, high = np.percentile(finite, [2.5, 97.5])
    return float(low), float(high)


def fisher_interval(r: float, n: int, z: float = Z95) -> tuple[float | None, float | None]:
    """Spearman's ``r`` on ``n`` pairs: Fisher's z with Bonett and Wright's standard error.

    ``None`` for fewer than 4 pairs (the standard error needs n - 3 > 0). At |r| = 1 the
    lower end is that of |r| = (n - 1) / n, the upper 1 (see the module's notes).
    """
    if n < 4 or not math.isfinite(r):
        return None, None
    used = math.copysign((n - 1) / n, r) if abs(r) >= 1.0 else r
    error = math.sqrt((1 + used * used / 2) / (n - 3))
    centre = math.atanh(used)
    low, high = math.tanh(centre - z * error), math.tanh(centre + z * error)
    if r >= 1.0:
        return low, 1.0
    if r <= -1.0:
        return -1.0, high
    return low, high


def newcombe(
    successes_a: int, n_a: int, successes_b: int, n_b: int, z: float = Z95
) -> tuple[float, float]:
    """Newcombe's hybrid score interval of ``successes_a / n_a - successes_b / n_b``."""
    share_a, share_b = successes_a / n_a, successes_b / n_b
    low_a, high_a = wilson(successes_a, n_a, z)
    low_b, high_b = wilson(successes_b, n_b, z)
    difference = share_a - share_b
    below = math.sqrt((share_a - low_a) ** 2 + (high_b - share_b) ** 2)
    above = math.sqrt((high_a - share_a) ** 2 + (share_b - low_b) ** 2)
    return max(-1.0, difference - below), min(1.0, difference + above)


def welch(a: NDArray[np.float64], b: NDArray[np.float64]) -> tuple[float, float] | None:
    """Welch's 95 % t interval of ``mean(a) - mean(b)``; ``None`` with fewer than two values
    in either. Two windows whose scores are all alike (no spread) give the difference itself."""
    if a.size < 2 or b.size < 2:
        return None
    difference = float(a.mean() - b.mean())
    share_a, share_b = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    error = math.sqrt(share_a + share_b)
    if error == 0.0:
        return difference, difference
    freedom = error**4 / (share_a**2 / (a.size - 1) + share_b**2 / (b.size - 1))
    half = float(student_t.ppf(0.975, freedom)) * error
    return difference - half, difference + half
