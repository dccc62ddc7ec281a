"""The pipeline with function steps only: order, keyword injection, results, errors."""

from __future__ import annotations

import asyncio
import math

import pytest

from scorer_runtime import (
    ScorerDefinitionError,
    ScorerRun,
    ScorerRunError,
    StepResults,
    create_scorer,
    not_scorable,
)


def _four_step():
    return (
        create_scorer(id="len", description="length")
        .preprocess(lambda run: {"words": run.output.split()})
        .analyze(lambda results: len(results.preprocess_step_result["words"]))
        .generate_score(lambda results: min(1.0, results.analyze_step_result / 4))
        .generate_reason(lambda score, results: f"{results.analyze_step_result} words -> {score}")
    )


def test_four_steps_run_in_order_and_fill_the_result():
    result = _four_step().run_sync(input="q", output="one two three", run_id="r1", tag="x")
    assert result.run_id == "r1"
    assert result.preprocess_step_result == {"words": ["one", "two", "three"]}
    assert result.analyze_step_result == 3
    assert result.score == 0.75
    assert result.reason == "3 words -> 0.75"
    assert result.input == "q"
    assert result.output == "one two three"
    assert result.extra == {"tag": "x"}
    assert result.judge == {}
    assert result.preprocess_prompt is None


async def test_async_run_matches_run_sync():
    scorer = _four_step()
    a = await scorer.run(output="a b", run_id="same")
    b = scorer.run_sync(output="a b", run_id="same")
    assert a.to_dict() == b.to_dict()


async def test_async_steps_are_awaited():
    async def score(run):
        await asyncio.sleep(0)
        return 0.5

    async def reason(score):
        return f"got {score}"

    scorer = create_scorer(id="a", description="d").generate_score(score).generate_reason(reason)
    result = await scorer.run(output="x")
    assert (result.score, result.reason) == (0.5, "got 0.5")
    assert scorer.run_sync(output="x").score == 0.5


def test_run_sync_works_inside_a_running_event_loop():
    async def score(run):
        await asyncio.sleep(0)
        return 1

    scorer = create_scorer(id="a", description="d").generate_score(score)

    async def main():
        return scorer.run_sync(output="x")  # e.g. Streamlit or a notebook

    assert asyncio.run(main()).score == 1.0


def test_sync_function_returning_an_awaitable_is_awaited_by_run_sync():
    async def later():
        await asyncio.sleep(0)
        return 0.25

    scorer = create_scorer(id="a", description="d").generate_score(lambda: later())
    assert scorer.run_sync(output="x").score == 0.25


def test_steps_receive_only_the_keywords_they_declare():
    seen = {}

    def pre(run):
        seen["pre_run"] = run
        return 1

    def analyze(results, **kwargs):
        seen["analyze_kwargs"] = set(kwargs)
        seen["analyze_results"] = results
        return 2

    def score():
        return 1

    def reason(run, results, score):
        seen["reason"] = (results, score)
        return "ok"

    scorer = (
        create_scorer(id="k", description="d")
        .preprocess(pre)
        .analyze(analyze)
        .generate_score(score)
        .generate_reason(reason)
    )
    scorer.run_sync(output="o", ground_truth="g", request_context={"user": "u"})
    run = seen["pre_run"]
    assert isinstance(run, ScorerRun)
    assert (run.output, run.ground_truth, run.request_context) == ("o", "g", {"user": "u"})
    assert seen["analyze_kwargs"] == {"run"}
    assert seen["analyze_results"] == StepResults(preprocess_step_result=1)
    assert seen["reason"] == (StepResults(1, 2, 1.0), 1.0)


def test_extra_keys_are_readable_on_the_run():
    scorer = create_scorer(id="x", description="d").generate_score(
        lambda run: run.weight * (run.extra["bonus"] + 1)
    )
    result = scorer.run_sync(output="o", weight=0.5, bonus=1)
    assert result.score == 1.0
    assert result.to_dict()["weight"] == 0.5

    with pytest.raises(ScorerRunError, match="no field or extra key 'missing'"):
        create_scorer(id="x", description="d").generate_score(lambda run: run.missing).run_sync(
            output="o"
        )


def test_a_step_parameter_that_cannot_be_filled_is_a_definition_error():
    def bad(run, context):
        return 1

    with pytest.raises(ScorerDefinitionError, match="'context' that cannot be filled"):
        create_scorer(id="x", description="d").generate_score(bad)


def test_score_is_not_offered_to_steps_other_than_generate_reason():
    with pytest.raises(ScorerDefinitionError, match="'score'"):
        create_scorer(id="x", description="d").analyze(lambda score: score)


def test_scorer_is_immutable_and_chaining_returns_new_scorers():
    base = create_scorer(id="x", description="d")
    with_score = base.generate_score(lambda: 1)
    assert base.steps == ()
    assert len(with_score.steps) == 1
    with pytest.raises(AttributeError):
        base.id = "y"


def test_name_defaults_to_id_and_id_is_required():
    assert create_scorer(id="tone", description="d").name == "tone"
    assert create_scorer(id="tone", description="d", name="Tone").name == "Tone"
    with pytest.raises(ScorerDefinitionError, match="needs an id"):
        create_scorer(id="", description="d")
    with pytest.raises(TypeError):
        create_scorer(description="d")  # type: ignore[call-overload]


def test_running_without_generate_score_names_the_scorer():
    scorer = create_scorer(id="no-score", description="d").preprocess(lambda: 1)
    with pytest.raises(ScorerDefinitionError, match="'no-score' has no generate_score"):
        scorer.run_sync(output="x")


