"""The litellm adapter: provider errors described without litellm's own wording."""

from __future__ import annotations

import pytest

from scorer_runtime.judge.client import clean_message


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (
            "litellm.AuthenticationError: AuthenticationError: OpenAIException - "
            "Incorrect API key provided.",
            "Incorrect API key provided.",
        ),
        (
            "litellm.InternalServerError: InternalServerError: OpenAIException - Connection error.",
            "Connection error.",
        ),
        ("Connection error.", "Connection error."),
        ("Rate limit reached: try again in 2s", "Rate limit reached: try again in 2s"),
    ],
)
def test_litellm_prefixes_are_removed(raw, clean):
    assert clean_message(raw) == clean


def test_an_auth_failure_over_http_reads_as_the_provider_said(fake_judge):
    from scorer_runtime import Judge, PromptStep, ScorerRunError, create_scorer

    fake_judge.fault(status=401)
    judge = Judge(
        model="openai/fake-judge",
        instructions="Grade.",
        api_base=fake_judge.base_url,
        api_key="sk-wrong",
        json_prompt_injection="system",
    )
    scorer = create_scorer(id="auth", description="d", judge=judge).generate_score(
        PromptStep(description="s", create_prompt=lambda: "p", calculate_score=lambda: 1)
    )
    with pytest.raises(ScorerRunError) as caught:
        scorer.run_sync(output="x")
    assert str(caught.value.__cause__) == "HTTP 401: Incorrect API key provided."


async def _call(server, model: str):
    from scorer_runtime.judge.client import complete

    return await complete(
        model=model,
        messages=[{"role": "user", "content": "Rate: x"}],
        api_base=server.base_url,
        api_key="sk-test",
        temperature=None,
        timeout_s=10,
        response_format=None,
    )


async def test_a_priced_model_costs_what_the_cost_map_says(fake_judge):
    from scorer_runtime.judge.client import _litellm

    fake_judge.reply("ok", usage=(1200, 300))
    completion = await _call(fake_judge, "openai/gpt-4o-mini")
    prompt_cost, output_cost = _litellm().cost_per_token(
        model="openai/gpt-4o-mini", prompt_tokens=1200, completion_tokens=300
    )
    assert completion.cost == pytest.approx(prompt_cost + output_cost, rel=1e-9)
    assert completion.cost > 0


async def test_prices_are_read_from_the_cost_map_once_per_model(fake_judge):
    from scorer_runtime.judge.client import pricing

    pricing.cache_clear()
    fake_judge.reply("ok")
    costs = [(await _call(fake_judge, "openai/gpt-4o-mini")).cost for _ in range(3)]
    assert pricing.cache_info().misses == 1
    assert pricing.cache_info().hits == 2
    assert len(set(costs)) == 1
    assert costs[0] is not None


async def test_prices_never_reach_the_provider(fake_judge):
    fake_judge.reply("ok")
    for model in ("openai/gpt-4o-mini", "openai/fake-judge"):
        await _call(fake_judge, model)
        body = fake_judge.last_request.json
        assert not [name for name in body if "cost" in name], body


async def test_an_unpriced_model_records_no_cost_despite_the_stand_in_price(fake_judge):
    from scorer_runtime.judge.client import pricing

    fake_judge.reply("ok", usage=(5000, 5000))
    assert pricing("openai/fake-judge").known is False
    assert pricing("openai/gpt-4o-mini").known is True
    completion = await _call(fake_judge, "openai/fake-judge")
    assert completion.cost is None
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (5000, 5000)
