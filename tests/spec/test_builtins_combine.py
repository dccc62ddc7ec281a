"""Combining and judge-label built-ins, alone and fed by a judge over real HTTP."""

from __future__ import annotations

import pytest

from scorer_runtime import (
    Judge,
    NotScorable,
    PromptStep,
    ScorerRun,
    ScorerRunError,
    StepResults,
    create_scorer,
)
from scorer_runtime.spec.builtins import (
    BuiltinStepError,
    clamp,
    label_to_score,
    proportion,
    threshold,
    weighted_average,
)
from scorer_runtime.spec.registry import StepParamsError

VERDICTS_SCHEMA = {
    "type": "object",
    "properties": {
        "verdicts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "statement": {"type": "string"},
                    "verdict": {"type": "string"},
                },
                "required": ["statement", "verdict"],
            },
        }
    },
    "required": ["verdicts"],
}
LABEL_SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string"}},
    "required": ["verdict"],
}
QUALITY_SCHEMA = {
    "type": "object",
    "properties": {"relevance": {"type": "number"}, "tone": {"type": "number"}},
    "required": ["relevance", "tone"],
}


def call(step, analyze=None, score=None, judge_output=None, preprocess=None):
    run = ScorerRun(input="q", output="a", run_id="r1")
    results = StepResults(preprocess_step_result=preprocess, analyze_step_result=analyze)
    return step(run=run, results=results, score=score, judge_output=judge_output)


def judge(server):
    return Judge(
        model="openai/fake-judge",
        api_base=server.base_url,
        api_key="sk-test",
        instructions="You are a careful grader.",
        json_prompt_injection="system",
    )


# -- weighted average -----------------------------------------------------------------------


def test_weighted_average_of_analyze_fields():
    step = weighted_average(weights={"relevance": 0.7, "tone": 0.3})
    assert call(step, analyze={"relevance": 1.0, "tone": 0.5}) == pytest.approx(0.85)


def test_weighted_average_normalises_weights_and_takes_full_paths_and_bools():
    step = weighted_average(weights={"relevance": 3, "results.preprocess_step_result.ok": 1})
    assert call(step, analyze={"relevance": 0.5}, preprocess={"ok": True}) == pytest.approx(0.625)
    nested = weighted_average(weights={"scores.a": 1, "scores.b": 1})
    assert call(nested, analyze={"scores": {"a": 1, "b": "0.5"}}) == pytest.approx(0.75)


def test_weighted_average_names_a_missing_or_non_numeric_value():
    step = weighted_average(weights={"relevance": 0.7, "tone": 0.3})
    with pytest.raises(BuiltinStepError, match=r"cannot read 'step2\.tone'"):
        call(step, analyze={"relevance": 1.0})
    with pytest.raises(BuiltinStepError) as caught:
        call(step, analyze={"relevance": 1.0, "tone": "friendly"})
    assert "expected a number at 'step2.tone', found \"friendly\"" in str(caught.value)


@pytest.mark.parametrize(
    ("weights", "problem"),
    [
        ({}, "at least 1 item"),
        ({"a": -1, "b": 2}, "negative"),
        ({"a": 0}, "add up to 0"),
        ({"a..b": 1}, "empty part"),
    ],
)
def test_weighted_average_checks_its_weights(weights, problem):
    with pytest.raises(StepParamsError, match=problem):
        weighted_average(weights=weights)


async def test_weighted_average_over_a_judge_analysis(fake_judge):
    fake_judge.reply({"relevance": 0.9, "tone": 0.4})
    scorer = (
        create_scorer(id="quality", description="relevance and tone", judge=judge(fake_judge))
        .analyze(
            PromptStep(
                description="Rate relevance and tone from 0 to 1.",
                create_prompt=lambda run: f"Q: {run.input}\nA: {run.output}",
                output_schema=QUALITY_SCHEMA,
            )
        )
        .generate_score(weighted_average(weights={"relevance": 0.7, "tone": 0.3}))
        .generate_reason(
            threshold(field="score", threshold=0.7, pass_value="pass", fail_value="fail")
        )
    )
    result = await scorer.run(input="How do I return boots?", output="Within 30 days.")
    assert result.score == pytest.approx(0.75)
    assert result.reason == "pass"
    assert fake_judge.request_count == 1


# -- threshold / clamp ----------------------------------------------------------------------


def test_threshold_numbers_and_labels():
    step = threshold(field="results.analyze_step_result.score", threshold=0.7)
    assert call(step, analyze={"score": 0.7}) == 1.0
    assert call(step, analyze={"score": 0.69}) == 0.0
    strict = threshold(
        field="score", threshold=0.7, inclusive=False, pass_value="pass", fail_value="fail"
    )
    assert call(strict, score=0.7) == "fail"
    assert call(strict, score=0.71) == "pass"


def test_threshold_needs_a_number():
    step = threshold(field="score", threshold=0.5)
    with pytest.raises(BuiltinStepError, match="expected a number at 'score', found null"):
        call(step, score=None)


def test_clamp():
    step = clamp(field="judge_output.score")
    assert call(step, judge_output={"score": 1.2}) == 1.0
    assert call(step, judge_output={"score": -0.1}) == 0.0
    assert call(step, judge_output={"score": 0.4}) == 0.4
    assert call(clamp(field="judge_output.score", min=1, max=5), judge_output={"score": 7}) == 5.0
    with pytest.raises(StepParamsError, match="larger than max"):
        clamp(field="score", min=2, max=1)