def test_duplicate_steps_and_score_after_reason_are_rejected():
    scorer = create_scorer(id="x", description="d").generate_score(lambda: 1)
    with pytest.raises(ScorerDefinitionError, match="already has a generate_score"):
        scorer.generate_score(lambda: 1)
    with pytest.raises(ScorerDefinitionError, match="before generate_reason"):
        create_scorer(id="x", description="d").generate_reason(lambda: "r").generate_score(
            lambda: 1
        )


@pytest.mark.parametrize("bad", [True, "0.5", None, math.nan, math.inf, [1]])
def test_score_must_be_a_finite_number(bad):
    scorer = create_scorer(id="x", description="d").generate_score(lambda: bad)
    with pytest.raises(ScorerRunError, match="generate_score must return a finite number") as e:
        scorer.run_sync(output="o")
    assert e.value.failed_step == "generate_score"


def test_integer_scores_become_floats():
    result = create_scorer(id="x", description="d").generate_score(lambda: 1).run_sync(output="")
    assert result.score == 1.0
    assert isinstance(result.score, float)


def test_reason_must_be_text():
    scorer = (
        create_scorer(id="x", description="d").generate_score(lambda: 1).generate_reason(lambda: 42)
    )
    with pytest.raises(ScorerRunError, match="generate_reason must return text"):
        scorer.run_sync(output="o")


def test_not_scorable_stops_the_pipeline():
    calls = []
    scorer = (
        create_scorer(id="ns", description="d")
        .preprocess(lambda run: not_scorable("no answer") if not run.output else run.output)
        .generate_score(lambda: calls.append("score") or 1)
    )
    result = scorer.run_sync(output="")
    assert calls == []
    assert result.score is None
    assert not result.scored
    assert result.not_scorable is not None
    assert (result.not_scorable.step, result.not_scorable.reason) == ("preprocess", "no answer")
    assert result.to_dict()["not_scorable"] == {"step": "preprocess", "reason": "no answer"}
    assert scorer.run_sync(output="text").score == 1.0


def test_a_failing_step_raises_scorer_run_error_with_the_partial_result():
    def analyze(results):
        raise KeyError("score")

    scorer = (
        create_scorer(id="boom", description="d")
        .preprocess(lambda: "pre")
        .analyze(analyze)
        .generate_score(lambda: 1)
    )
    with pytest.raises(ScorerRunError) as caught:
        scorer.run_sync(output="o", run_id="r9")
    err = caught.value
    assert err.failed_step == "analyze"
    assert err.completed_steps == ("preprocess",)
    assert err.scorer_id == "boom"
    assert "'boom'" in str(err)
    assert "analyze" in str(err)
    assert "KeyError" in str(err)
    assert isinstance(err.__cause__, KeyError)
    assert err.result.preprocess_step_result == "pre"
    assert err.result.run_id == "r9"
    assert err.result.score is None


def test_prepare_run_reshapes_the_run_and_the_result_echoes_it():
    scorer = create_scorer(
        id="p",
        description="d",
        prepare_run=lambda run: run.replace(output=run.output.strip(), ground_truth=None),
    ).generate_score(lambda run: float(run.output == "hi"))
    result = scorer.run_sync(output="  hi  ", ground_truth="secret")
    assert result.score == 1.0
    assert result.output == "hi"
    assert result.ground_truth is None


async def test_async_prepare_run_and_dict_return():
    async def prepare(run):
        return {"output": run.output.upper(), "note": "prepared"}

    scorer = create_scorer(id="p", description="d", prepare_run=prepare).generate_score(
        lambda run: float(run.output == "HI" and run.note == "prepared")
    )
    result = await scorer.run(output="hi")
    assert result.score == 1.0
    assert result.extra == {"note": "prepared"}


def test_prepare_run_errors_propagate_unchanged():
    class Mine(Exception):
        pass

    def prepare(run):
        raise Mine("mine")

    scorer = create_scorer(id="p", description="d", prepare_run=prepare).generate_score(lambda: 1)
    with pytest.raises(Mine):
        scorer.run_sync(output="x")


def test_prepare_run_is_not_called_when_generate_score_is_missing():
    called = []
    scorer = create_scorer(id="p", description="d", prepare_run=lambda run: called.append(1))
    with pytest.raises(ScorerDefinitionError):
        scorer.run_sync(output="x")
    assert called == []


def test_to_dict_camel_renames_result_keys_only():
    scorer = (
        create_scorer(id="c", description="d")
        .preprocess(lambda run: {"snake_key": 1})
        .generate_score(lambda: 1)
    )
    result = scorer.run_sync(
        output={"some_field": 1}, ground_truth={"gt_key": 2}, run_id="r", my_extra={"a_b": 3}
    )
    camel = result.to_dict(camel=True)
    assert camel["runId"] == "r"
    assert camel["preprocessStepResult"] == {"snake_key": 1}
    assert camel["groundTruth"] == {"gt_key": 2}
    assert camel["output"] == {"some_field": 1}
    assert camel["my_extra"] == {"a_b": 3}
    assert "run_id" not in camel
    snake = result.to_dict()
    assert snake["run_id"] == "r"
    assert snake["generate_score_prompt"] is None


def test_run_ids_are_generated_and_unique():
    scorer = create_scorer(id="u", description="d").generate_score(lambda: 1)
    ids = {scorer.run_sync(output="x").run_id for _ in range(5)}
    assert len(ids) == 5
