"""The cost line before Start when the judge answer cache already holds answers."""

from __future__ import annotations

from scorer_runtime.costs import CostEstimate
from studio.app_pages.runs.logic.cost import cost_text


def _estimate(*, cached: int, pay: float | None, full: float | None = 0.1) -> CostEstimate:
    return CostEstimate(
        examples=500,
        sampled=20,
        calls=1000,
        worst_calls=4 * (1000 - cached),
        input_tokens=40_000,
        output_tokens=5_000,
        typical_cost=pay,
        worst_cost=None if pay is None else pay * 2.5,
        example_worst_cost=None,
        call_worst_cost=None,
        unpriced_models=() if pay is not None else ("ollama/llama3",),
        cached_calls=cached,
        uncached_typical_cost=full,
        uncached_worst_cost=None if full is None else full * 2.5,
    )


def test_some_calls_from_the_cache_give_the_cost_to_pay_and_without_the_cache():
    assert cost_text(_estimate(cached=800, pay=0.02)) == (
        "Estimated cost: **$0.0200–$0.0500 to pay (without the cache $0.1000–$0.2500)**. "
        "800 of about 1,000 judge calls likely come from the cache (answers already paid "
        "for), from 20 of the examples."
    )


def test_every_call_from_the_cache_leaves_nothing_to_pay():
    assert cost_text(_estimate(cached=1000, pay=0.0)).startswith(
        "Estimated cost: **$0 to pay (without the cache $0.1000–$0.2500)**. All 1,000 judge "
        "calls likely come from the cache"
    )


def test_an_unpriced_model_still_says_how_many_calls_are_cached():
    assert cost_text(_estimate(cached=300, pay=None, full=None)) == (
        "300 of about 1,000 judge calls likely come from the cache. Price unknown for "
        "ollama/llama3: set a price per 1M tokens on the judge profile."
    )


def test_a_scaled_estimate_scales_the_cached_calls_and_both_costs():
    scaled = _estimate(cached=800, pay=0.02).scaled(1000)
    assert (scaled.calls, scaled.cached_calls, scaled.worst_calls) == (2000, 1600, 1600)
    assert scaled.typical_cost == 0.04
    assert (scaled.uncached_typical_cost, scaled.uncached_worst_cost) == (0.2, 0.5)
