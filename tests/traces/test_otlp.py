"""Reading OTLP JSON: ids, times, AnyValue attributes, GenAI conventions, JSON lines."""

from __future__ import annotations

import base64
import json
import math
from datetime import UTC, datetime
from typing import Any

import pytest

from scorer_runtime.traces import load_traces, parse_traces

from .conftest import FIXTURES, SUMMARY_TRACE, SUPPORT_TRACE


def _doc(*spans: dict[str, Any], resource: list[Any] | None = None) -> str:
    scope = {"scope": {"name": "test"}, "spans": list(spans)}
    return json.dumps(
        {"resourceSpans": [{"resource": {"attributes": resource or []}, "scopeSpans": [scope]}]}
    )


def _span(**fields: Any) -> dict[str, Any]:
    return {
        "traceId": "5b8aa5a2d2c872e8321cf37308d69df2",
        "spanId": "051581bf3cb55c13",
        "name": "work",
        "kind": 1,
        "startTimeUnixNano": "1749719702100000000",
        "endTimeUnixNano": "1749719702350123456",
        **fields,
    }


def _attr(key: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "value": value}


def test_ids_times_and_the_span_tree(weather_otlp):
    agent = weather_otlp.of_type("agent_run")[0]
    assert agent.span_id == "b7ad6b7169203331"
    assert agent.parent_span_id == "e457b5a2e4d86bd1"
    assert agent.start_time == datetime(2025, 6, 12, 9, 15, 2, 100000, tzinfo=UTC)
    assert agent.end_time == datetime(2025, 6, 12, 9, 15, 6, 900000, tzinfo=UTC)
    assert agent.source == "otlp"
    assert agent.source_type == "invoke_agent"
    assert agent.resource["service.name"] == "travel-assistant"
    root = weather_otlp.roots[0]
    assert root.parent_span_id is None  # "" in the file means no parent
    assert root.attributes["http.response.status_code"] == 200  # intValue written as a string


def test_genai_conventions_give_types_messages_and_details(weather_otlp):
    chat = weather_otlp.of_type("model_generation")[0]
    assert chat.gen_ai.model == "gpt-4o-mini"
    assert (chat.gen_ai.input_tokens, chat.gen_ai.output_tokens) == (212, 18)
    assert chat.gen_ai.system_instructions[0].startswith("You are a helpful travel weather")
    assert chat.input[-1] == {
        "role": "user",
        "parts": [
            {
                "type": "text",
                "content": "Lyon, tomorrow. What's the weather going to be, "
                "and should I pack an umbrella?",
            }
        ],
    }
    assert chat.output[0]["parts"][0]["name"] == "geocode"
    assert chat.attributes["gen_ai.request.temperature"] == 0.2
    assert chat.attributes["gen_ai.response.finish_reasons"] == ["tool_call"]
    tool = weather_otlp.of_type("tool_call")[0]
    assert (tool.gen_ai.tool_name, tool.gen_ai.tool_call_id) == ("geocode", "call_geo_1")
    assert tool.input == {"query": "Lyon, France"}  # JSON text decoded
    assert tool.output == {"name": "Lyon", "country": "FR", "lat": 45.764, "lon": 4.8357}
    agent = weather_otlp.of_type("agent_run")[0]
    assert agent.gen_ai.agent_name == "weather-agent"


def test_json_lines_batches_are_joined_into_traces(support_traces):
    # The file exporter wrote the support trace in two batches (lines); a second trace
    # (a plain model call) shares the second line.
    assert [t.trace_id for t in support_traces] == [SUPPORT_TRACE, SUMMARY_TRACE]
    support, summary = support_traces
    assert len(support.spans) == 9
    assert support.roots[0].name == "invoke_agent support-agent"  # its parent was not exported
    assert summary.spans[0].resource["service.name"] == "ticket-summariser"


def test_a_failed_span_keeps_status_and_error(support_traces):
    failed = [s for s in support_traces[0].spans if s.status == "error"]
    assert [(s.name, s.error, s.output) for s in failed] == [
        ("execute_tool issue_refund", "payment gateway timeout (upstream 504)", None)
    ]


