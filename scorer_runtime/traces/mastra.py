"""Reading Mastra's exported AI spans (its observability storage records and exported spans).

A record is ``{"traceId", "spanId", "parentSpanId", "name", "spanType", "startedAt",
"endedAt", "input", "output", "attributes", "metadata", "errorInfo", ...}``; the exporter's
in-memory shape (``id``, ``type``, ``startTime``, ``endTime``) and the storage column
``error`` are accepted too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from scorer_runtime.traces.errors import TraceProblem
from scorer_runtime.traces.model import GenAIInfo, Span, SpanStatus, SpanType
from scorer_runtime.traces.values import (
    ValueProblem,
    as_count,
    first_text,
    parse_timestamp,
    text_or_none,
)

_TYPES: dict[str, SpanType] = {
    "agent_run": "agent_run",
    "model_generation": "model_generation",
    "tool_call": "tool_call",
    "mcp_tool_call": "tool_call",
}
_OPERATIONS: dict[SpanType, str] = {
    "agent_run": "invoke_agent",
    "model_generation": "chat",
    "tool_call": "execute_tool",
}
_TOOL_SPAN_NAME = re.compile(r"^(?:mcp )?tool:\s*'(?P<name>.+)'$")
"""Mastra names tool spans ``tool: 'get_weather'``."""
_ENTITY_KEYS = ("entityType", "entityId", "entityName")


class _Problems:
    """Collects the problems of one span record."""

    def __init__(self, problems: list[TraceProblem], line: int | None, path: str | None) -> None:
        self.problems, self.line, self.path = problems, line, path
        self.span_id: str | None = None
        self.failed = False

    def add(self, message: str) -> None:
        self.failed = True
        self.problems.append(TraceProblem(message, self.line, self.span_id, self.path))


def spans_from_mastra(
    records: list[Any],
    *,
    problems: list[TraceProblem],
    line: int | None = None,
    path: str | None = None,
) -> list[Span]:
    """The spans of a list of Mastra span records; what is wrong goes to ``problems``.

    ``path`` is the JSON path of the list (``spans``, or ``""`` for a top-level array), used
    in problem locations; None when the records are not in a list in the file (one record
    per line). A record with a problem is left out; every other span is returned.
    """
    spans = []
    for n, raw in enumerate(records):
        report = _Problems(problems, line, None if path is None else f"{path}[{n}]")
        span = _record(raw, report)
        if span is not None:
            spans.append(span)
    return spans


def _required_text(raw: Mapping[str, Any], keys: tuple[str, ...], report: _Problems) -> str:
    value = next((raw[k] for k in keys if raw.get(k) not in (None, "")), None)
    if isinstance(value, str):
        return value
    report.add(f"{keys[0]} is missing" if value is None else f"{keys[0]} must be a string")
    return ""


def _time(
    raw: Mapping[str, Any], keys: tuple[str, ...], report: _Problems, *, required: bool
) -> Any:
    value = next((raw[k] for k in keys if raw.get(k) is not None), None)
    if value is None:
        if required:
            report.add(f"{keys[0]} is missing")
        return None
    try:
        return parse_timestamp(value, keys[0])
    except ValueProblem as e:
        report.add(str(e))
        return None


def _mapping(raw: Mapping[str, Any], key: str, report: _Problems) -> dict[str, Any]:
    value = raw.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        report.add(f"{key} must be an object; got {type(value).__name__}")
        return {}
    return dict(value)


def _record(raw: Any, report: _Problems) -> Span | None:
    if not isinstance(raw, Mapping):
        report.add("expected a span object with traceId, spanId, name, spanType and startedAt")
        return None
    report.span_id = first_text(raw, "spanId", "id")
    span_id = _required_text(raw, ("spanId", "id"), report)
    trace_id = _required_text(raw, ("traceId",), report)
    name = _required_text(raw, ("name",), report)
    source_type = _required_text(raw, ("spanType", "type"), report)
    start = _time(raw, ("startedAt", "startTime"), report, required=True)
    end = _time(raw, ("endedAt", "endTime"), report, required=False)
    parent = raw.get("parentSpanId")
    if parent is not None and not isinstance(parent, str):
        report.add("parentSpanId must be a string or null")
    attributes = _mapping(raw, "attributes", report)
    metadata = _mapping(raw, "metadata", report)
    if report.failed:
        return None
    span_type = _TYPES.get(source_type, "other")
    status, error = _status(raw, end)
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_span_id=parent or None,
        name=name,
        type=span_type,
        start_time=start,
        end_time=end,
        attributes=_all_attributes(raw, attributes, metadata),
        input=raw.get("input"),
        output=raw.get("output"),
        status=status,
        error=error,
        gen_ai=_gen_ai(raw, span_type, attributes, metadata),
        source="mastra",
        source_type=source_type,
    )


def _all_attributes(
    raw: Mapping[str, Any], attributes: dict[str, Any], metadata: dict[str, Any]
) -> dict[str, Any]:
    """The span's attributes, plus its metadata and entity fields under ``mastra.*`` keys."""
    out = dict(attributes)
    if metadata:
        out["mastra.metadata"] = metadata
    for key in _ENTITY_KEYS:
        if raw.get(key) is not None:
            out[f"mastra.{key}"] = raw[key]
    return out


def _status(raw: Mapping[str, Any], end: Any) -> tuple[SpanStatus, str | None]:
    error = raw.get("errorInfo") or raw.get("error")
    if error:
        message = error.get("message") if isinstance(error, Mapping) else error
        return "error", str(message) if message else "the span failed"
    return ("ok" if end is not None else "unset"), None


def _gen_ai(
    raw: Mapping[str, Any],
    span_type: SpanType,
    attributes: Mapping[str, Any],
    metadata: Mapping[str, Any],
) -> GenAIInfo:
    entity = first_text(raw, "entityName", "entityId")
    usage = attributes.get("usage")
    usage = usage if isinstance(usage, Mapping) else {}
    tool_name = None
    if span_type == "tool_call":
        match = _TOOL_SPAN_NAME.match(str(raw.get("name", "")))
        tool_name = entity or first_text(attributes, "toolId", "toolName")
        tool_name = tool_name or (match.group("name") if match else None)
    instructions = text_or_none(attributes.get("instructions"))
    return GenAIInfo(
        operation=_OPERATIONS.get(span_type),
        agent_name=(entity or first_text(attributes, "agentId", "agentName"))
        if span_type in ("agent_run", "model_generation")
        else None,
        model=text_or_none(attributes.get("model")),
        tool_name=tool_name,
        tool_call_id=first_text(attributes, "toolCallId") or first_text(metadata, "toolCallId"),
        system_instructions=(instructions,) if span_type == "agent_run" and instructions else (),
        input_tokens=_count(usage, "inputTokens", "promptTokens"),
        output_tokens=_count(usage, "outputTokens", "completionTokens"),
    )


def _count(usage: Mapping[str, Any], *keys: str) -> int | None:
    for key in keys:
        count = as_count(usage.get(key))
        if count is not None:
            return count
    return None
