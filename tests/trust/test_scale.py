"""The scale a scorer grades on, read from each demo scorer's spec."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorer_runtime.spec import load_spec
from scorer_runtime.trust import Scale, scale_of

DEMO = Path(__file__).resolve().parents[2] / "data" / "scorers"


def _scale(name: str) -> Scale:
    return scale_of(load_spec(DEMO / f"{name}.json"))


def test_a_label_mapping_is_a_labels_scale_best_first() -> None:
    scale = _scale("tone-politeness")
    assert scale.kind == "labels"
    assert scale.choices() == (("polite", 1.0), ("neutral", 0.5), ("rude", 0.0))
    assert (scale.low, scale.high, scale.pass_mark) == (0.0, 1.0, 0.5)
    assert scale.verdict(0.4) == "neutral"
    assert scale.verdict(0.9) == "polite"


def test_a_prompt_score_with_a_label_calculation_is_a_labels_scale() -> None:
    assert [name for name, _ in _scale("rubric-judge").choices()] == ["yes", "partial", "no"]


def test_a_schema_check_is_pass_fail() -> None:
    scale = _scale("json-format")
    assert scale.kind == "pass_fail"
    assert scale.choices() == (("pass", 1.0), ("fail", 0.0))
    assert (scale.verdict(1.0), scale.verdict(0.0)) == ("pass", "fail")


@pytest.mark.parametrize("name", ["faithfulness", "answer-relevancy", "conciseness"])
def test_other_scores_are_numbers_from_0_to_1(name: str) -> None:
    scale = _scale(name)
    assert (scale.kind, scale.low, scale.high, scale.choices()) == ("number", 0.0, 1.0, ())
    assert scale.verdict(0.5) == "pass"
    assert scale.with_pass_mark(0.8).verdict(0.5) == "fail"


def test_a_grade_off_the_scale_is_named_in_words() -> None:
    assert _scale("tone-politeness").problem(0.7) == (
        "0.7 is not a grade of this scorer; its grades are polite = 1, neutral = 0.5, rude = 0"
    )
    assert _scale("tone-politeness").problem(0.5) is None
    assert _scale("faithfulness").problem(1.5) == ("1.5 is outside this scorer's range, 0 to 1")
    assert _scale("faithfulness").problem(0.25) is None