def test_every_any_value_kind_is_decoded():
    attributes = [
        _attr("s", {"stringValue": "x"}),
        _attr("b", {"boolValue": True}),
        _attr("i", {"intValue": "9007199254740993"}),
        _attr("d", {"doubleValue": 0.5}),
        _attr("nan", {"doubleValue": "NaN"}),
        _attr("a", {"arrayValue": {"values": [{"stringValue": "p"}, {"intValue": 2}]}}),
        _attr("kv", {"kvlistValue": {"values": [_attr("k", {"boolValue": False})]}}),
        _attr("bytes", {"bytesValue": "AQID"}),
        _attr("empty", {}),
    ]
    (trace,) = parse_traces(_doc(_span(attributes=attributes)))
    got = dict(trace.spans[0].attributes)
    assert math.isnan(got.pop("nan"))
    assert got == {
        "s": "x",
        "b": True,
        "i": 9007199254740993,
        "d": 0.5,
        "a": ["p", 2],
        "kv": {"k": False},
        "bytes": "AQID",
        "empty": None,
    }


def test_nanosecond_times_keep_microseconds():
    (trace,) = parse_traces(_doc(_span(endTimeUnixNano=1749719702350123456)))
    assert trace.spans[0].end_time == datetime(2025, 6, 12, 9, 15, 2, 350123, tzinfo=UTC)


def test_base64_ids_from_protobuf_json_are_read_as_hex():
    trace_id = bytes.fromhex("5b8aa5a2d2c872e8321cf37308d69df2")
    span_id = bytes.fromhex("051581bf3cb55c13")
    span = _span(
        traceId=base64.b64encode(trace_id).decode(), spanId=base64.b64encode(span_id).decode()
    )
    (trace,) = parse_traces(_doc(span))
    assert (trace.trace_id, trace.spans[0].span_id) == (trace_id.hex(), span_id.hex())


@pytest.mark.parametrize(
    ("code", "expected"),
    [(0, "unset"), (1, "ok"), (2, "error"), ("STATUS_CODE_ERROR", "error")],
)
def test_status_codes(code, expected):
    (trace,) = parse_traces(_doc(_span(status={"code": code, "message": "boom"})))
    span = trace.spans[0]
    assert span.status == expected
    assert span.error == ("boom" if expected == "error" else None)


def test_an_exception_event_gives_the_error_message():
    event = {
        "name": "exception",
        "timeUnixNano": "1749719702200000000",
        "attributes": [
            _attr("exception.type", {"stringValue": "TimeoutError"}),
            _attr("exception.message", {"stringValue": "upstream took 30 s"}),
        ],
    }
    (trace,) = parse_traces(_doc(_span(status={"code": 2}, events=[event])))
    assert trace.spans[0].error == "TimeoutError: upstream took 30 s"


def test_messages_carried_by_the_inference_event_are_read():
    messages = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}])
    event = {
        "name": "gen_ai.client.inference.operation.details",
        "timeUnixNano": "1749719702200000000",
        "attributes": [_attr("gen_ai.input.messages", {"stringValue": messages})],
    }
    span = _span(
        attributes=[_attr("gen_ai.operation.name", {"stringValue": "chat"})], events=[event]
    )
    (trace,) = parse_traces(_doc(span))
    assert trace.spans[0].type == "model_generation"
    assert trace.spans[0].input == json.loads(messages)


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("gen_ai.operation.name", "execute_tool", "tool_call"),
        ("gen_ai.operation.name", "text_completion", "model_generation"),
        ("gen_ai.operation.name", "embeddings", "other"),
        ("mastra.span.type", "agent_run", "agent_run"),
        ("mastra.span.type", "mcp_tool_call", "tool_call"),
        ("openinference.span.kind", "LLM", "model_generation"),
    ],
)
def test_span_types(key, value, expected):
    (trace,) = parse_traces(_doc(_span(attributes=[_attr(key, {"stringValue": value})])))
    assert trace.spans[0].type == expected
    assert trace.spans[0].source_type == value


def test_the_fixture_files_read_with_format_forced():
    assert len(load_traces(FIXTURES / "weather.otlp.json", format="otlp")) == 1
