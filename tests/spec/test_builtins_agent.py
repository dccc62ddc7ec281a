"""Agent built-ins on Mastra-shaped runs: tools called, not called, order, count, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorer_runtime import ScorerRun, StepResults, create_scorer
from scorer_runtime.results import NotScorable
from scorer_runtime.spec.builtins import (
    BuiltinStepError,
    max_tool_calls,
    no_tool_errors,
    tool_called,
    tool_not_called,
    tool_order,
)
from scorer_runtime.spec.registry import StepParamsError

DATASET = Path(__file__).parents[2] / "data" / "datasets" / "agent_tool_runs.jsonl"


def _tool(name, result=None, state="result", call_id=None):
    invocation = {"state": state, "toolCallId": call_id or f"id-{name}", "toolName": name}
    invocation["args"] = {}
    if state == "result":
        invocation["result"] = result
    return {"type": "tool-invocation", "toolInvocation": invocation}


def _output(*parts, text="Done."):
    return [
        {
            "role": "assistant",
            "content": {"format": 2, "parts": [*parts, {"type": "text", "text": text}]},
        }
    ]


def call(step, output, ground_truth=None):
    run = ScorerRun(input="q", output=output, run_id="r1", ground_truth=ground_truth)
    return step(run=run, results=StepResults())


def _rows():
    return [json.loads(line) for line in DATASET.read_text(encoding="utf-8").splitlines()]


def _row(tag):
    return next(r for r in _rows() if tag in r["tags"])


LOOKUP_THEN_REFUND = _output(
    _tool("lookup_order", {"status": "returned"}, call_id="a"),
    _tool("issue_refund", {"refundId": "R-1"}, call_id="b"),
)


def test_tool_called_and_min_times():
    assert call(tool_called(tool="issue_refund"), LOOKUP_THEN_REFUND) == 1.0
    assert call(tool_called(tool="cancel_order"), LOOKUP_THEN_REFUND) == 0.0
    assert call(tool_called(tool="lookup_order", min_times=2), LOOKUP_THEN_REFUND) == 0.0
    assert call(tool_called(tool="lookup_order"), "I answered without tools") == 0.0
    assert call(tool_called(tool="lookup_order"), None) == 0.0
    assert call(tool_called(tool="lookup_order"), []) == 0.0


def test_partial_calls_do_not_count_but_pending_calls_do():
    partial = _output(_tool("check_inventory", state="partial-call"))
    pending = _output(_tool("check_inventory", state="call"))
    assert call(tool_called(tool="check_inventory"), partial) == 0.0
    assert call(tool_called(tool="check_inventory"), pending) == 1.0


def test_tool_not_called():
    step = tool_not_called(tools=["issue_refund", "delete_account"])
    assert call(step, LOOKUP_THEN_REFUND) == 0.0
    assert call(step, _output(_tool("lookup_order"))) == 1.0
    assert call(step, "no tools") == 1.0


def test_tool_order_strict_and_subsequence():
    called = _output(
        _tool("lookup_order", call_id="1"),
        _tool("search_docs", call_id="2"),
        _tool("issue_refund", call_id="3"),
    )
    expected = ["lookup_order", "issue_refund"]
    assert call(tool_order(expected=expected), called) == 1.0
    assert call(tool_order(expected=expected, mode="strict"), called) == 0.0
    assert call(tool_order(expected=["issue_refund", "lookup_order"]), called) == 0.0
    assert call(tool_order(expected=expected, mode="strict"), LOOKUP_THEN_REFUND) == 1.0
    assert call(tool_order(expected=["lookup_order", "lookup_order"]), called) == 0.0


def test_tool_order_reads_the_expected_tools_from_ground_truth():
    assert call(tool_order(), LOOKUP_THEN_REFUND, ground_truth=["lookup_order"]) == 1.0
    strict = tool_order(mode="strict")
    assert call(strict, LOOKUP_THEN_REFUND, ground_truth=["lookup_order"]) == 0.0
    assert call(strict, "no tools", ground_truth=[]) == 1.0
    missing = call(tool_order(), LOOKUP_THEN_REFUND)
    assert isinstance(missing, NotScorable)
    assert missing.reason == "tool_order: there is no ground_truth to compare with"
    nested = tool_order(expected_field="ground_truth.tools")
    assert call(nested, LOOKUP_THEN_REFUND, ground_truth={"tools": ["issue_refund"]}) == 1.0


def test_tool_order_with_ground_truth_of_the_wrong_shape_says_what_to_do():
    with pytest.raises(BuiltinStepError, match="should be a list of tool names"):
        call(tool_order(), LOOKUP_THEN_REFUND, ground_truth="lookup_order")


def test_max_tool_calls_overall_and_per_tool():
    three_lookups = _output(*[_tool("lookup_order", call_id=str(i)) for i in range(3)])
    assert call(max_tool_calls(max_calls=3), three_lookups) == 1.0
    assert call(max_tool_calls(max_calls=2), three_lookups) == 0.0
    assert call(max_tool_calls(max_calls=0, tool="issue_refund"), three_lookups) == 1.0
    assert call(max_tool_calls(max_calls=0), "no tools") == 1.0
    with pytest.raises(StepParamsError, match="max_calls"):
        max_tool_calls(max_calls=-1)


def test_no_tool_errors_detects_error_objects_and_error_text():
    output = _output(
        _tool("lookup_order", {"status": "shipped"}, call_id="1"),
        _tool("get_shipping_status", "Error: carrier API timed out", call_id="2"),
        _tool("issue_refund", {"isError": True, "content": []}, call_id="3"),
        _tool("search_docs", {"error": None, "passages": []}, call_id="4"),
    )
    assert call(no_tool_errors(), output) == 0.0
    assert call(no_tool_errors(scoring="fraction"), output) == 0.5
    assert call(no_tool_errors(error_keys=[], error_prefixes=[]), output) == 1.0


def test_no_tool_errors_ignores_pending_calls_and_runs_without_tools():
    pending = _output(_tool("lookup_order", state="call"))
    assert call(no_tool_errors(scoring="fraction"), pending) == 1.0
    assert call(no_tool_errors(), "Hello!") == 1.0


def test_an_output_that_is_not_agent_shaped_is_a_clear_error():
    with pytest.raises(BuiltinStepError, match="'output' is not an agent output"):
        call(tool_called(tool="lookup_order"), {"not": "messages"})


# -- on the demo dataset, inside an agent scorer --------------------------------------------


def _agent_scorer(step):
    return create_scorer(id="tools", description="tool use", type="agent").generate_score(step)


def test_agent_scorer_on_demo_rows():
    order = _agent_scorer(tool_order(mode="strict"))
    correct = _row("correct")
    assert order.run_sync(**_run(correct)).score == 1.0
    assert order.run_sync(**_run(_row("wrong_tool"))).score == 0.0
    assert order.run_sync(**_run(_row("wrong_order"))).score == 0.0
    loose = _agent_scorer(tool_order())
    assert loose.run_sync(**_run(_row("extra_calls"))).score == 1.0
    errors = _agent_scorer(no_tool_errors())
    assert errors.run_sync(**_run(correct)).score == 1.0
    assert errors.run_sync(**_run(_row("tool_error"))).score == 0.0


def test_every_demo_row_scores_with_every_agent_check():
    steps = [
        tool_order(),
        tool_order(mode="strict"),
        no_tool_errors(scoring="fraction"),
        max_tool_calls(max_calls=3),
        tool_not_called(tools=["delete_account"]),
    ]
    for row in _rows():
        for step in steps:
            result = _agent_scorer(step).run_sync(**_run(row))
            assert result.scored, (row["tags"], step)
            assert 0.0 <= result.score <= 1.0, (row["tags"], step)


def _run(row):
    return {"input": row["input"], "output": row["output"], "ground_truth": row["ground_truth"]}
