"""The tool calls of a trace are counted as the agent scorers count them: the trace list and
the span tree say the same number as the scorer's tool calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorer_runtime.agent import extract_tool_calls
from scorer_runtime.traces import (
    ToolCallCount,
    count_tool_calls,
    read_trace_file,
    trace_to_agent_run,
)
from scorer_runtime.traces.targets import AgentRunTarget

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.mark.parametrize(
    ("name", "trace_id", "expected"),
    [
        # 3 tool spans, and one call the model asked for whose tool left no span.
        ("support_agent.otlp.jsonl", "5b8aa5a2d2c872e8321cf37308d69df2", ToolCallCount(3, 1)),
        ("support_agent.otlp.jsonl", "0af7651916cd43dd8448eb211c80319c", ToolCallCount(0, 0)),
        ("weather.mastra.json", "4bf92f3577b34da6a3ce929d0e0e4736", ToolCallCount(2, 0)),
        ("weather.otlp.json", "4bf92f3577b34da6a3ce929d0e0e4736", ToolCallCount(2, 0)),
    ],
)
def test_the_count_is_the_scorers_count(name, trace_id, expected):
    (trace,) = [t for t in read_trace_file(FIXTURES / name).traces if t.trace_id == trace_id]
    count = count_tool_calls(trace)
    assert count == expected
    run = trace_to_agent_run(trace)
    assert isinstance(run, AgentRunTarget)
    assert len(extract_tool_calls(run.output).tool_call_infos) == count.total


def test_a_trace_without_model_or_tool_spans_has_no_tool_call():
    trace = read_trace_file(FIXTURES / "http_only.otlp.json").traces[0]
    assert count_tool_calls(trace) == ToolCallCount(0, 0)
    assert count_tool_calls(trace).total == 0
