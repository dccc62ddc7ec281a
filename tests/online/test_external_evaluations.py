"""Evaluation events of other tools reaching the receiver, sent by the real OpenTelemetry SDK:
``gen_ai.evaluation.result`` span events through its OTLP/HTTP span exporter (protobuf, and
OTLP/JSON as a Collector sends it), and log records through our own ``EvaluationSender`` (the
SDK's log exporter). Each is stored as a score of an external scorer named by
``gen_ai.evaluation.name``, linked to the span it judged; a retry stores nothing twice; a bad
event is named in ``partial_success``; a log record that is no evaluation event is ignored."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry._logs import SeverityNumber
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.sdk._logs import LoggerProvider, ReadableLogRecord
from opentelemetry.sdk._logs.export import (
    LogRecordExporter,
    LogRecordExportResult,
    SimpleLogRecordProcessor,
)
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from sqlalchemy import Engine

from scorer_runtime.online.receiver import ReceiverConfig, TraceReceiver, running_receiver
from scorer_runtime.store import (
    ScoreFilter,
    ScoreInfo,
    get_score,
    get_trace,
    list_scores,
    load_names,
    read_session,
)
from scorer_runtime.traces.evaluation_events import EVENT_NAME, EvaluationResult, EvaluationSender
from tests.online.senders import JsonSpanExporter, post, protobuf_exporter, tracer_provider


@pytest.fixture
def port(engine: Engine) -> Iterator[int]:
    with running_receiver(TraceReceiver(engine, ReceiverConfig(port=0))) as bound:
        yield bound


def _stored(engine: Engine) -> list[tuple[str, ScoreInfo]]:
    """Every stored score with its scorer's name, oldest first."""
    with read_session(engine) as session:
        names = load_names(session)
        rows = list_scores(session, filter=ScoreFilter(), limit=100).rows
        return [
            (names.scorer(r.scorer_id), get_score(session, score_id=r.id)) for r in reversed(rows)
        ]


def _evaluated_span(
    provider: TracerProvider, *events: dict[str, Any], answer: str = "On its way."
) -> tuple[str, str]:
    """An agent span carrying ``events`` as evaluation span events; its trace and span ids."""
    tracer = provider.get_tracer("support-agent")
    with tracer.start_as_current_span("invoke_agent support") as span:
        span.set_attribute("gen_ai.operation.name", "invoke_agent")
        span.set_attribute(
            "gen_ai.output.messages",
            json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]),
        )
        for attributes in events:
            span.add_event(EVENT_NAME, attributes=attributes)
        context = span.get_span_context()
    return format(context.trace_id, "032x"), format(context.span_id, "016x")


class _SentTwice(SpanExporter):
    """Every batch exported twice by the same exporter: what an exporter's retry does when
    the first answer was lost."""

    def __init__(self, inner: SpanExporter) -> None:
        self.inner = inner
        self.results: list[SpanExportResult] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.results += [self.inner.export(spans), self.inner.export(spans)]
        return self.results[-1]

    def shutdown(self) -> None:
        self.inner.shutdown()


def test_a_span_event_sent_in_protobuf_is_a_score_of_the_external_scorer(engine, port):
    endpoint = f"http://127.0.0.1:{port}/v1/traces"
    with tracer_provider(protobuf_exporter(endpoint, gzip_body=True)) as provider:
        trace_id, span_id = _evaluated_span(
            provider,
            {
                "gen_ai.evaluation.name": "ragas",
                "gen_ai.evaluation.score.value": 0.8,
                "gen_ai.evaluation.score.label": "faithful",
                "gen_ai.evaluation.explanation": "Every claim is in the retrieved order record.",
            },
        )

    [(scorer, score)] = _stored(engine)
    assert scorer == "ragas (external)"
    assert (score.trace_id, score.span_id) == (trace_id, span_id)
    assert (score.outcome, score.score, score.label) == ("scored", 0.8, "faithful")
    assert score.reason == "Every claim is in the retrieved order record."
    with read_session(engine) as session:  # the span itself is stored as before
        assert [s.span_id for s in get_trace(session, trace_id=trace_id).spans] == [span_id]


