"""A judge profile's price per 1M tokens: saved from the form, read back, refused in words."""

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
