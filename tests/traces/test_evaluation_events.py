"""Scores go back to the team's collector as ``gen_ai.evaluation.result`` events, through the
OpenTelemetry SDK's OTLP/HTTP exporter, parented to the span each scored (a fake collector
decodes what arrives with the OpenTelemetry project's own messages)."""

from __future__ import annotations

import socket

import pytest

from scorer_runtime.traces.evaluation_events import (
    EVENT_NAME,
    EvaluationResult,
    EvaluationSender,
    evaluation_result,
    event_attributes,
    logs_endpoint,
)
from scorer_runtime.traces.scoring import TraceScoreOutcome
from tests.fakes.collector import FakeCollector

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SPAN = "00f067aa0ba902b7"


def test_each_score_arrives_as_an_evaluation_event_parented_to_its_span():
    results = [
        EvaluationResult(TRACE, SPAN, "politeness", 0.8, "pass", "Greets and thanks."),
        EvaluationResult(TRACE, "a1b2c3d4e5f60718", "politeness", None, error_type="step_error"),
    ]
    with FakeCollector() as collector:
        sender = EvaluationSender(collector.url)
        assert sender.send(results) == 2
        sender.close()
        records = collector.wait_for_records(2)
    assert collector.paths == ["/v1/logs"]
    scored, failed = sorted(records, key=lambda r: r.span_id != SPAN)
    assert {r.event_name for r in records} == {EVENT_NAME}
    assert (scored.trace_id, scored.span_id) == (TRACE, SPAN)
    assert scored.attributes == {
        "gen_ai.evaluation.name": "politeness",
        "gen_ai.evaluation.score.value": 0.8,
        "gen_ai.evaluation.score.label": "pass",
        "gen_ai.evaluation.explanation": "Greets and thanks.",
    }
    assert failed.span_id == "a1b2c3d4e5f60718"
    assert failed.attributes == {"gen_ai.evaluation.name": "politeness", "error.type": "step_error"}
    assert scored.resource["service.name"] == "scorer-studio"


def test_a_score_of_a_whole_trace_is_sent_without_a_parent_span():
    with FakeCollector() as collector:
        sender = EvaluationSender(collector.url)
        sender.send([EvaluationResult(TRACE, None, "tool accuracy", 1.0)])
        sender.close()
        (record,) = collector.wait_for_records(1)
    assert record.span_id == ""
    assert record.attributes["gen_ai.evaluation.score.value"] == 1.0


def test_a_score_of_a_trace_with_ids_not_of_opentelemetry_is_sent_without_a_parent():
    """A Mastra trace's ids are not OpenTelemetry's hex ids: the event goes, unparented."""
    mastra = EvaluationResult("run-7c1f-weather", "span-1", "tool accuracy", 1.0)
    with FakeCollector() as collector:
        sender = EvaluationSender(collector.url)
        sender.send([mastra])
        sender.close()
        (record,) = collector.wait_for_records(1)
    assert (record.trace_id, record.span_id) == ("", "")
    assert record.attributes["gen_ai.evaluation.name"] == "tool accuracy"


def test_a_zero_score_is_a_value_not_a_missing_one():
    attributes = event_attributes(EvaluationResult(TRACE, SPAN, "x", 0.0, "fail"))
    assert attributes["gen_ai.evaluation.score.value"] == 0.0


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("http://127.0.0.1:4318", "http://127.0.0.1:4318/v1/logs"),
        ("http://collector:4318/", "http://collector:4318/v1/logs"),
        ("https://otel.example/custom/logs", "https://otel.example/custom/logs"),
    ],
)
def test_a_collectors_address_gets_the_logs_path(given, used):
    assert logs_endpoint(given) == used


@pytest.mark.parametrize("given", ["collector:4318", "ftp://x", ""])
def test_an_address_that_is_no_collector_is_refused_in_words(given):
    with pytest.raises(ValueError, match="not the address of a collector"):
        logs_endpoint(given)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_events_a_collector_did_not_take_are_counted_as_failed():
    sender = EvaluationSender(f"http://127.0.0.1:{_closed_port()}", timeout_s=1)
    sender.send([EvaluationResult(TRACE, SPAN, "x", 1.0)] * 3)
    sender.close()
    assert (sender.delivered, sender.failed) == (0, 3)


def test_events_the_collector_took_are_counted_as_delivered():
    with FakeCollector() as collector:
        sender = EvaluationSender(collector.url)
        sender.send([EvaluationResult(TRACE, SPAN, "x", 1.0)] * 4)
        sender.close()
        collector.wait_for_records(4)
    assert (sender.delivered, sender.failed) == (4, 0)


@pytest.mark.parametrize(
    ("outcome", "expected"),
    [
        (
            TraceScoreOutcome("s", TRACE, SPAN, "not_scorable", reason="no agent run"),
            EvaluationResult(TRACE, SPAN, "tone", None, None, "no agent run", "not_scorable"),
        ),
        (
            TraceScoreOutcome("s", TRACE, SPAN, "failed", error_kind="rate_limited", error="429"),
            EvaluationResult(TRACE, SPAN, "tone", None, None, "429", "rate_limited"),
        ),
    ],
)
def test_an_outcome_without_a_score_says_why(outcome, expected):
    assert evaluation_result(outcome, "tone") == expected
