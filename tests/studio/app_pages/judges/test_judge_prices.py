"""A judge profile's price per 1M tokens and default spend cap: saved from the form, read back,
refused in words."""

from __future__ import annotations

import pytest

from studio.app_pages.judges.logic.form import (
    JudgeForm,
    JudgeFormError,
    form_of_profile,
    judge_spec,
)


def _form(**prices) -> JudgeForm:
    return JudgeForm(name="local", model="ollama/llama3", instructions="Grade.", **prices)


def test_the_prices_go_into_the_profile_and_come_back():
    spec = judge_spec(_form(input_price=0.2, output_price=0.8))
    assert (spec.input_price_per_million, spec.output_price_per_million) == (0.2, 0.8)
    again = form_of_profile("local", spec.model_dump(exclude_none=True))
    assert (again.input_price, again.output_price) == (0.2, 0.8)
    assert "input_price_per_million" not in again.kept


def test_no_price_leaves_the_model_s_own():
    spec = judge_spec(_form())
    assert spec.input_price_per_million is None
    assert spec.output_price_per_million is None


def test_a_negative_price_is_refused_naming_the_field():
    with pytest.raises(JudgeFormError) as refused:
        judge_spec(_form(input_price=-1.0))
    assert refused.value.problems[0].startswith("Price per 1M input tokens:")


# -- the default spend cap ("Stop a run at $") ------------------------------------------------


def test_the_default_cap_goes_into_the_profile_and_comes_back():
    spec = judge_spec(_form(default_cap="$2.50"))
    assert spec.default_max_cost == 2.5
    again = form_of_profile("local", spec.model_dump(exclude_none=True))
    assert again.default_cap == "2.5"
    assert "default_max_cost" not in again.kept
    assert judge_spec(_form(default_cap="  ")).default_max_cost is None


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("-1", "Stop a run at $: The spend cap must be an amount above $0, not -1"),
        ("0", "Stop a run at $: The spend cap must be an amount above $0, not 0"),
        ("five dollars", "Stop a run at $: The spend cap 'five dollars' is not an amount"),
    ],
)
def test_a_default_cap_that_is_no_amount_is_refused_in_words(typed, words):
    with pytest.raises(JudgeFormError) as refused:
        judge_spec(_form(default_cap=typed))
    assert refused.value.problems[0].startswith(words)


# -- the rate limits ("This key allows … requests a minute") -----------------------------------


def test_the_rate_limits_go_into_the_profile_and_come_back():
    spec = judge_spec(_form(requests_per_minute=600, tokens_per_minute=200_000.0))
    assert (spec.requests_per_minute, spec.tokens_per_minute) == (600, 200_000)
    again = form_of_profile("local", spec.model_dump(exclude_none=True))
    assert (again.requests_per_minute, again.tokens_per_minute) == (600, 200_000)
    assert "requests_per_minute" not in again.kept
    assert judge_spec(_form()).requests_per_minute is None


def test_a_rate_limit_below_one_is_refused_naming_the_field():
    with pytest.raises(JudgeFormError) as refused:
        judge_spec(_form(requests_per_minute=0))
    assert refused.value.problems[0].startswith("Requests a minute:")
