"""Agreement figures checked against published worked examples, and their bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score

from scorer_runtime.trust import Scale
from scorer_runtime.trust.agreement import (
    disagreement_weights,
    kappa_from_counts,
    landis_koch,
    measure,
    more_to_grade,
)

PASS_FAIL = Scale("pass_fail")
NUMBER = Scale("number")


def _pairs(table: list[list[int]]) -> list[tuple[float, float]]:
    """Pairs (person, judge) from a 2 by 2 table whose first row and column are 'pass'."""
    score = (1.0, 0.0)
    return [
        (score[i], score[j])
        for i, row in enumerate(table)
        for j, count in enumerate(row)
        for _ in range(count)
    ]


def test_the_fifty_grant_proposals_example_gives_kappa_0_4() -> None:
    # Wikipedia, "Cohen's kappa", worked example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no.
    found = measure(_pairs([[20, 5], [10, 15]]), PASS_FAIL)
    assert found.kappa.value == pytest.approx(0.4)
    assert found.percent_agreement.value == pytest.approx(0.7)
    assert (found.human_pass_rate, found.judge_pass_rate) == (0.5, 0.6)
    assert found.confusion == ((20, 5), (10, 15))
    assert found.reading.startswith("Fair agreement with people on 50 examples")


@pytest.mark.parametrize(
    ("table", "kappa"), [([[45, 15], [25, 15]], 0.1304), ([[25, 35], [5, 35]], 0.2593)]
)
def test_the_same_percent_agreement_with_other_base_rates_gives_the_published_kappas(
    table: list[list[int]], kappa: float
) -> None:
    # Wikipedia, "Cohen's kappa", same percentages but different numbers: both agree on 60 %.
    found = measure(_pairs(table), PASS_FAIL)
    assert found.percent_agreement.value == pytest.approx(0.6)
    assert found.kappa.value == pytest.approx(kappa, abs=5e-5)


def _ten_point_scale() -> Scale:
    labels = tuple((str(v), float(v)) for v in range(10, 0, -1))
    return Scale("labels", labels, 1.0, 10.0, 5.5)


@pytest.mark.parametrize(
    ("judge", "kappa"),
    [
        ([8, 8, 6, 6, 7, 6, 1, 4, 8], 0.758620689655172),
        ([3, 5, 6, 6, 7, 6, 1, 4, 8], 0.438095238095238),
    ],
)
def test_quadratic_weighted_kappa_matches_the_published_essay_scores(
    judge: list[int], kappa: float
) -> None:
    # Maple's EssayTools QuadraticWeightedKappa help page, examples 1 and 2 (scores 1 to 10).
    human = [9, 7, 8, 7, 6, 8, 3, 5, 10]
    found = measure(
        [(float(h), float(j)) for h, j in zip(human, judge, strict=True)], _ten_point_scale()
    )
    assert found.kappa_name == "quadratic-weighted kappa"
    assert found.kappa.value == pytest.approx(kappa, abs=1e-12)
    table = np.zeros((10, 10))
    for h, j in zip(human, judge, strict=True):
        table[h - 1, j - 1] += 1
    vectorised = kappa_from_counts(table, disagreement_weights(10, quadratic=True))
    assert float(vectorised) == pytest.approx(kappa, abs=1e-12)


def test_the_vectorised_kappa_equals_scikit_learns_on_random_tables() -> None:
    rng = np.random.default_rng(7)
    for size, quadratic in ((2, False), (3, False), (3, True), (5, True)):
        human = rng.integers(0, size, 200)
        judge = np.where(rng.random(200) < 0.7, human, rng.integers(0, size, 200))
        table = np.zeros((size, size))
        np.add.at(table, (human, judge), 1)
        weights = "quadratic" if quadratic else None
        expected = cohen_kappa_score(human, judge, labels=list(range(size)), weights=weights)
        found = kappa_from_counts(table, disagreement_weights(size, quadratic=quadratic))
        assert float(found) == pytest.approx(expected, abs=1e-12)


def test_the_interval_is_seeded_holds_the_estimate_and_narrows_with_more_examples() -> None:
    small = _pairs([[20, 5], [10, 15]])
    first, again = measure(small, PASS_FAIL), measure(small, PASS_FAIL)
    assert (first.kappa.low, first.kappa.high) == (again.kappa.low, again.kappa.high)
    assert first.kappa.low is not None
    assert first.kappa.high is not None
    assert first.kappa.low < 0.4 < first.kappa.high
    other = measure(small, PASS_FAIL, seed=1)
    assert (other.kappa.low, other.kappa.high) != (first.kappa.low, first.kappa.high)
    big = measure(_pairs([[200, 50], [100, 150]]), PASS_FAIL)
    assert big.kappa.value == pytest.approx(0.4)
    assert big.kappa.width is not None
    assert first.kappa.width is not None
    assert big.kappa.width < first.kappa.width / 2


def test_a_wide_interval_asks_for_more_grades_estimated_from_the_square_root_of_n() -> None:
    assert more_to_grade(50, 0.4) == 150  # half the width takes four times the examples
    assert more_to_grade(50, 0.1) == 0
    found = measure(_pairs([[20, 5], [10, 15]]), PASS_FAIL)
    assert found.more_to_grade is not None
    assert found.more_to_grade > 50
    assert f"grade about {found.more_to_grade} more examples" in found.reading


def test_landis_and_koch_words() -> None:
    words = [landis_koch(k) for k in (-0.1, 0.1, 0.3, 0.5, 0.7, 0.9)]
    assert words == ["poor", "slight", "fair", "moderate", "substantial", "almost perfect"]


def test_fewer_than_two_examples_is_said_in_words_and_never_nan() -> None:
    for pairs in ([], [(1.0, 1.0)]):
        found = measure(pairs, PASS_FAIL)
        assert found.kappa.value is None
        assert "at least 2 are needed" in found.reading
        json.dumps(found.as_json(), allow_nan=False)
    assert measure([], PASS_FAIL).percent_agreement.value is None
    one = measure([(1.0, 1.0)], PASS_FAIL).percent_agreement
    assert one.value == 1.0
    assert one.low is not None
    assert one.low < 0.3  # one agreement of one says little: Wilson's 0.21 to 1


def test_one_grade_on_a_side_leaves_kappa_unmeasured_with_the_reason() -> None:
    found = measure([(1.0, 1.0), (1.0, 0.0), (1.0, 1.0)], PASS_FAIL)
    assert found.kappa.value is None
    assert found.reading.startswith("People gave every example the same grade (pass)")
    assert found.percent_agreement.value == pytest.approx(2 / 3)
    data = found.as_json()
    assert data["kappa"] is None
    assert data["ci_low"] is None
    json.dumps(data, allow_nan=False)


def test_numbers_give_spearman_and_mae_with_intervals_and_kappa_at_the_pass_mark() -> None:
    rng = np.random.default_rng(3)
    human = np.round(rng.random(300) * 4) / 4  # ties, as people grade in quarters
    judge = np.clip(human + rng.normal(0, 0.15, 300), 0, 1)
    found = measure(list(zip(human, judge, strict=True)), NUMBER)
    assert found.spearman is not None
    assert found.mae is not None
    assert found.spearman.value == pytest.approx(spearmanr(human, judge).statistic)
    assert found.mae.value == pytest.approx(np.mean(np.abs(human - judge)))
    for figure in (found.spearman, found.mae, found.kappa):
        assert figure.low is not None
        assert figure.high is not None
        assert figure.value is not None
        assert figure.low <= figure.value <= figure.high
    assert found.kappa_name == "Cohen's kappa at the pass mark"
    data = found.as_json()
    assert {"spearman", "mae", "kappa", "ci_low", "ci_high"} <= set(data)


def test_a_constant_number_on_one_side_leaves_spearman_unmeasured_in_words() -> None:
    found = measure([(0.5, 0.1), (0.5, 0.9), (0.5, 0.3)], NUMBER)
    assert found.spearman is not None
    assert found.spearman.value is None
    assert any("rank correlation (Spearman) cannot be measured" in p for p in found.problems)
    json.dumps(found.as_json(), allow_nan=False)
