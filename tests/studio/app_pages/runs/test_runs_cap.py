"""The "Stop at $" box's words, against real estimates of a priced and an unpriced model."""

from __future__ import annotations

import pytest

from scorer_runtime.costs import CostEstimate
from studio.app_pages.runs.logic.cost import choose_cap, cost_text


def _estimate(*, priced: bool = True) -> CostEstimate:
    cost = 0.5 if priced else None
    return CostEstimate(
        examples=100,
        sampled=20,
        calls=200,
        worst_calls=800,
        input_tokens=40_000,
        output_tokens=5_000,
        typical_cost=cost,
        worst_cost=None if cost is None else 4.0,
        example_worst_cost=None if cost is None else 0.04,
        call_worst_cost=None if cost is None else 0.02,
        unpriced_models=() if priced else ("ollama/llama3",),
    )


def test_the_cost_line_gives_typical_and_worst_case_or_says_the_price_is_unknown():
    assert cost_text(_estimate()) == (
        "Estimated cost: about **$0.5000**, at worst **$4.0000** (if every call is retried "
        "and re-asked as far as the judge allows), from 20 of the examples."
    )
    assert cost_text(_estimate(priced=False)) == (
        "Price unknown for ollama/llama3: set a price per 1M tokens on the judge profile."
    )


@pytest.mark.parametrize(
    ("typed", "problem"),
    [
        ("-3", "The spend cap must be an amount above $0"),
        ("five", "The spend cap 'five' is not an amount"),
        ("0.01", "The cap of $0.0100 is below what one example can cost at worst ($0.0400"),
    ],
)
def test_a_cap_the_run_cannot_keep_is_said_in_words(typed, problem):
    choice = choose_cap(typed, _estimate(), allow_unpriced=False)
    assert choice.problem.startswith(problem)


def test_an_empty_box_is_no_cap_and_a_fitting_cap_is_kept():
    assert choose_cap("  ", _estimate(), allow_unpriced=False).cap is None
    kept = choose_cap("$2.50", _estimate(), allow_unpriced=False)
    assert (kept.cap, kept.problem) == (2.5, "")


def test_a_cap_on_an_unpriced_model_needs_the_box_ticked():
    refused = choose_cap("5", _estimate(priced=False), allow_unpriced=False)
    assert refused.asks_unpriced
    assert "Price unknown for ollama/llama3" in refused.problem
    assert "tick 'Run without a price'" in refused.problem
    accepted = choose_cap("5", _estimate(priced=False), allow_unpriced=True)
    assert (accepted.cap, accepted.allow_unpriced, accepted.problem) == (5.0, True, "")


def test_a_cap_below_the_estimate_is_said_before_start():
    # Estimated $0.50, $4.00 at worst, $0.04 per example at worst.
    short = choose_cap("0.30", _estimate(), allow_unpriced=False)
    assert short.problem == ""  # it may start: it stops at the cap, what finished is kept
    assert short.warning.startswith(
        "This run is estimated at $0.5000; it will stop at $0.3000, before it finishes."
    )
    may = choose_cap("1", _estimate(), allow_unpriced=False)
    assert "under the $1.0000 cap, but it may stop before it finishes" in may.warning
    assert "sets aside what that example could cost at worst" in may.warning
    resumed = choose_cap("1", _estimate(), allow_unpriced=False, spent=0.6)
    assert resumed.warning.startswith("This run is estimated at $1.1000 with $0.6000 already")
    assert choose_cap("5", _estimate(), allow_unpriced=False).warning == ""
    assert choose_cap("5", _estimate(priced=False), allow_unpriced=True).warning == ""
