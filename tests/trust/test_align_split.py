"""The grades an alignment starts from: readiness in words, and the held-out split."""

from __future__ import annotations

from collections import Counter

import pytest

from scorer_runtime.trust.align_split import (
    GradedExample,
    holdout_size,
    readiness,
    split_graded,
)


def _graded(n: int, disagreements: int) -> dict[int, GradedExample]:
    return {
        i: GradedExample(i, 1.0, "pass", "", 0.0 if i < disagreements else 1.0, i >= disagreements)
        for i in range(n)
    }


def test_nineteen_graded_examples_say_one_more_is_needed():
    said = readiness(_graded(19, 6)).words()
    assert not readiness(_graded(19, 6)).ready
    assert "grade 1 more example on the Review page" in said
    assert "19 examples graded" in said
    assert "disagree" not in said.split(":")[-1]


def test_four_disagreements_say_one_more_disagreement_is_needed():
    ready = readiness(_graded(25, 4))
    assert not ready.ready
    assert ready.more_disagreements == 1
    assert ready.more_graded == 0
    assert "find 1 more example where the judge and the person disagree" in ready.words()


def test_twenty_graded_with_five_disagreements_are_enough():
    assert readiness(_graded(20, 5)).ready


@pytest.mark.parametrize("n", [20, 29, 30, 31, 61, 200])
def test_the_holdout_is_a_third_and_at_least_ten(n):
    grades = {i * 7 + 3: ("pass" if i % 4 else "fail") for i in range(n)}
    split = split_graded(grades, seed=0)
    assert len(split.holdout) == max(10, -(-n // 3)) == holdout_size(n)
    assert set(split.tuning) | set(split.holdout) == set(grades)
    assert not set(split.tuning) & set(split.holdout)


def test_the_split_is_stratified_by_the_persons_grade():
    grades = {i: ("fail" if i < 30 else "pass" if i < 75 else "good enough") for i in range(90)}
    split = split_graded(grades, seed=3)
    held = Counter(grades[i] for i in split.holdout)
    assert held == {"fail": 10, "pass": 15, "good enough": 5}


def test_the_same_grades_give_the_same_split_and_another_seed_another():
    grades = {i: ("pass" if i % 3 else "fail") for i in range(40)}
    again = dict(reversed(list(grades.items())))  # the same grades, read in another order
    assert split_graded(grades, seed=0) == split_graded(again, seed=0)
    assert split_graded(grades, seed=0).holdout != split_graded(grades, seed=1).holdout


def test_a_rare_grade_keeps_an_example_in_the_tuning_part():
    grades = {i: ("fail" if i < 2 else "pass") for i in range(20)}
    split = split_graded(grades, seed=0)
    assert sum(grades[i] == "fail" for i in split.tuning) >= 1
    assert len(split.holdout) == 10


def test_fewer_than_twenty_cannot_be_split():
    with pytest.raises(ValueError, match="at least 20"):
        split_graded({i: "pass" for i in range(19)})
