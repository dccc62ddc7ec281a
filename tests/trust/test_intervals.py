"""The intervals never claim more than the data holds, checked against independent references:
scipy's Wilson interval, a Dirichlet posterior drawn with scipy and measured with formulas
written here (cross-checked with scikit-learn's weighted kappa), and Fisher's z from scipy's
normal quantile."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest, dirichlet, norm, spearmanr
from sklearn.metrics import cohen_kappa_score

from scorer_runtime.trust import Scale
from scorer_runtime.trust.agreement import measure
from scorer_runtime.trust.intervals import fisher_interval, wilson

PASS_FAIL = Scale("pass_fail")
NUMBER = Scale("number")
FIVE = Scale("labels", tuple((str(i), 1 - i / 4) for i in range(5)))
THREE = Scale("labels", (("good", 1.0), ("fair", 0.5), ("bad", 0.0)))
REFERENCE_DRAWS = 200_000


def _pairs(table: list[list[int]], scale: Scale) -> list[tuple[float, float]]:
    """(person, judge) pairs of a confusion table, rows people, columns the judge."""
    scores = [score for _, score in scale.labels] if scale.labels else [1.0, 0.0]
    return [
        (scores[i], scores[j])
        for i, row in enumerate(table)
        for j, count in enumerate(row)
        for _ in range(count)
    ]


def _reference_kappa_interval(table: list[list[int]], quadratic: bool) -> tuple[float, float]:
    """The same method written another way: scipy's Dirichlet draws of the cell probabilities
    (prior 1 / cells per cell), kappa from agreement weights as (p_o - p_e) / (1 - p_e)."""
    counts = np.asarray(table, dtype=float)
    size = counts.shape[0]
    alpha = (counts + 1 / counts.size).ravel()
    draws = dirichlet.rvs(alpha, size=REFERENCE_DRAWS, random_state=12345)
    cells = draws.reshape(-1, size, size)
    i, j = np.indices((size, size))
    agree = 1 - (i - j) ** 2 / (size - 1) ** 2 if quadratic else (i == j).astype(float)
    rows, columns = cells.sum(axis=2), cells.sum(axis=1)
    observed = np.einsum("dij,ij->d", cells, agree)
    expected = np.einsum("di,dj,ij->d", rows, columns, agree)
    kappas = (observed - expected) / (1 - expected)
    # the formula is scikit-learn's weighted kappa of the drawn table (checked on a few draws)
    for cell in cells[:5]:
        human, judge = np.divmod(np.arange(size * size), size)
        weights = "quadratic" if quadratic else None
        found = cohen_kappa_score(human, judge, weights=weights, sample_weight=cell.ravel())
        assert found == pytest.approx(
            (np.sum(cell * agree) - cell.sum(1) @ agree @ cell.sum(0))
            / (1 - cell.sum(1) @ agree @ cell.sum(0)),
            abs=1e-9,
        )
    low, high = np.percentile(kappas, [2.5, 97.5])
    return float(low), float(high)


def test_thirty_agreements_of_thirty_leave_room_for_disagreement() -> None:
    found = measure(_pairs([[15, 0], [0, 15]], PASS_FAIL), PASS_FAIL)
    assert found.percent_agreement.value == 1.0
    assert found.percent_agreement.low is not None
    assert found.percent_agreement.low <= 0.90
    assert found.percent_agreement.high == 1.0
    assert found.kappa.value == 1.0
    assert found.kappa.low is not None
    assert found.kappa.low < 0.95
    assert "1.00 to 1.00" not in found.reading
    assert found.more_to_grade is not None


@pytest.mark.parametrize(("agreed", "n"), [(30, 30), (0, 30), (21, 30), (1, 1), (0, 1), (1, 2)])
def test_percent_agreement_is_wilsons_interval_as_scipy_computes_it(agreed: int, n: int) -> None:
    expected = binomtest(agreed, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson(agreed, n)
    assert low == pytest.approx(expected.low, abs=1e-9)
    assert high == pytest.approx(expected.high, abs=1e-9)
    pairs = [(1.0, 1.0)] * (agreed - agreed // 2) + [(0.0, 0.0)] * (agreed // 2)
    pairs += [(1.0, 0.0)] * (n - agreed)
    found = measure(pairs, PASS_FAIL).percent_agreement
    assert (found.low, found.high) == pytest.approx((expected.low, expected.high), abs=1e-9)


@pytest.mark.parametrize(
    ("table", "scale"),
    [
        ([[20, 5], [10, 15]], PASS_FAIL),
        ([[15, 0], [0, 15]], PASS_FAIL),
        ([[0, 15], [15, 0]], PASS_FAIL),
        ([[4, 1], [2, 3]], PASS_FAIL),
        ([[8, 2, 0], [1, 9, 2], [0, 3, 5]], THREE),
        (
            [[6, 1, 0, 0, 0], [1, 5, 1, 0, 0], [0, 2, 4, 1, 0], [0, 0, 1, 5, 1], [0, 0, 0, 1, 6]],
            FIVE,
        ),
        (
            [[6, 0, 0, 0, 0], [0, 6, 0, 0, 0], [0, 0, 6, 0, 0], [0, 0, 0, 6, 0], [0, 0, 0, 0, 6]],
            FIVE,
        ),
    ],
)
def test_kappas_interval_is_the_dirichlet_posteriors_as_computed_independently(
    table: list[list[int]], scale: Scale
) -> None:
    found = measure(_pairs(table, scale), scale)
    assert found.kappa.low is not None
    assert found.kappa.high is not None
    low, high = _reference_kappa_interval(table, quadratic=len(table) > 2)
    assert found.kappa.low == pytest.approx(low, abs=0.01)
    assert found.kappa.high == pytest.approx(high, abs=0.01)
    assert found.kappa.low < 1


def test_all_disagreeing_gives_a_kappa_interval_far_below_zero_and_zero_agreement() -> None:
    found = measure(_pairs([[0, 15], [15, 0]], PASS_FAIL), PASS_FAIL)
    assert found.kappa.value == -1.0
    assert found.kappa.high is not None
    assert found.kappa.high < -0.5
    assert found.percent_agreement.low == 0.0
    assert found.percent_agreement.high == pytest.approx(0.1135, abs=1e-4)


def test_two_examples_give_honest_and_very_wide_intervals() -> None:
    found = measure(_pairs([[1, 0], [0, 1]], PASS_FAIL), PASS_FAIL)
    assert found.kappa.low is not None
    assert found.kappa.low < 0
    assert found.percent_agreement.low == pytest.approx(0.3424, abs=1e-4)
    assert found.more_to_grade is not None
    assert found.more_to_grade > 10


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_spearmans_interval_is_fishers_z_with_bonett_and_wrights_error(seed: int) -> None:
    rng = np.random.default_rng(seed)
    human = rng.random(40)
    judge = np.clip(human + rng.normal(0, 0.3, 40), 0, 1)
    found = measure(list(zip(human, judge, strict=True)), NUMBER).spearman
    assert found is not None
    r = spearmanr(human, judge).statistic
    error = math.sqrt((1 + r * r / 2) / (40 - 3))
    quantile = norm.ppf(0.975)
    assert found.value == pytest.approx(r)
    assert found.low == pytest.approx(math.tanh(math.atanh(r) - quantile * error), abs=1e-9)
    assert found.high == pytest.approx(math.tanh(math.atanh(r) + quantile * error), abs=1e-9)


def test_a_perfectly_ordered_sample_does_not_read_one_to_one() -> None:
    pairs = [(i / 29, i / 29) for i in range(30)]
    found = measure(pairs, NUMBER)
    assert found.spearman is not None
    assert found.spearman.value == pytest.approx(1.0)
    assert found.spearman.high == 1.0
    assert found.spearman.low is not None
    assert found.spearman.low < 0.97
    reversed_ = fisher_interval(-1.0, 30)
    assert reversed_[0] == -1.0
    assert reversed_[1] is not None
    assert reversed_[1] > -0.97
    assert found.mae is not None
    assert (found.mae.value, found.mae.low) == (0.0, 0.0)
    assert found.mae.high == pytest.approx(wilson(0, 30)[1])  # the 0-1 scale's width is 1


def test_spearman_on_three_examples_has_no_interval_and_says_why() -> None:
    found = measure([(0.1, 0.2), (0.5, 0.4), (0.9, 0.8)], NUMBER)
    assert found.spearman is not None
    assert found.spearman.value == pytest.approx(1.0)
    assert found.spearman.low is None
    assert any("at least 4 examples" in words for words in found.problems)


def test_one_class_on_one_side_leaves_kappa_in_words_but_agreement_has_an_interval() -> None:
    found = measure([(1.0, 1.0)] * 10 + [(1.0, 0.0)] * 2, PASS_FAIL)
    assert found.kappa.value is None
    assert "cannot be measured" in found.reading
    assert found.percent_agreement.low is not None
    assert found.percent_agreement.low < 10 / 12 < (found.percent_agreement.high or 0)
