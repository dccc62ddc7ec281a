"""The trace model: spans, the tree helpers of Trace, and plain-data round trips."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from scorer_runtime.traces import Span, Trace, TraceImportError, group_traces

from .conftest import WEATHER_TRACE


def _span(span_id: str, parent: str | None = None, second: int = 0) -> Span:
    return Span(
        trace_id="t",
        span_id=span_id,
        parent_span_id=parent,
        name=span_id,
        type="other",
        start_time=datetime(2025, 1, 1, 10, 0, second, tzinfo=UTC),
    )


def test_walk_is_depth_first_with_siblings_by_start_time(weather_otlp):
    names = [s.name for s in weather_otlp.walk()]
    assert names == [
        "POST /api/chat",
        "invoke_agent weather-agent",
        "chat gpt-4o-mini",
        "execute_tool geocode",
        "chat gpt-4o-mini",
        "execute_tool get_weather",
        "chat gpt-4o-mini",
    ]


def test_roots_children_parent_and_descendants(weather_otlp):
    (root,) = weather_otlp.roots
    assert root.name == "POST /api/chat"
    (agent,) = weather_otlp.children(root)
    assert weather_otlp.parent(agent) == root
    assert weather_otlp.parent(root) is None
    kids = weather_otlp.children(agent.span_id)
    assert [k.type for k in kids] == [
        "model_generation",
        "tool_call",
        "model_generation",
        "tool_call",
        "model_generation",
    ]
    assert [s.span_id for s in weather_otlp.descendants(root)] == [
        s.span_id for s in list(weather_otlp.walk())[1:]
    ]
    assert len(weather_otlp.of_type("tool_call")) == 2
    assert weather_otlp.trace_id == WEATHER_TRACE


def test_walk_from_a_span_and_lookup_errors(weather_otlp):
    agent = weather_otlp.of_type("agent_run")[0]
    assert next(weather_otlp.walk(agent.span_id)) == agent
    assert weather_otlp.get("0000000000000000") is None
    with pytest.raises(KeyError, match=f"trace '{WEATHER_TRACE}' has no span 'nope'"):
        weather_otlp.span("nope")


def test_a_span_whose_parent_is_missing_is_a_root():
    trace = Trace("t", (_span("b", parent="gone", second=2), _span("a", second=1)))
    assert [s.span_id for s in trace.roots] == ["a", "b"]
    assert [s.span_id for s in trace.spans] == ["a", "b"]  # ordered by start time


def test_start_end_and_duration(weather_otlp):
    assert weather_otlp.start_time == datetime(2025, 6, 12, 9, 15, 2, 80000, tzinfo=UTC)
    assert weather_otlp.end_time == datetime(2025, 6, 12, 9, 15, 6, 960000, tzinfo=UTC)
    tool = weather_otlp.of_type("tool_call")[0]
    assert tool.duration_ms == pytest.approx(210.0)
    assert _span("x").duration_ms is None


def test_a_trace_rejects_foreign_duplicate_and_missing_spans():
    with pytest.raises(ValueError, match="belongs to trace 't', not 'u'"):
        Trace("u", (_span("a"),))
    with pytest.raises(ValueError, match="span id 'a' appears twice"):
        Trace("t", (_span("a"), replace(_span("a"), name="other")))
    with pytest.raises(ValueError, match="has no spans"):
        Trace("t", ())


def test_spans_and_traces_round_trip_through_plain_json(weather_otlp, weather_mastra):
    for trace in (weather_otlp, weather_mastra):
        data = json.loads(json.dumps(trace.to_dict()))
        again = Trace.from_dict(data)
        assert again == trace
        assert all(s.start_time.tzinfo is not None for s in again.spans)


def test_group_traces_groups_by_trace_id_in_order_of_appearance():
    spans = [_span("a"), replace(_span("b"), trace_id="u"), _span("c", parent="a")]
    traces = group_traces(spans)
    assert [(t.trace_id, [s.span_id for s in t.spans]) for t in traces] == [
        ("t", ["a", "c"]),
        ("u", ["b"]),
    ]


def test_group_traces_reports_conflicting_duplicates_and_cycles():
    spans = [_span("a"), replace(_span("a"), name="changed"), _span("x", "y"), _span("y", "x")]
    with pytest.raises(TraceImportError) as caught:
        group_traces(spans)
    messages = [str(p) for p in caught.value.problems]
    assert messages == [
        "span 'a': span id appears twice in trace 't' with different content; "
        "the second copy was left out",
        "span 'x': its parent chain loops back to itself, so it has no root; check parentSpanId",
        "span 'y': its parent chain loops back to itself, so it has no root; check parentSpanId",
    ]


def test_the_same_span_twice_is_harmless():
    (trace,) = group_traces([_span("a"), _span("a")])
    assert len(trace.spans) == 1
