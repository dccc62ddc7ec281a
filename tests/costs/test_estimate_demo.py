"""The estimate against what the demo scorers really send: the fake judge counts the tokens of
every request it receives and of every answer it gives, as a provider does."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from scorer_runtime.costs import SampleExample, estimate_cost
from scorer_runtime.spec import PromptStepSpec, compile_spec, default_registry, load_spec
from tests.spec.conftest import (
    DEMO_DATASETS,
    DEMO_REPLIES,
    SCORERS,
    dataset_rows,
    with_api_base,
)

JUDGED = sorted(spec_id for spec_id, dataset in DEMO_DATASETS.items() if dataset)


def _judged_specs() -> list[str]:
    registry = default_registry(plugins=False)
    ids = []
    for spec_id in JUDGED:
        spec = load_spec(SCORERS / f"{spec_id}.json", registry=registry)
        if any(isinstance(step, PromptStepSpec) for step in spec.steps):
            ids.append(spec_id)
    return ids


def _actual_tokens(scorer: Any, rows: list[dict[str, Any]]) -> tuple[int, int, int]:
    """Input tokens, output tokens and judge calls of a real run over ``rows``."""
    inputs = outputs = calls = 0
    for row in rows:
        result = scorer.run_sync(**row)
        for execution in result.judge.values():
            inputs += execution.usage.input_tokens
            outputs += execution.usage.output_tokens
            calls += execution.model_call_count
    return inputs, outputs, calls


@pytest.mark.parametrize("spec_id", _judged_specs())
def test_the_estimate_is_within_a_quarter_of_the_tokens_really_used(
    spec_id, fake_judge, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    registry = default_registry(plugins=False)
    spec = load_spec(SCORERS / f"{spec_id}.json", registry=registry)
    for when, content in DEMO_REPLIES.get(spec_id, []):
        fake_judge.reply(content, when=when, usage="counted")
    fake_judge.reply("Fine.", usage="counted")  # any prompt the demo replies do not name
    scorer = compile_spec(with_api_base(spec, fake_judge.base_url), registry)
    fields = ("input", "output", "ground_truth", "request_context")
    rows = [
        {k: row[k] for k in fields if k in row}
        for row in dataset_rows(DEMO_DATASETS[spec_id], 1000)
    ]
    sample = [SampleExample(**row) for row in rows[::2]]  # a sample, scaled to every row

    estimate = asyncio.run(estimate_cost(scorer, sample, examples=len(rows)))
    inputs, outputs, calls = _actual_tokens(scorer, rows)

    assert fake_judge.request_count == calls  # the estimate itself sent nothing
    assert estimate.calls == pytest.approx(calls, rel=0.25)
    assert estimate.input_tokens == pytest.approx(inputs, rel=0.25), (estimate, inputs)
    # The scripted answers are shorter than a real judge's: the estimate's typical answer
    # (shaped by the schema) must not come out below them.
    assert estimate.output_tokens >= outputs * 0.75, (estimate, outputs)
    assert estimate.typical_cost is not None
    assert estimate.worst_cost is not None
    assert estimate.worst_cost > estimate.typical_cost
    assert estimate.worst_calls >= estimate.calls * 2  # retries and re-asks are counted
