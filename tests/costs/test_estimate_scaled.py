"""An estimate scaled to another number of scorings (a stability check's sample times repeats)."""

from __future__ import annotations

import pytest

from scorer_runtime.costs.estimate import CostEstimate


def _estimate(**changes: object) -> CostEstimate:
    base = {
        "examples": 40, "sampled": 20, "calls": 80, "worst_calls": 640,
        "input_tokens": 8_000, "output_tokens": 2_000, "typical_cost": 0.02,
        "worst_cost": 0.4, "example_worst_cost": 0.01, "call_worst_cost": 0.005,
    }  # fmt: skip
    return CostEstimate(**{**base, **changes})  # type: ignore[arg-type]


def test_scaling_multiplies_calls_tokens_and_costs_but_not_one_example_s_worst_case() -> None:
    scaled = _estimate().scaled(60)  # 20 examples times 3 repeats
    assert (scaled.examples, scaled.calls, scaled.worst_calls) == (60, 120, 960)
    assert (scaled.input_tokens, scaled.output_tokens) == (12_000, 3_000)
    assert scaled.typical_cost == pytest.approx(0.03)
    assert scaled.worst_cost == pytest.approx(0.6)
    assert (scaled.example_worst_cost, scaled.call_worst_cost) == (0.01, 0.005)
    assert "About 120 judge calls for 60 examples" in scaled.describe()


def test_an_unpriced_estimate_stays_unpriced_and_says_so() -> None:
    scaled = _estimate(typical_cost=None, worst_cost=None, unpriced_models=("ollama/llama3",))
    words = scaled.scaled(10).describe()
    assert scaled.scaled(10).typical_cost is None
    assert "Price unknown for ollama/llama3" in words


def test_an_empty_dataset_scales_to_nothing_spent() -> None:
    empty = _estimate(examples=0, calls=0, worst_calls=0, typical_cost=0.0, worst_cost=0.0)
    assert empty.scaled(60).calls == 0
