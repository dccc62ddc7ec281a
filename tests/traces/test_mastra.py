"""Reading Mastra's exported AI spans: storage records, exported spans, JSON lines."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from scorer_runtime.traces import TraceImportError, parse_traces


def test_span_types_and_the_tree(weather_mastra):
    kinds = [(s.name, s.type, s.source_type) for s in weather_mastra.walk()]
    assert kinds == [
        ("agent run: 'weather-agent'", "agent_run", "agent_run"),
        ("llm: 'gpt-4o-mini'", "model_generation", "model_generation"),
        ("step: 0", "other", "model_step"),
        ("tool: 'geocode'", "tool_call", "tool_call"),
        ("step: 1", "other", "model_step"),
        ("tool: 'get_weather'", "tool_call", "tool_call"),
        ("step: 2", "other", "model_step"),
    ]
    assert {s.source for s in weather_mastra.spans} == {"mastra"}


def test_agent_model_and_tool_details(weather_mastra):
    agent, model = (
        weather_mastra.of_type("agent_run")[0],
        weather_mastra.of_type("model_generation")[0],
    )
    assert agent.gen_ai.agent_name == "Weather Agent"
    assert agent.gen_ai.system_instructions[0].startswith("You are a helpful travel weather")
    assert agent.start_time == datetime(2025, 6, 12, 9, 15, 2, 100000, tzinfo=UTC)
    assert agent.input == [
        {
            "role": "user",
            "content": "Lyon, tomorrow. What's the weather going to be, "
            "and should I pack an umbrella?",
        }
    ]
    assert agent.attributes["mastra.metadata"]["threadId"] == "thread-7f3a"
    assert agent.status == "ok"
    assert (model.gen_ai.model, model.gen_ai.input_tokens, model.gen_ai.output_tokens) == (
        "gpt-4o-mini",
        1046,
        113,
    )
    geocode, weather = weather_mastra.of_type("tool_call")
    # The call id comes from the attributes for one tool and from the metadata for the other.
    assert (geocode.gen_ai.tool_name, geocode.gen_ai.tool_call_id) == ("geocode", "call_geo_1")
    assert (weather.gen_ai.tool_name, weather.gen_ai.tool_call_id) == ("get_weather", "call_wx_2")
    assert weather.input == {"lat": 45.764, "lon": 4.8357, "date": "2025-06-13"}


def test_the_exported_span_shape_as_a_list():
    spans = [
        {
            "id": "s1",
            "traceId": "t1",
            "name": "tool: 'search_docs'",
            "type": "tool_call",
            "startTime": 1749719702100,
            "endTime": 1749719702400,
            "input": {"q": "refund policy"},
            "errorInfo": {"message": "index unavailable", "id": "TOOL_FAILED"},
            "isEvent": False,
        }
    ]
    (trace,) = parse_traces(json.dumps(spans))
    span = trace.spans[0]
    assert span.gen_ai.tool_name == "search_docs"  # from the span name
    assert (span.status, span.error) == ("error", "index unavailable")
    assert span.start_time == datetime(2025, 6, 12, 9, 15, 2, 100000, tzinfo=UTC)
    assert span.duration_ms == pytest.approx(300)


def test_one_record_per_line(mastra_span):
    lines = [
        mastra_span("a", "agent_run", "00:01", end="00:09"),
        mastra_span("m", "model_generation", "00:02", end="00:08", parentSpanId="a"),
    ]
    (trace,) = parse_traces("\n".join(json.dumps(r) for r in lines))
    assert [s.span_id for s in trace.walk()] == ["a", "m"]


def test_times_with_offsets_and_without(mastra_span):
    record = mastra_span("a", "agent_run", "00:01")
    record["startedAt"] = "2025-01-01T12:00:01+02:00"
    record["endedAt"] = "2025-01-01T10:00:02"  # no offset: read as UTC
    (trace,) = parse_traces(json.dumps([record]))
    span = trace.spans[0]
    assert span.start_time == datetime(2025, 1, 1, 12, 0, 1, tzinfo=timezone(timedelta(hours=2)))
    assert span.end_time == datetime(2025, 1, 1, 10, 0, 2, tzinfo=UTC)
    assert span.duration_ms == 1000


def test_an_event_span_has_no_end(mastra_span):
    record = mastra_span("e", "generic", "00:01", isEvent=True)
    record["endedAt"] = None
    (trace,) = parse_traces(json.dumps([record]))
    assert (trace.spans[0].end_time, trace.spans[0].status, trace.spans[0].type) == (
        None,
        "unset",
        "other",
    )


def test_bad_records_are_all_reported_with_their_path(mastra_span):
    good = mastra_span("ok", "agent_run", "00:01")
    no_start = mastra_span("s1", "tool_call", "00:02")
    del no_start["startedAt"]
    bad_time = mastra_span("s2", "tool_call", "00:03")
    bad_time["startedAt"] = "yesterday"
    bad_attributes = mastra_span("s3", "tool_call", "00:04", attributes=["not", "an", "object"])
    no_id = mastra_span("", "tool_call", "00:05")
    document = json.dumps(
        {"traceId": "t1", "spans": [good, no_start, bad_time, bad_attributes, no_id]}
    )
    with pytest.raises(TraceImportError) as caught:
        parse_traces(document, source="export.json")
    assert [str(p) for p in caught.value.problems] == [
        "span 's1': startedAt is missing (at spans[1])",
        "span 's2': startedAt must be an ISO 8601 time such as 2025-03-01T10:00:00Z; "
        "got 'yesterday' (at spans[2])",
        "span 's3': attributes must be an object; got list (at spans[3])",
        "spanId is missing (at spans[4])",
    ]
    assert str(caught.value).startswith("Cannot import traces from export.json: 4 problems:\n")
