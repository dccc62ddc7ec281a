"""Scores of traces sent back to the team's own OpenTelemetry collector, as evaluation events.

Each score of a trace's span becomes one ``gen_ai.evaluation.result`` event (OpenTelemetry's
GenAI semantic conventions; the event's status there is "development"), a log record named so,
parented to the span it scored (its trace id and span id), with the attributes the
conventions name:

- ``gen_ai.evaluation.name``: the scorer's name (required);
- ``gen_ai.evaluation.score.value``: the score, when there is one;
- ``gen_ai.evaluation.score.label``: its verdict in words ("pass", "fail", a scale's label);
- ``gen_ai.evaluation.explanation``: the reason, when the scorer gave one;
- ``error.type``: why there is no score (``provider_error``, ``step_error``…).

The OpenTelemetry SDK sends them through OTLP/HTTP (protobuf) in batches. An endpoint given as
a collector's address alone (``http://collector:4318``) is sent to its ``/v1/logs`` path, as
``OTEL_EXPORTER_OTLP_ENDPOINT`` is; one with a path is used as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from opentelemetry import trace
from opentelemetry._logs import SeverityNumber
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.sdk._logs import LoggerProvider, ReadableLogRecord
from opentelemetry.sdk._logs.export import (
    BatchLogRecordProcessor,
    LogRecordExporter,
    LogRecordExportResult,
)
from opentelemetry.sdk.resources import Resource

from scorer_runtime.traces.received_evaluations import EVENT_NAME

if TYPE_CHECKING:
    from opentelemetry.context import Context

    from scorer_runtime.traces.scoring import TraceScoreOutcome

LOGS_PATH = "/v1/logs"
SERVICE_NAME = "scorer-studio"


@dataclass(frozen=True, slots=True)
class EvaluationResult:
    """One score of a trace's span, as the event says it."""

    trace_id: str
    """The trace's id, 32 hex digits."""
    span_id: str | None
    """The scored span's id, 16 hex digits (``None``: a score of the trace as a whole)."""
    name: str
    score: float | None = None
    label: str | None = None
    explanation: str | None = None
    error_type: str | None = None


def evaluation_result(outcome: TraceScoreOutcome, name: str) -> EvaluationResult:
    """The event of one trace outcome of the scorer called ``name``: its score and reason, or
    why there is none (the judge error's kind, ``step_error``, ``not_scorable``…)."""
    error_type = None
    if outcome.status == "failed":
        error_type = outcome.error_kind or "step_error"
    elif outcome.status == "not_scorable":
        error_type = "not_scorable"
    explanation = outcome.reason if outcome.status != "failed" else outcome.error
    return EvaluationResult(
        outcome.trace_id,
        outcome.span_id,
        name,
        score=outcome.score,
        explanation=explanation,
        error_type=error_type,
    )


def event_attributes(result: EvaluationResult) -> dict[str, str | float]:
    """The event's attributes: those the conventions name, each only when it has a value."""
    attributes: dict[str, str | float] = {"gen_ai.evaluation.name": result.name}
    if result.score is not None:
        attributes["gen_ai.evaluation.score.value"] = float(result.score)
    if result.label:
        attributes["gen_ai.evaluation.score.label"] = result.label
    if result.explanation:
        attributes["gen_ai.evaluation.explanation"] = result.explanation
    if result.error_type:
        attributes["error.type"] = result.error_type
    return attributes


def logs_endpoint(url: str) -> str:
    """Where events go: a collector's address alone gets OTLP's ``/v1/logs`` path."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(
            f"{url!r} is not the address of a collector: give one such as "
            "http://127.0.0.1:4318 (OTLP over HTTP)"
        )
    if parts.path in ("", "/"):
        parts = parts._replace(path=LOGS_PATH)
    return urlunsplit(parts)


class EvaluationSender:
    """Sends evaluation events to one collector through the OpenTelemetry SDK, in batches;
    :meth:`close` sends what is left and waits for it. :attr:`delivered` and :attr:`failed`
    count the events the collector took and those it did not (down, refused)."""

    def __init__(self, url: str, *, timeout_s: float | None = None) -> None:
        """``timeout_s``: how long a batch may take, retries included (default: the
        standard ``OTEL_EXPORTER_OTLP_TIMEOUT``, else 10 s)."""
        self.endpoint = logs_endpoint(url)
        self._provider = LoggerProvider(resource=Resource.create({"service.name": SERVICE_NAME}))
        self._counted = _CountingExporter(
            OTLPLogExporter(endpoint=self.endpoint, timeout=timeout_s)
        )
        self._provider.add_log_record_processor(BatchLogRecordProcessor(self._counted))
        self._logger = self._provider.get_logger("scorer_studio.evaluation")

    @property
    def delivered(self) -> int:
        """Events the collector accepted so far."""
        return self._counted.delivered

    @property
    def failed(self) -> int:
        """Events the collector did not take (it was down, or refused them)."""
        return self._counted.failed

    def send(self, results: Iterable[EvaluationResult]) -> int:
        """Queue one event for each result; returns how many."""
        sent = 0
        for result in results:
            self._logger.emit(
                event_name=EVENT_NAME,
                attributes=event_attributes(result),
                context=_parent(result),
                severity_number=SeverityNumber.INFO,
            )
            sent += 1
        return sent

    def flush(self, timeout_s: float = 30.0) -> bool:
        """Send every queued event now; whether all were handed over in time."""
        return bool(self._provider.force_flush(int(timeout_s * 1000)))

    def close(self) -> None:
        """Send what is queued, then stop."""
        self._provider.shutdown()


def _parent(result: EvaluationResult) -> Context | None:
    """The context that parents an event to its scored span (``None`` without a span, or for
    ids that are not OpenTelemetry's, such as a Mastra trace's)."""
    trace_id, span_id = _hex_id(result.trace_id, 32), _hex_id(result.span_id, 16)
    if trace_id is None or span_id is None:
        return None
    parent = trace.SpanContext(
        trace_id=trace_id,
        span_id=span_id,
        is_remote=True,
        trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED),
    )
    return trace.set_span_in_context(trace.NonRecordingSpan(parent))


def _hex_id(text: str | None, digits: int) -> int | None:
    """An OpenTelemetry id of ``digits`` hex digits as a number (None when it is not one)."""
    if not text or len(text) != digits:
        return None
    try:
        value = int(text, 16)
    except ValueError:
        return None
    return value or None


class _CountingExporter(LogRecordExporter):
    """The OTLP exporter, counting the records each batch delivered or failed to."""

    def __init__(self, exporter: LogRecordExporter) -> None:
        self._exporter = exporter
        self.delivered = self.failed = 0

    def export(self, batch: Sequence[ReadableLogRecord]) -> LogRecordExportResult:
        try:
            result = self._exporter.export(batch)
        except Exception:
            self.failed += len(batch)
            raise
        if result == LogRecordExportResult.SUCCESS:
            self.delivered += len(batch)
        else:
            self.failed += len(batch)
        return result

    def shutdown(self) -> None:
        self._exporter.shutdown()  # type: ignore[no-untyped-call]  # untyped in the SDK

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._exporter.force_flush(timeout_millis)
