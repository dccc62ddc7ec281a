"""Evaluation events of other tools, read from OTLP: the ``gen_ai.evaluation.result`` events
that arrive as span events (in a trace export or an OTLP trace file) or as log records (a
logs export), each a verdict on the span it is parented to.

An event becomes an :class:`ExternalEvaluation`: the trace and span it judged, the evaluation's
name (``gen_ai.evaluation.name``, required), its score, label, explanation, response id and
``error.type``. A label without a score gives a score only when its scale is plain ("pass" /
"fail", "yes" / "no", "true" / "false", "correct" / "incorrect"); any other label is kept in
words with no score. An event that cannot be read (no name, a score that is no number, bad
ids) is a :class:`~scorer_runtime.traces.errors.TraceProblem`; a log record that is not an
evaluation event is counted as ignored, never an error.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from scorer_runtime.traces.errors import TraceProblem
from scorer_runtime.traces.otlp import attribute_values
from scorer_runtime.traces.values import (
    ValueProblem,
    as_count,
    from_unix_nano,
    hex_id,
    text_or_none,
)

EVENT_NAME = "gen_ai.evaluation.result"
"""The GenAI semantic conventions' evaluation event (the name we send ours under too)."""
MAX_EVALUATION_NAME = 200
"""The longest evaluation name kept (it names a scorer)."""
MAX_LABEL = 200
"""The longest label kept (a verdict in a few words, stored beside the score)."""
_PASSING = frozenset({"pass", "passed", "yes", "true", "correct"})
_FAILING = frozenset({"fail", "failed", "no", "false", "incorrect"})


@dataclass(frozen=True, slots=True)
class ExternalEvaluation:
    """One verdict another tool sent about a span, as its evaluation event says it."""

    trace_id: str
    span_id: str | None
    name: str
    """``gen_ai.evaluation.name``: what the other tool calls this evaluation."""
    score: float | None = None
    label: str | None = None
    explanation: str | None = None
    response_id: str | None = None
    error_type: str | None = None
    time_unix_nano: int | None = None
    """When the event happened, as sent (nanoseconds since 1970)."""

    @property
    def time(self) -> datetime | None:
        """When the event happened (None when it does not say)."""
        if not self.time_unix_nano:
            return None
        return from_unix_nano(self.time_unix_nano, "time")

    @property
    def key(self) -> str:
        """What makes two deliveries the same event (an exporter's retry): the span, the
        evaluation's name, and the response id or else the event's time (else its content)."""
        when = self.response_id or (str(self.time_unix_nano) if self.time_unix_nano else None)
        marks = [self.trace_id, self.span_id or "", self.name, when or self._content()]
        return hashlib.sha256("\x1f".join(marks).encode()).hexdigest()

    def _content(self) -> str:
        return repr((self.score, self.label, self.explanation, self.error_type))


@dataclass
class EvaluationsRead:
    """What a document held: its evaluation events, the bad ones, the records ignored."""

    evaluations: list[ExternalEvaluation] = field(default_factory=list)
    problems: list[TraceProblem] = field(default_factory=list)
    ignored: int = 0
    """Log records that are not evaluation events (counted, no error)."""


def evaluation_from_attributes(
    attributes: Mapping[str, Any],
    *,
    trace_id: str,
    span_id: str | None,
    time_unix_nano: int | None,
) -> ExternalEvaluation:
    """The evaluation an event's attributes say; raises :class:`ValueProblem` for one that
    cannot be read."""
    name = text_or_none(attributes.get("gen_ai.evaluation.name"))
    if name is None or not name.strip():
        raise ValueProblem(
            f"a {EVENT_NAME} event needs gen_ai.evaluation.name (the evaluation's name, as text)"
        )
    if len(name) > MAX_EVALUATION_NAME:
        raise ValueProblem(
            f"gen_ai.evaluation.name is longer than {MAX_EVALUATION_NAME} characters"
        )
    label = _text(attributes, "gen_ai.evaluation.score.label")
    if label is not None and len(label) > MAX_LABEL:
        raise ValueProblem(
            f"gen_ai.evaluation.score.label is longer than {MAX_LABEL} characters: send a "
            "short verdict there, and the reasoning as gen_ai.evaluation.explanation"
        )
    error_type = _text(attributes, "error.type")
    score = _score(attributes.get("gen_ai.evaluation.score.value"))
    if score is None and label is not None:
        score = _label_score(label)
    return ExternalEvaluation(
        trace_id=trace_id,
        span_id=span_id,
        name=name.strip(),
        score=None if error_type else score,
        label=label,
        explanation=_text(attributes, "gen_ai.evaluation.explanation"),
        response_id=_text(attributes, "gen_ai.response.id"),
        error_type=error_type,
        time_unix_nano=time_unix_nano,
    )


