"""Expected answers of traces: read from OTLP attributes and Mastra metadata, normalised,
given to the scorer as the ground truth, and what a scorer needs of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorer_runtime.spec import load_spec
from scorer_runtime.traces import (
    AgentRunTarget,
    ExpectedNeed,
    Trace,
    expected_need,
    load_traces,
    normalise_expected,
    parse_traces,
    tools_called,
    trace_to_target,
)

DATA = Path(__file__).resolve().parents[2] / "data"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _otlp(attribute: dict | None = None, resource: dict | None = None) -> str:
    """One OTLP agent span, with the expected-answer attribute on the span or the resource."""
    span = {
        "traceId": "ab" * 16,
        "spanId": "cd" * 8,
        "name": "invoke_agent bot",
        "startTimeUnixNano": "1749719762000000000",
        "endTimeUnixNano": "1749719763000000000",
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}],
    }
    if attribute is not None:
        span["attributes"].append({"key": "scorer_studio.expected_answer", "value": attribute})
    res = {"attributes": []}
    if resource is not None:
        res["attributes"].append({"key": "scorer_studio.expected_answer", "value": resource})
    document = {"resourceSpans": [{"resource": res, "scopeSpans": [{"spans": [span]}]}]}
    return json.dumps(document)


def _names(*names: str) -> dict:
    return {"arrayValue": {"values": [{"stringValue": n} for n in names]}}


@pytest.mark.parametrize(
    ("attribute", "resource", "expected"),
    [
        (_names("lookup_order", "issue_refund"), None, ["lookup_order", "issue_refund"]),
        ({"stringValue": "Refunded €59.90."}, None, "Refunded €59.90."),
        ({"stringValue": '["geocode", "get_weather"]'}, None, ["geocode", "get_weather"]),
        (None, _names("geocode"), ["geocode"]),  # on the resource
        ({"arrayValue": {}}, None, []),  # no tool call expected
        ({"stringValue": "  "}, None, None),  # blank: none given
        (None, None, None),
    ],
)
def test_an_otlp_file_gives_the_expected_answer_on_a_span_or_its_resource(
    attribute, resource, expected
):
    (trace,) = parse_traces(_otlp(attribute, resource))
    assert trace.expected == expected


def test_a_mastra_file_gives_it_in_a_span_metadata():
    (trace,) = load_traces(DATA / "traces" / "weather_agent.mastra.json")
    assert trace.expected == ["geocode", "get_weather"]
    assert Trace.from_dict(trace.to_dict()) == trace  # kept through plain data
    (plain,) = load_traces(FIXTURES / "weather.mastra.json")
    assert plain.expected is None
    assert "expected" not in plain.to_dict()


def test_the_demo_traces_carry_the_tools_expected_in_order():
    expected = {
        t.trace_id: t.expected for t in load_traces(DATA / "traces" / "support_agent.otlp.jsonl")
    }
    assert expected == {
        "5b8aa5a2d2c872e8321cf37308d69df2": ["lookup_order", "cancel_order", "issue_refund"],
        "0af7651916cd43dd8448eb211c80319c": [],
    }


def test_the_expected_answer_reaches_the_scorer_as_the_ground_truth():
    (trace,) = load_traces(DATA / "traces" / "weather_agent.mastra.json")
    target = trace_to_target(trace, agent=True)
    assert isinstance(target, AgentRunTarget)
    assert target.run_kwargs()["ground_truth"] == ["geocode", "get_weather"]
    (plain,) = load_traces(FIXTURES / "weather.mastra.json")
    assert "ground_truth" not in trace_to_target(plain, agent=True).run_kwargs()
    assert tools_called(trace) == ["geocode", "get_weather"]


def test_normalising_what_people_type():
    assert normalise_expected([" a ", "", "b"]) == ["a", "b"]
    assert normalise_expected("  an answer ") == "an answer"
    assert normalise_expected("") is None
    assert normalise_expected("[not json") == "[not json"
    assert normalise_expected({"k": 1}) == {"k": 1}


def _spec(name: str):
    return load_spec(json.loads((DATA / "scorers" / f"{name}.json").read_text()))


def test_what_a_scorer_needs_of_the_expected_answer():
    tool_order = expected_need(_spec("tool-call-accuracy"))
    assert tool_order.required
    assert tool_order.kind == "tools"
    assert tool_order.problem(None) == "it has no expected answer"
    assert tool_order.problem("a text") == (
        "its expected answer is a text, not the tools to call in order"
    )
    assert tool_order.problem([]) is None
    assert tool_order.problem(["lookup_order"]) is None
    assert expected_need(_spec("tool-health")) == ExpectedNeed()
    assert ExpectedNeed().problem(None) is None
    spec = _spec("tool-call-accuracy").model_dump(by_alias=True, exclude_none=True)
    spec["steps"][1]["with"]["expected"] = ["lookup_order"]  # a fixed list: nothing needed
    assert not expected_need(load_spec(spec)).required