# -- label to score -------------------------------------------------------------------------


def test_label_to_score_is_case_and_space_insensitive_by_default():
    step = label_to_score(mapping={"yes": 1, "partial": 0.5, "no": 0})
    assert call(step, judge_output={"verdict": " Yes"}) == 1.0
    assert call(step, judge_output={"verdict": "partial"}) == 0.5
    assert call(step, judge_output={"verdict": "NO"}) == 0.0


def test_label_to_score_unknown_label_names_it_or_uses_the_default():
    step = label_to_score(mapping={"yes": 1, "no": 0})
    with pytest.raises(BuiltinStepError) as caught:
        call(step, judge_output={"verdict": "maybe"})
    assert str(caught.value) == (
        "label_to_score: the label 'maybe' at 'judge_output.verdict' is not one of the known "
        "labels ('yes', 'no'). Add it to the mapping, or set a default score."
    )
    fallback = label_to_score(mapping={"yes": 1, "no": 0}, default=0.25)
    assert call(fallback, judge_output={"verdict": "maybe"}) == 0.25


def test_label_to_score_reads_booleans_and_previous_results():
    step = label_to_score(mapping={"true": 1, "false": 0}, field="results.analyze_step_result.ok")
    assert call(step, analyze={"ok": False}) == 0.0
    sensitive = label_to_score(mapping={"Yes": 1, "yes": 0.5}, case_sensitive=True)
    assert call(sensitive, judge_output={"verdict": "yes"}) == 0.5


def test_label_to_score_refuses_labels_that_clash_when_case_is_ignored():
    with pytest.raises(StepParamsError, match="'Yes' and 'yes' differ only in case"):
        label_to_score(mapping={"Yes": 1, "yes": 0.5})


async def test_label_to_score_as_calculate_score_of_a_judge_step(fake_judge):
    fake_judge.reply({"verdict": "partial"}, when="refund")
    fake_judge.reply({"verdict": "perhaps"}, when="shipping")
    scorer = create_scorer(id="complete", description="completeness", judge=judge(fake_judge))
    scorer = scorer.generate_score(
        PromptStep(
            description="Is the answer complete?",
            create_prompt=lambda run: f"Answer: {run.output}",
            output_schema=LABEL_SCHEMA,
            calculate_score=label_to_score(mapping={"yes": 1, "partial": 0.5, "no": 0}),
        )
    )
    result = await scorer.run(output="You get a refund.")
    assert result.score == 0.5
    assert result.judge["generate_score"].parsed_output == {"verdict": "partial"}
    with pytest.raises(ScorerRunError) as caught:
        await scorer.run(output="Free shipping.")
    assert caught.value.failed_step == "generate_score"
    assert "the label 'perhaps' at 'judge_output.verdict' is not one of the known" in str(
        caught.value
    )


# -- proportion -----------------------------------------------------------------------------


VERDICTS = [
    {"statement": "Refunds take 5-7 days", "verdict": "yes"},
    {"statement": "Returns are free", "verdict": "YES"},
    {"statement": "Gift cards expire", "verdict": "no"},
    {"statement": "Shipping to Mars", "verdict": "unsure"},
]


def test_proportion_of_yes_verdicts():
    assert call(proportion(), analyze={"verdicts": VERDICTS}) == 0.5
    assert call(proportion(case_sensitive=True), analyze={"verdicts": VERDICTS}) == 0.25
    both = proportion(equals=["yes", "unsure"])
    assert call(both, analyze={"verdicts": VERDICTS}) == 0.75


def test_proportion_of_plain_items_and_of_booleans():
    step = proportion(items_field="judge_output.flags", key=None, equals=True)
    assert call(step, judge_output={"flags": [True, False, True, 1]}) == 0.5


def test_proportion_empty_list_is_not_scorable_or_the_configured_value():
    empty = call(proportion(), analyze={"verdicts": []})
    assert isinstance(empty, NotScorable)
    assert empty.reason == "proportion: step2.verdicts has no items to count"
    assert call(proportion(if_empty=1.0), analyze={"verdicts": []}) == 1.0


def test_proportion_errors_name_the_item_and_the_field():
    with pytest.raises(BuiltinStepError) as caught:
        call(proportion(), analyze={"verdicts": [{"verdict": "yes"}, {"label": "no"}]})
    assert "item 1 of 'step2.verdicts' has no 'verdict' (its keys: label)" in str(caught.value)
    with pytest.raises(BuiltinStepError, match="should be a list"):
        call(proportion(), analyze={"verdicts": "yes"})


async def test_proportion_over_judge_verdicts(fake_judge):
    fake_judge.reply({"verdicts": VERDICTS[:3]})
    scorer = (
        create_scorer(id="faithful", description="faithfulness", judge=judge(fake_judge))
        .analyze(
            PromptStep(
                description="Give a verdict per statement.",
                create_prompt=lambda run: f"Statements of: {run.output}",
                output_schema=VERDICTS_SCHEMA,
            )
        )
        .generate_score(proportion())
    )
    result = await scorer.run(output="Refunds take 5-7 days; returns are free; gift cards expire.")
    assert result.score == pytest.approx(2 / 3)
