"""A judge's own price per 1M tokens: runs record their cost from it, the estimate uses it."""

from __future__ import annotations

import asyncio
import json

import pytest

from scorer_runtime import Judge, PromptStep, create_scorer
from scorer_runtime.costs import SampleExample, estimate_cost
from scorer_runtime.spec import compile_spec, default_registry, load_spec

SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["good", "bad"]}},
    "required": ["verdict"],
}


def _scorer(server, **price):
    judge = Judge(
        model="openai/fake-judge",  # litellm has no price for it
        api_base=server.base_url,
        api_key="sk-test",
        instructions="You grade answers.",
        json_prompt_injection="system",
        **price,
    )
    return (
        create_scorer(id="verdict", description="d", judge=judge)
        .analyze(
            PromptStep(
                description="Judge it",
                create_prompt=lambda run: f"Grade: {run.output}",
                output_schema=SCHEMA,
            )
        )
        .generate_score(lambda results: float(results.analyze_step_result["verdict"] == "good"))
    )


def test_a_run_is_priced_from_the_judges_own_price(fake_judge):
    fake_judge.reply({"verdict": "good"}, usage=(1000, 100))
    priced = _scorer(fake_judge, input_price_per_million=2.0, output_price_per_million=8.0)
    execution = priced.run_sync(output="fine").judge["analyze"]
    assert execution.cost == pytest.approx(1000 * 2e-6 + 100 * 8e-6)
    unpriced = _scorer(fake_judge).run_sync(output="fine").judge["analyze"]
    assert unpriced.cost is None


def test_the_estimate_uses_the_judges_own_price_and_says_when_there_is_none(fake_judge):
    sample = [SampleExample(output=f"answer {i}") for i in range(4)]
    priced = _scorer(fake_judge, input_price_per_million=2.0, output_price_per_million=8.0)
    found = asyncio.run(estimate_cost(priced, sample, examples=100))
    assert found.priced
    per_call = (found.input_tokens * 2e-6 + found.output_tokens * 8e-6) / found.calls
    assert found.typical_cost == pytest.approx(per_call * 100)
    bare = asyncio.run(estimate_cost(_scorer(fake_judge), sample, examples=100))
    assert bare.typical_cost is None
    assert bare.describe().endswith(
        "Price unknown for openai/fake-judge: set a price per 1M tokens on the judge profile."
    )
    assert fake_judge.request_count == 0  # estimating calls no provider


def test_a_spec_judge_carries_its_price_into_the_compiled_scorer(fake_judge, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_JUDGE_KEY", "sk-test")
    spec = {
        "id": "priced",
        "description": "d",
        "judge": {
            "model": "openai/fake-judge",
            "instructions": "Grade.",
            "api_base": fake_judge.base_url,
            "api_key_env": "FAKE_JUDGE_KEY",
            "input_price_per_million": 1.5,
            "output_price_per_million": 6,
        },
        "steps": [
            {
                "step": "analyze",
                "description": "Judge it",
                "template": "Grade: {{ output }}",
                "output_schema": SCHEMA,
            },
            {"step": "generate_score", "formula": "1 if step2.verdict == 'good' else 0"},
        ],
    }
    path = tmp_path / "priced.json"
    path.write_text(json.dumps(spec))
    registry = default_registry(plugins=False)
    scorer = compile_spec(load_spec(path, registry=registry), registry)
    fake_judge.reply({"verdict": "good"}, usage=(200, 20))
    result = scorer.run_sync(output="fine")
    assert result.judge["analyze"].cost == pytest.approx(200 * 1.5e-6 + 20 * 6e-6)