def _text(attributes: Mapping[str, Any], key: str) -> str | None:
    value = attributes.get(key)
    if value is None or value == "":
        return None
    return str(value).strip() or None


def _score(value: Any) -> float | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueProblem("gen_ai.evaluation.score.value must be a number, not true or false")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueProblem(
            f"gen_ai.evaluation.score.value must be a number; got {str(value)[:60]!r} "
            "(send words as gen_ai.evaluation.score.label)"
        ) from None
    if not math.isfinite(number):
        raise ValueProblem("gen_ai.evaluation.score.value must be a finite number")
    return number


def _label_score(label: str) -> float | None:
    """The score of a label on a plain pass/fail scale; None for any other label."""
    word = label.strip().lower()
    if word in _PASSING:
        return 1.0
    if word in _FAILING:
        return 0.0
    return None


def evaluations_in_spans(
    document: Mapping[str, Any], *, line: int | None = None
) -> EvaluationsRead:
    """The ``gen_ai.evaluation.result`` span events of an OTLP trace document, each about
    the span that carries it."""
    read = EvaluationsRead()
    for path, span in _spans(document):
        events = span.get("events")
        if not isinstance(events, list):
            continue
        for n, event in enumerate(events):
            if isinstance(event, Mapping) and event.get("name") == EVENT_NAME:
                _read_one(read, span, event, line=line, path=f"{path}.events[{n}]")
    return read


def evaluations_in_logs(document: Mapping[str, Any]) -> EvaluationsRead:
    """The evaluation events of an OTLP logs document (``{"resourceLogs": [...]}``): log
    records named ``gen_ai.evaluation.result``; every other record is counted as ignored."""
    read = EvaluationsRead()
    for path, record in _log_records(document):
        if not isinstance(record, Mapping):
            read.problems.append(TraceProblem("expected a log record object", path=path))
        elif _event_name(record) == EVENT_NAME:
            _read_one(read, record, record, line=None, path=path)
        else:
            read.ignored += 1
    return read


def log_record_count(document: Mapping[str, Any]) -> int:
    """How many log records a logs document holds (as sent, good or bad)."""
    return sum(1 for _ in _log_records(document))


def _event_name(record: Mapping[str, Any]) -> str | None:
    name = text_or_none(record.get("eventName"))
    if name is not None:
        return name
    # Emitters before the eventName field named the event in an attribute.
    for pair in record.get("attributes") or []:
        if isinstance(pair, Mapping) and pair.get("key") == "event.name":
            value = pair.get("value")
            return text_or_none(value.get("stringValue")) if isinstance(value, Mapping) else None
    return None


def _read_one(
    read: EvaluationsRead,
    ids: Mapping[str, Any],
    event: Mapping[str, Any],
    *,
    line: int | None,
    path: str,
) -> None:
    """Read one event (ids from ``ids``: its span, or the log record itself) into ``read``."""
    span_id = text_or_none(ids.get("spanId"))
    try:
        if not ids.get("traceId"):
            raise ValueProblem(
                "it carries no trace id, so nothing tells which trace it judged: emit it "
                "inside the evaluated span's context"
            )
        trace_id = hex_id(ids.get("traceId"), "traceId", 16)
        span = hex_id(span_id, "spanId", 8) if span_id else None
        attributes = attribute_values(event.get("attributes"), "the event's attributes")
        when = as_count(event.get("timeUnixNano")) or as_count(event.get("observedTimeUnixNano"))
        read.evaluations.append(
            evaluation_from_attributes(
                attributes, trace_id=trace_id, span_id=span, time_unix_nano=when or None
            )
        )
    except ValueProblem as e:
        words = f"evaluation event left out: {e}"
        read.problems.append(TraceProblem(words, line, span_id, path))


def _spans(document: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for i, entry in enumerate(_list(document.get("resourceSpans"))):
        scopes = entry.get("scopeSpans") if isinstance(entry, Mapping) else None
        for j, scope in enumerate(_list(scopes)):
            spans = scope.get("spans") if isinstance(scope, Mapping) else None
            for k, span in enumerate(_list(spans)):
                if isinstance(span, Mapping):
                    yield f"resourceSpans[{i}].scopeSpans[{j}].spans[{k}]", span


def _log_records(document: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    for i, entry in enumerate(_list(document.get("resourceLogs"))):
        scopes = entry.get("scopeLogs") if isinstance(entry, Mapping) else None
        for j, scope in enumerate(_list(scopes)):
            records = scope.get("logRecords") if isinstance(scope, Mapping) else None
            for k, record in enumerate(_list(records)):
                yield f"resourceLogs[{i}].scopeLogs[{j}].logRecords[{k}]", record


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
