"""Counting flips between repeats, and the flip rate's interval, on plain data."""

from __future__ import annotations

import pytest

from scorer_runtime.trust import Scale
from scorer_runtime.trust.flips import RepeatScore, flip_interval, flips_of
from scorer_runtime.trust.stability import sample_examples

LABELS = Scale("labels", (("good", 1.0), ("bad", 0.0)), 0.0, 1.0, 0.5)


@pytest.mark.parametrize(
    ("flipped", "n", "low", "high"),
    [
        # Newcombe (1998), Statistics in Medicine 17:857-872, table I (Wilson score method).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_the_flip_interval_is_wilsons_as_published(flipped, n, low, high) -> None:
    got_low, got_high = flip_interval(flipped, n)
    assert got_low == pytest.approx(low, abs=1e-4)
    assert got_high == pytest.approx(high, abs=1e-4)


def test_an_example_flips_when_two_repeats_give_different_verdicts() -> None:
    scores = [
        RepeatScore(1, 10, 1.0), RepeatScore(2, 10, 1.0), RepeatScore(3, 10, 1.0),
        RepeatScore(1, 11, 1.0), RepeatScore(2, 11, 0.0), RepeatScore(3, 11, 1.0),
        RepeatScore(1, 12, 0.0), RepeatScore(2, 12, None), RepeatScore(3, 12, 0.0),
        RepeatScore(1, 13, 1.0),  # scored once only: cannot be compared
    ]  # fmt: skip
    flips = flips_of(LABELS, example_ids=[10, 11, 12, 13], run_ids=[1, 2, 3], scores=scores)
    assert [e.example_id for e in flips.unstable] == [11]
    assert flips.examples[1].verdicts == ("good", "bad", "good")
    assert flips.examples[1].spread == 1.0
    assert flips.examples[2].verdicts == ("bad", None, "bad")
    assert flips.examples[3].spread is None
    assert (flips.compared, flips.flipped, flips.not_compared) == (3, 1, 1)
    assert flips.rate == pytest.approx(1 / 3)
    assert (flips.ci_low, flips.ci_high) == pytest.approx(flip_interval(1, 3))


def test_scores_of_other_runs_or_examples_are_not_counted() -> None:
    scores = [RepeatScore(1, 10, 1.0), RepeatScore(2, 10, 1.0), RepeatScore(9, 10, 0.0)]
    scores.append(RepeatScore(1, 99, 0.0))
    flips = flips_of(LABELS, example_ids=[10], run_ids=[1, 2], scores=scores)
    assert (flips.compared, flips.flipped) == (1, 0)


def test_a_spread_within_one_verdict_is_not_a_flip() -> None:
    number = Scale("number")  # pass mark 0.5
    scores = [RepeatScore(1, 5, 0.6), RepeatScore(2, 5, 0.9)]
    flips = flips_of(number, example_ids=[5], run_ids=[1, 2], scores=scores)
    assert not flips.examples[0].flipped
    assert flips.examples[0].spread == pytest.approx(0.3)


def test_no_comparable_example_gives_no_rate_at_all() -> None:
    flips = flips_of(LABELS, example_ids=[1, 2], run_ids=[1, 2], scores=[])
    assert (flips.rate, flips.ci_low, flips.ci_high) == (None, None, None)


def test_the_sample_is_seeded_sorted_and_drawn_from_the_ids() -> None:
    ids = list(range(100, 200))
    first = sample_examples(ids, 20, seed=7)
    assert first == sample_examples(list(reversed(ids)), 20, seed=7)
    assert len(set(first)) == 20
    assert set(first) <= set(ids)
    assert list(first) == sorted(first)
    assert sample_examples(ids, 20, seed=8) != first
    assert sample_examples([3, 1, 2], 20, seed=7) == (1, 2, 3)
