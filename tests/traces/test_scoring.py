"""score_traces: agent scorers on imported traces, one outcome per target, failures contained."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import pytest

from scorer_runtime import Judge, PromptStep, create_scorer, not_scorable
from scorer_runtime.agent import (
    extract_tool_calls,
    get_last_assistant_message,
    get_tool_results,
    get_user_message_from_run_input,
)
from scorer_runtime.traces import (
    ScorerRegistry,
    Trace,
    UnknownScorerError,
    sample_trace_ids,
    score_traces,
    score_traces_sync,
)

from .conftest import HTTP_TRACE, SUMMARY_TRACE, SUPPORT_TRACE, WEATHER_TRACE

VERDICT_SCHEMA = {
    "type": "object",
    "properties": {
        "answers_question": {"type": "boolean"},
        "uses_tool_results": {"type": "boolean"},
    },
    "required": ["answers_question", "uses_tool_results"],
}


def _ok(result: object) -> bool:
    is_error_text = isinstance(result, str) and result.startswith("Error")
    return not is_error_text and not (isinstance(result, dict) and "error" in result)


def _tools_succeeded(run):
    calls = extract_tool_calls(run.output).tool_call_infos
    if not calls:
        return not_scorable("the agent called no tools")
    return {"calls": len(calls), "ok": sum(_ok(c.result) for c in calls)}


tool_success = (
    create_scorer(id="tool-success", description="Share of tool calls that worked", type="agent")
    .preprocess(_tools_succeeded)
    .generate_score(
        lambda results: (
            results.preprocess_step_result["ok"] / results.preprocess_step_result["calls"]
        )
    )
)


def _judge(server) -> Judge:
    return Judge(
        model="openai/fake-judge",
        api_base=server.base_url,
        api_key="sk-test",
        instructions="You grade customer-facing agents.",
        json_prompt_injection="system",
        timeout_s=5,
    )


def _grounding_prompt(run) -> str:
    tools = "\n".join(
        f"- {c.tool_name}({json.dumps(c.args)}) -> {json.dumps(c.result)}"
        for c in get_tool_results(run.output)
    )
    return (
        f"User asked: {get_user_message_from_run_input(run.input)}\n"
        f"Tool results:\n{tools}\n"
        f"Agent answered: {get_last_assistant_message(run.output)}\n"
        "Does the answer address the question, using the tool results?"
    )


def grounding_scorer(server):
    return (
        create_scorer(
            id="grounding",
            description="Answer grounded in tools",
            type="agent",
            judge=_judge(server),
        )
        .analyze(
            PromptStep(
                description="Judge the answer",
                create_prompt=_grounding_prompt,
                output_schema=VERDICT_SCHEMA,
            )
        )
        .generate_score(
            lambda results: (
                (
                    results.analyze_step_result["answers_question"]
                    + results.analyze_step_result["uses_tool_results"]
                )
                / 2
            )
        )
    )


def _all(weather_otlp, weather_mastra, support_traces, http_only) -> list[Trace]:
    return [weather_otlp, weather_mastra, *support_traces, http_only]


async def test_a_function_scorer_over_every_fixture(
    weather_otlp, weather_mastra, support_traces, http_only
):
    traces = _all(weather_otlp, weather_mastra, support_traces, http_only)
    outcomes = await score_traces(ScorerRegistry([tool_success]), "tool-success", traces)
    assert [(o.trace_id, o.status, o.score) for o in outcomes] == [
        (WEATHER_TRACE, "scored", 1.0),
        (WEATHER_TRACE, "scored", 1.0),
        (SUPPORT_TRACE, "scored", 0.75),  # one refund attempt failed, its retry worked
        (SUMMARY_TRACE, "not_scorable", None),
        (HTTP_TRACE, "not_scorable", None),
    ]
    summary, http = outcomes[3], outcomes[4]
    assert summary.reason == "preprocess step: the agent called no tools"
    assert summary.result is not None
    assert summary.result.not_scorable is not None
    assert http.reason.startswith("the trace has no agent_run or model_generation span")
    assert http.result is None
    assert http.span_id is None
    scored = outcomes[2]
    assert scored.scorer_id == "tool-success"
    assert scored.span_id == "051581bf3cb55c13"
    # The result carries the trace and span ids, for storing the score linked to them.
    assert (scored.result.extra["trace_id"], scored.result.extra["span_id"]) == (
        SUPPORT_TRACE,
        "051581bf3cb55c13",
    )
    assert json.loads(json.dumps(scored.to_dict(camel=True)))["result"]["runId"]


async def test_a_prompt_scorer_against_the_judge(
    fake_judge, weather_otlp, weather_mastra, support_traces
):
    fake_judge.reply({"answers_question": True, "uses_tool_results": True}, when="Lyon")
    fake_judge.reply({"answers_question": True, "uses_tool_results": False}, when="order 4821")
    traces = [weather_otlp, weather_mastra, support_traces[0]]
    outcomes = await score_traces(grounding_scorer(fake_judge), None, traces, concurrency=2)
    assert [(o.status, o.score) for o in outcomes] == [
        ("scored", 1.0),
        ("scored", 1.0),
        ("scored", 0.5),
    ]
    assert fake_judge.request_count == 3
    prompts = sorted(r.last_user_content for r in fake_judge.chat_requests)
    weather_prompt = next(p for p in prompts if "Lyon" in p)
    assert '- geocode({"query": "Lyon, France"}) -> {"name": "Lyon"' in weather_prompt
    assert "Agent answered: Tomorrow (Friday 13 June) Lyon will be cool and wet" in weather_prompt
    # The same conversation in both formats gives the judge the same prompt.
    assert outcomes[0].result.analyze_prompt == outcomes[1].result.analyze_prompt
    assert outcomes[2].result.judge["analyze"].parsed_output == {
        "answers_question": True,
        "uses_tool_results": False,
    }


async def test_a_judge_failure_fails_one_target_not_the_batch(
    fake_judge, weather_mastra, support_traces
):
    fake_judge.fault(status=401, when="order 4821", times=None)
    fake_judge.reply({"answers_question": True, "uses_tool_results": True})
    outcomes = await score_traces(
        grounding_scorer(fake_judge), "grounding", [support_traces[0], weather_mastra]
    )
    failed, scored = outcomes
    assert (failed.status, failed.error_kind) == ("failed", "auth")
    assert failed.error.startswith("Scorer 'grounding' failed in its analyze step")
    assert failed.result is not None
    assert failed.result.judge["analyze"].status == "failed"
    assert (scored.status, scored.score) == ("scored", 1.0)


async def test_a_step_that_raises_and_a_prepare_run_that_raises(weather_mastra, support_traces):
    def explode(run):
        if "order 4821" in get_user_message_from_run_input(run.input):
            raise RuntimeError("no refund policy configured")
        return 1.0

    fragile = create_scorer(id="fragile", description="d", type="agent").generate_score(explode)
    failed, scored = await score_traces(fragile, "fragile", [support_traces[0], weather_mastra])
    assert (failed.status, failed.error_kind) == ("failed", "step_error")
    assert failed.error == (
        "Scorer 'fragile' failed in its generate_score step: "
        "RuntimeError: no refund policy configured"
    )
    assert scored.score == 1.0

    def bad_prepare(run):
        raise ValueError("redaction rules missing")

    broken = create_scorer(id="broken", description="d", type="agent", prepare_run=bad_prepare)
    (outcome,) = await score_traces(broken.generate_score(lambda: 1.0), None, [weather_mastra])
    assert (outcome.status, outcome.error_kind, outcome.result) == ("failed", "run_error", None)
    assert outcome.error == "Scorer 'broken' could not run: ValueError: redaction rules missing"


async def test_concurrency_is_bounded_and_order_kept(weather_mastra):
    running = peak = 0

    async def slow(run):
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.02)
        running -= 1
        return 1.0

    scorer = create_scorer(id="slow", description="d", type="agent").generate_score(slow)
    copies = [_copy(weather_mastra, f"{n:032x}") for n in range(12)]
    seen = []
    outcomes = await score_traces(scorer, None, copies, concurrency=3, on_outcome=seen.append)
    assert peak == 3
    assert [o.trace_id for o in outcomes] == [t.trace_id for t in copies]
    assert sorted(o.trace_id for o in seen) == sorted(t.trace_id for t in copies)


def _copy(trace: Trace, trace_id: str) -> Trace:
    return Trace(trace_id, tuple(replace(s, trace_id=trace_id) for s in trace.spans))


async def test_scorers_sampling_at_the_same_ratio_pick_the_same_traces(weather_mastra):
    copies = [_copy(weather_mastra, f"{n * 104729:032x}") for n in range(60)]
    registry = ScorerRegistry(
        [
            tool_success,
            create_scorer(id="any", description="d", type="agent").generate_score(lambda: 0.5),
        ]
    )
    first = await score_traces(registry, "tool-success", copies, sample=0.3)
    second = await score_traces(registry, "any", copies, sample=0.3)
    picked = [o.trace_id for o in first]
    assert picked == [o.trace_id for o in second]
    assert picked == sample_trace_ids([t.trace_id for t in copies], 0.3)
    assert 0 < len(picked) < len(copies)


async def test_a_given_span_and_a_scorer_that_is_not_an_agent_scorer(weather_mastra):
    outcomes = await score_traces(tool_success, None, [(weather_mastra, "00f067aa0ba902b7")])
    assert (outcomes[0].span_id, outcomes[0].score) == ("00f067aa0ba902b7", 1.0)
    plain = create_scorer(id="has-text", description="d").generate_score(
        lambda run: 1.0 if run.output["text"].startswith("Tomorrow") else 0.0
    )
    (outcome,) = await score_traces(plain, None, [weather_mastra])
    assert (outcome.score, outcome.result.input) == (
        1.0,
        weather_mastra.of_type("agent_run")[0].input,
    )


def test_the_sync_wrapper(weather_otlp, support_traces):
    outcomes = score_traces_sync(tool_success, "tool-success", [weather_otlp, *support_traces])
    assert [o.status for o in outcomes] == ["scored", "scored", "not_scorable"]


async def test_the_sync_wrapper_inside_a_running_event_loop(weather_otlp):
    (outcome,) = score_traces_sync(tool_success, None, [weather_otlp])
    assert outcome.score == 1.0


async def test_bad_arguments_are_refused_with_clear_errors(weather_otlp):
    registry = ScorerRegistry([tool_success])
    with pytest.raises(
        ValueError, match="pass the id of the scorer to run; registered scorers: tool-success"
    ):
        await score_traces(registry, None, [weather_otlp])
    with pytest.raises(UnknownScorerError, match="no scorer 'tone'"):
        await score_traces(registry, "tone", [weather_otlp])
    with pytest.raises(ValueError, match="does not match the scorer given"):
        await score_traces(tool_success, "tone", [weather_otlp])
    with pytest.raises(ValueError, match="concurrency must be"):
        await score_traces(tool_success, None, [weather_otlp], concurrency=0)
    with pytest.raises(ValueError, match="sample must be"):
        await score_traces(tool_success, None, [weather_otlp], sample=2)
    with pytest.raises(TypeError, match=r"traces\[1\] must be a Trace"):
        await score_traces(tool_success, None, [weather_otlp, {"traceId": "x"}])
    with pytest.raises(TypeError, match="expected a ScorerRegistry or a scorer"):
        await score_traces("tool-success", None, [weather_otlp])
