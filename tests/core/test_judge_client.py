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
