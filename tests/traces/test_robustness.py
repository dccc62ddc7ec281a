"""Whatever a file holds, importing it and reading runs from it never crashes.

Bad content becomes problems (import) or a not-scorable reason (conversion), never an
unexpected exception.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer_runtime.traces import read_traces, trace_to_agent_run, trace_to_span_run

_KEYS = st.sampled_from(
    [
        "type",
        "value",
        "key",
        "values",
        "stringValue",
        "arrayValue",
        "kvlistValue",
        "intValue",
        "role",
        "parts",
        "content",
        "messages",
        "text",
        "toolCalls",
        "toolInvocation",
        "id",
        "toolCallId",
        "arguments",
        "response",
        "spans",
        "traceId",
        "spanId",
        "name",
    ]
) | st.text(max_size=3)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)
SPAN: dict[str, Any] = {
    "traceId": "5b8aa5a2d2c872e8321cf37308d69df2",
    "spanId": "051581bf3cb55c13",
    "name": "invoke_agent x",
    "startTimeUnixNano": "1749719702100000000",
    "endTimeUnixNano": "1749719702200000000",
    "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}],
}
PLACES = [
    "span",
    "resource",
    "scope",
    "document",
    "attribute",
    "messages",
    "mastra",
    "mastra_tree",
]


def _document(place: str, key: str, value: Any) -> Any:
    span = dict(SPAN)
    resource_spans: dict[str, Any] = {"resource": {}, "scopeSpans": [{"spans": [span]}]}
    if place == "span":
        span[key] = value
    elif place == "attribute":
        span["attributes"] = [*SPAN["attributes"], {"key": "x", "value": value}]
    elif place == "messages":
        messages = json.dumps([{"role": "user", "parts": [value]}, value])
        entry = {"key": "gen_ai.input.messages", "value": {"stringValue": messages}}
        span["attributes"] = [*SPAN["attributes"], entry]
    elif place == "resource":
        resource_spans["resource"] = value
    elif place == "scope":
        resource_spans["scopeSpans"] = [value]
    elif place == "document":
        return value
    elif place == "mastra":
        record = {"traceId": "t", "spanId": "s", "name": "n", "spanType": "agent_run"}
        record |= {"startedAt": "2025-01-01T00:00:00Z", key: value}
        record |= {"input": {"messages": [{"role": "user", "content": [value]}]}, "output": value}
        return [record]
    elif place == "mastra_tree":
        start = {"traceId": "t", "startedAt": "2025-01-01T00:00:00Z"}
        return [
            {**start, "spanId": "a", "name": "a", "spanType": "agent_run", "input": "Hi"},
            {**start, "spanId": "m", "parentSpanId": "a", "name": "m"}
            | {"spanType": "model_generation", "input": value, "output": value},
            {**start, "spanId": "s", "parentSpanId": "m", "name": "s", "spanType": "tool_call"}
            | {"input": value, "output": value, key: value},
        ]
    return {"resourceSpans": [resource_spans]}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PLACES), st.sampled_from([*SPAN, "status", "events", "parentSpanId"]), JSON)
def test_reading_any_content_gives_traces_or_problems(place, key, value):
    found = read_traces(json.dumps(_document(place, key, value)))
    for trace in found.traces:
        trace_to_agent_run(trace)
        trace_to_span_run(trace)
