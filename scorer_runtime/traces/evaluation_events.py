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

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from opentelemetry.context import Context

EVENT_NAME = "gen_ai.evaluation.result"
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
    :meth:`close` sends what is left and waits for it."""

    def __init__(self, url: str, *, timeout_s: float = 10.0) -> None:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
        from opentelemetry.sdk.resources import Resource

        self.endpoint = logs_endpoint(url)
        self._provider = LoggerProvider(resource=Resource.create({"service.name": SERVICE_NAME}))
        exporter = OTLPLogExporter(endpoint=self.endpoint, timeout=timeout_s)
        self._provider.add_log_record_processor(BatchLogRecordProcessor(exporter))
        self._logger = self._provider.get_logger("scorer_studio.evaluation")

    def send(self, results: Iterable[EvaluationResult]) -> int:
        """Queue one event for each result; returns how many."""
        from opentelemetry._logs import SeverityNumber

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
    """The context that parents an event to its scored span (``None`` without a span)."""
    from opentelemetry import trace

    if not result.span_id:
        return None
    parent = trace.SpanContext(
        trace_id=int(result.trace_id, 16),
        span_id=int(result.span_id, 16),
        is_remote=True,
        trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED),
    )
    return trace.set_span_in_context(trace.NonRecordingSpan(parent))