def test_otlp_json_span_events_keep_labels_and_errors(engine, port):
    sender = JsonSpanExporter(f"http://127.0.0.1:{port}/v1/traces")
    with tracer_provider(sender) as provider:
        trace_id, span_id = _evaluated_span(
            provider,
            {
                "gen_ai.evaluation.name": "deepeval.toxicity",
                "gen_ai.evaluation.score.label": "pass",
            },
            {"gen_ai.evaluation.name": "relevance", "gen_ai.evaluation.score.label": "on topic"},
            {"gen_ai.evaluation.name": "groundedness", "error.type": "timeout"},
        )

    assert sender.answers == [(200, {})]
    by_scorer = {scorer: score for scorer, score in _stored(engine)}
    assert set(by_scorer) == {
        "deepeval.toxicity (external)",
        "relevance (external)",
        "groundedness (external)",
    }
    assert all((s.trace_id, s.span_id) == (trace_id, span_id) for s in by_scorer.values())
    passed = by_scorer["deepeval.toxicity (external)"]
    assert (passed.outcome, passed.score, passed.label) == ("scored", 1.0, "pass")
    # A label on a scale nobody told us: kept in words, with no number made up for it.
    words = by_scorer["relevance (external)"]
    assert (words.outcome, words.score, words.label) == ("not_scorable", None, "on topic")
    failed = by_scorer["groundedness (external)"]
    assert (failed.outcome, failed.score) == ("step_error", None)
    assert failed.error is not None
    assert "timeout" in failed.error


def test_an_exporter_retry_of_the_same_batch_stores_each_event_once(engine, port):
    twice = _SentTwice(protobuf_exporter(f"http://127.0.0.1:{port}/v1/traces"))
    event = {"gen_ai.evaluation.name": "ragas", "gen_ai.evaluation.score.value": 0.4}
    with tracer_provider(twice) as provider:
        _evaluated_span(provider, event)
        _evaluated_span(provider, event, answer="Another turn, another verdict.")

    assert twice.results == [SpanExportResult.SUCCESS] * 4
    stored = _stored(engine)
    assert [scorer for scorer, _ in stored] == ["ragas (external)"] * 2
    assert len({score.span_id for _, score in stored}) == 2


def test_a_bad_span_event_is_named_and_its_span_kept(engine, port):
    sender = JsonSpanExporter(f"http://127.0.0.1:{port}/v1/traces")
    with tracer_provider(sender) as provider:
        trace_id, span_id = _evaluated_span(
            provider,
            {"gen_ai.evaluation.score.value": 0.9},  # no name: whose verdict is it?
            {"gen_ai.evaluation.name": "ragas", "gen_ai.evaluation.score.value": "high"},
        )

    [(status, answer)] = sender.answers
    assert status == 200
    message = answer["partialSuccess"]["errorMessage"]
    assert "gen_ai.evaluation.name" in message
    assert "gen_ai.evaluation.score.value must be a number" in message
    assert "rejectedSpans" not in answer["partialSuccess"]  # the span itself was fine
    assert _stored(engine) == []
    with read_session(engine) as session:
        assert [s.span_id for s in get_trace(session, trace_id=trace_id).spans] == [span_id]


def test_our_own_evaluation_sender_posts_log_records_that_become_external_scores(engine, port):
    trace_id, span_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    sender = EvaluationSender(f"http://127.0.0.1:{port}", timeout_s=10)
    sender.send(
        [
            EvaluationResult(
                trace_id, span_id, "politeness", score=0.25, explanation="Curt reply."
            ),
            EvaluationResult(trace_id, span_id, "faithfulness", error_type="rate_limit"),
            EvaluationResult(trace_id, span_id, "tone", label="warm"),
        ]
    )
    sender.close()

    assert (sender.delivered, sender.failed) == (3, 0)
    by_scorer = {scorer: score for scorer, score in _stored(engine)}
    polite = by_scorer["politeness (external)"]
    assert (polite.trace_id, polite.span_id) == (trace_id, span_id)
    assert (polite.outcome, polite.score, polite.reason) == ("scored", 0.25, "Curt reply.")
    failed = by_scorer["faithfulness (external)"]
    assert failed.outcome == "step_error"
    assert "rate_limit" in (failed.error or "")
    tone = by_scorer["tone (external)"]
    assert (tone.outcome, tone.score, tone.label) == ("not_scorable", None, "warm")


class _LogsSentTwice(LogRecordExporter):
    """Every batch of log records exported twice by the SDK's OTLP log exporter."""

    def __init__(self, endpoint: str) -> None:
        self.inner = OTLPLogExporter(endpoint=endpoint, timeout=10)
        self.results: list[LogRecordExportResult] = []

    def export(self, batch: Sequence[ReadableLogRecord]) -> LogRecordExportResult:
        self.results += [self.inner.export(batch), self.inner.export(batch)]
        return self.results[-1]

    def shutdown(self) -> None:
        self.inner.shutdown()  # type: ignore[no-untyped-call]

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


def _parented(trace_id: str, span_id: str) -> Any:
    parent = trace.SpanContext(
        int(trace_id, 16), int(span_id, 16), is_remote=True, trace_flags=trace.TraceFlags(1)
    )
    return trace.set_span_in_context(trace.NonRecordingSpan(parent))


def test_log_records_sent_twice_are_stored_once_and_other_records_ignored(engine, port):
    twice = _LogsSentTwice(f"http://127.0.0.1:{port}/v1/logs")
    provider = LoggerProvider()
    provider.add_log_record_processor(SimpleLogRecordProcessor(twice))
    logger = provider.get_logger("another-eval-tool")
    trace_id, span_id = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
    logger.emit(
        event_name=EVENT_NAME,
        attributes={
            "gen_ai.evaluation.name": "answer_relevancy",
            "gen_ai.evaluation.score.value": 0.9,
            "gen_ai.response.id": "chatcmpl-42",
        },
        context=_parented(trace_id, span_id),
        severity_number=SeverityNumber.INFO,
    )
    logger.emit(body="user 7 logged in", severity_number=SeverityNumber.INFO)  # not an event
    provider.shutdown()

    assert twice.results == [LogRecordExportResult.SUCCESS] * 4
    [(scorer, score)] = _stored(engine)
    assert scorer == "answer_relevancy (external)"
    assert (score.trace_id, score.span_id, score.score) == (trace_id, span_id, 0.9)


def test_a_bad_log_record_is_named_and_counted_the_rest_stored(engine, port):
    """OTLP/JSON as the spec writes it (hex ids), posted with gzip: a good event, a bad one,
    and a log record that is no evaluation event (ignored, not counted as rejected)."""

    def record(event: str | None, attributes: dict[str, Any]) -> dict[str, Any]:
        values = [
            {
                "key": key,
                "value": {"doubleValue": v} if isinstance(v, float) else {"stringValue": v},
            }
            for key, v in attributes.items()
        ]
        found = {
            "timeUnixNano": "1764950400000000000",
            "traceId": "5b8efff798038103d269b633813fc60c",
            "spanId": "eee19b7ec3c1b174",
            "attributes": values,
        }
        return {**found, "eventName": event} if event else {**found, "body": {"stringValue": "hi"}}

    body = {
        "resourceLogs": [
            {
                "scopeLogs": [
                    {
                        "logRecords": [
                            record(
                                EVENT_NAME,
                                {
                                    "gen_ai.evaluation.name": "bleu",
                                    "gen_ai.evaluation.score.value": 0.31,
                                },
                            ),
                            record(EVENT_NAME, {"gen_ai.evaluation.explanation": "no name"}),
                            record(None, {"http.route": "/orders"}),
                        ]
                    }
                ]
            }
        ]
    }
    status, answer = post(
        f"http://127.0.0.1:{port}/v1/logs", json.dumps(body).encode(), gzip_body=True
    )

    assert status == 200
    partial = json.loads(answer)["partialSuccess"]
    assert partial["rejectedLogRecords"] == "1"
    assert "logRecords[1]" in partial["errorMessage"]
    assert "needs gen_ai.evaluation.name" in partial["errorMessage"]
    [(scorer, score)] = _stored(engine)
    assert (scorer, score.score) == ("bleu (external)", 0.31)


def test_a_logs_body_that_is_not_otlp_is_refused_in_words(engine, port):
    status, answer = post(
        f"http://127.0.0.1:{port}/v1/logs",
        b"\xff\x00 not protobuf",
        content_type="application/x-protobuf",
    )
    assert status == 400
    assert b"ExportLogsServiceRequest" in answer
