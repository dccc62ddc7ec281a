"""Reading OpenTelemetry spans in OTLP JSON, as a collector's file exporter writes them.

One document is ``{"resourceSpans": [{"resource": ..., "scopeSpans": [{"scope": ...,
"spans": [...]}]}]}``; attribute values are OTLP ``AnyValue`` objects. Span types and
agent/model/tool details come from the GenAI semantic conventions (``gen_ai.*``), with
Mastra's and OpenInference's span-kind attributes as fallbacks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scorer_runtime.traces.errors import TraceProblem
from scorer_runtime.traces.model import GenAIInfo, Span, SpanStatus, SpanType
from scorer_runtime.traces.values import (
    ValueProblem,
    as_count,
    decode_json_text,
    first_text,
    from_unix_nano,
    hex_id,
    parse_json_text,
    text_or_none,
)

_OPERATION_TYPES: dict[str, SpanType] = {
    "invoke_agent": "agent_run",
    "chat": "model_generation",
    "text_completion": "model_generation",
    "generate_content": "model_generation",
    "execute_tool": "tool_call",
}
_MASTRA_TYPES: dict[str, SpanType] = {
    "agent_run": "agent_run",
    "model_generation": "model_generation",
    "tool_call": "tool_call",
    "mcp_tool_call": "tool_call",
}
"""``mastra.span.type``, set by Mastra's OpenTelemetry exporter."""
_OPENINFERENCE_TYPES: dict[str, SpanType] = {
    "AGENT": "agent_run",
    "LLM": "model_generation",
    "TOOL": "tool_call",
}
_STATUS: dict[Any, SpanStatus] = {
    0: "unset",
    1: "ok",
    2: "error",
    "STATUS_CODE_UNSET": "unset",
    "STATUS_CODE_OK": "ok",
    "STATUS_CODE_ERROR": "error",
}
_INFERENCE_EVENT = "gen_ai.client.inference.operation.details"
"""The event that carries the GenAI message attributes when they are not on the span."""
_ANY_VALUE_KEYS = (
    "stringValue, intValue, doubleValue, boolValue, arrayValue, kvlistValue or bytesValue"
)


@dataclass
class _Report:
    """Collects the problems of one document (one line of a JSON-lines file)."""

    line: int | None
    problems: list[TraceProblem]
    span_id: str | None = None
    path: str | None = None
    failed: bool = field(default=False)

    def add(self, message: str, *, path: str | None = None) -> None:
        self.failed = True
        self.problems.append(TraceProblem(message, self.line, self.span_id, path or self.path))


def spans_from_otlp(
    document: Mapping[str, Any], *, problems: list[TraceProblem], line: int | None = None
) -> list[Span]:
    """The spans of one OTLP JSON document; what is wrong goes to ``problems``.

    A span with a problem is left out; every other span is returned.
    """
    spans: list[Span] = []
    report = _Report(line, problems)
    resource_spans = document.get("resourceSpans")
    if not isinstance(resource_spans, list):
        report.add("resourceSpans must be a list", path="resourceSpans")
        return spans
    for i, entry in enumerate(resource_spans):
        path = f"resourceSpans[{i}]"
        if not isinstance(entry, Mapping):
            report.add("expected an object with resource and scopeSpans", path=path)
            continue
        resource = entry.get("resource") or {}
        if not isinstance(resource, Mapping):
            report.add("resource must be an object with attributes", path=f"{path}.resource")
            resource = {}
        resource_attributes = _attributes(resource.get("attributes"), report)
        scopes = entry.get("scopeSpans", entry.get("instrumentationLibrarySpans", []))
        if not isinstance(scopes, list):
            report.add("scopeSpans must be a list", path=f"{path}.scopeSpans")
            continue
        for j, scope in enumerate(scopes):
            raw_spans = scope.get("spans", []) if isinstance(scope, Mapping) else None
            if not isinstance(raw_spans, list):
                report.add("spans must be a list", path=f"{path}.scopeSpans[{j}].spans")
                continue
            for k, raw in enumerate(raw_spans):
                span_path = f"{path}.scopeSpans[{j}].spans[{k}]"
                span = _span(raw, _Report(line, problems, path=span_path), resource_attributes)
                if span is not None:
                    spans.append(span)
    return spans


def _any_value(value: Any, what: str) -> Any:
    """An OTLP ``AnyValue`` as a plain Python value."""
    if not isinstance(value, Mapping):
        raise ValueProblem(f"{what} must be an AnyValue object such as {{'stringValue': '…'}}")
    if not value:
        return None
    if "stringValue" in value:
        return str(value["stringValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "intValue" in value:
        number = as_count(value["intValue"])
        if number is None:
            raise ValueProblem(f"{what}: intValue must be an integer; got {value['intValue']!r}")
        return number
    if "doubleValue" in value:
        try:
            return float(value["doubleValue"])
        except (TypeError, ValueError):
            raise ValueProblem(f"{what}: doubleValue must be a number") from None
    if "arrayValue" in value:
        items = _values(value["arrayValue"], f"{what}: arrayValue")
        return [_any_value(item, f"{what}[{n}]") for n, item in enumerate(items)]
    if "kvlistValue" in value:
        out = {}
        for pair in _values(value["kvlistValue"], f"{what}: kvlistValue"):
            key = pair.get("key") if isinstance(pair, Mapping) else None
            if not isinstance(key, str):
                raise ValueProblem(f"{what}: every kvlistValue entry needs a string key")
            out[key] = _any_value(pair.get("value"), f"{what}.{key}")
        return out
    if "bytesValue" in value:
        return str(value["bytesValue"])
    raise ValueProblem(f"{what} has none of {_ANY_VALUE_KEYS}")


def attribute_values(raw: Any, where: str = "attributes") -> dict[str, Any]:
    """``[{"key": ..., "value": AnyValue}]`` as a dict of plain values; raises
    :class:`ValueProblem` naming the first bad entry (for readers that take all or nothing)."""
    problems: list[TraceProblem] = []
    values = _attributes(raw, _Report(None, problems), where)
    if problems:
        raise ValueProblem(problems[0].message)
    return values


def _values(container: Any, what: str) -> list[Any]:
    """The ``values`` list of an ``arrayValue`` / ``kvlistValue`` (empty when left out)."""
    if not container:
        return []
    values = container.get("values", []) if isinstance(container, Mapping) else None
    if not isinstance(values, list):
        raise ValueProblem(f"{what} must be an object with a values list")
    return values


def _attributes(raw: Any, report: _Report, where: str = "attributes") -> dict[str, Any]:
    """``[{"key": ..., "value": AnyValue}]`` as a dict; bad entries reported and skipped."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        report.add(f"{where} must be a list of {{key, value}} objects")
        return {}
    out: dict[str, Any] = {}
    for n, item in enumerate(raw):
        key = item.get("key") if isinstance(item, Mapping) else None
        if not isinstance(key, str) or not key:
            report.add(f"{where}[{n}] needs a string key")
            continue
        try:
            out[key] = _any_value(item.get("value"), f"attribute {key!r}")
        except ValueProblem as e:
            report.add(str(e))
    return out


def _read(raw: Mapping[str, Any], key: str, report: _Report, parse: Callable[[Any], Any]) -> Any:
    """``parse(raw[key])``, reporting a missing or bad value (then None)."""
    if raw.get(key) in (None, ""):
        report.add(f"{key} is missing")
        return None
    try:
        return parse(raw[key])
    except ValueProblem as e:
        report.add(str(e))
        return None


def _identity(raw: Mapping[str, Any], report: _Report) -> dict[str, Any]:
    """Ids, name and times of a span (problems reported)."""
    name = raw.get("name")
    if not isinstance(name, str):
        report.add("name is missing" if name is None else "name must be a string")
    parent = None
    if raw.get("parentSpanId"):  # "" means no parent
        parent = _read(raw, "parentSpanId", report, lambda v: hex_id(v, "parentSpanId", 8))
    return {
        "trace_id": _read(raw, "traceId", report, lambda v: hex_id(v, "traceId", 16)),
        "span_id": _read(raw, "spanId", report, lambda v: hex_id(v, "spanId", 8)),
        "parent_span_id": parent,
        "name": name,
        "start_time": _read(
            raw, "startTimeUnixNano", report, lambda v: from_unix_nano(v, "startTimeUnixNano")
        ),
        "end_time": _read(
            raw, "endTimeUnixNano", report, lambda v: from_unix_nano(v, "endTimeUnixNano")
        ),
    }


def _span(raw: Any, report: _Report, resource: dict[str, Any]) -> Span | None:
    if not isinstance(raw, Mapping):
        report.add("expected a span object")
        return None
    report.span_id = text_or_none(raw.get("spanId"))
    identity = _identity(raw, report)
    attributes = _attributes(raw.get("attributes"), report)
    event_attributes, exception = _events(raw.get("events"), report)
    status, message = _status(raw.get("status"), report)
    details = _details({**event_attributes, **attributes}, report)
    if report.failed:
        return None
    error = message or exception or text_or_none(attributes.get("error.message"))
    return Span(
        **identity,
        type=details.type,
        attributes=attributes,
        input=details.input,
        output=details.output,
        status=status,
        error=error if status == "error" else None,
        gen_ai=details.gen_ai,
        source="otlp",
        source_type=details.source_type,
        resource=resource,
    )


def _status(raw: Any, report: _Report) -> tuple[SpanStatus, str | None]:
    if raw is None:
        return "unset", None
    if not isinstance(raw, Mapping):
        report.add("status must be an object with code and message")
        return "unset", None
    code = raw.get("code", 0)
    status = _STATUS.get(code) if isinstance(code, int | str) else None
    if status is None:
        report.add(f"status.code must be 0 (unset), 1 (ok) or 2 (error); got {code!r}")
        return "unset", None
    return status, text_or_none(raw.get("message"))


def _events(raw: Any, report: _Report) -> tuple[dict[str, Any], str | None]:
    """GenAI attributes carried by an inference event, and an exception event's message."""
    if not isinstance(raw, list):
        return {}, None
    carried: dict[str, Any] = {}
    exception = None
    for n, event in enumerate(raw):
        if not isinstance(event, Mapping):
            continue
        name = event.get("name")
        if name not in (_INFERENCE_EVENT, "exception"):
            continue
        attributes = _attributes(event.get("attributes"), report, f"events[{n}].attributes")
        if name == _INFERENCE_EVENT:
            carried.update(attributes)
        elif exception is None:
            kind, text = attributes.get("exception.type"), attributes.get("exception.message")
            exception = ": ".join(str(v) for v in (kind, text) if v) or None
    return carried, exception


@dataclass(frozen=True, slots=True)
class _Details:
    type: SpanType
    source_type: str | None
    input: Any
    output: Any
    gen_ai: GenAIInfo


def _span_type(attributes: Mapping[str, Any]) -> tuple[SpanType, str | None]:
    operation = text_or_none(attributes.get("gen_ai.operation.name"))
    mastra = text_or_none(attributes.get("mastra.span.type"))
    if operation in _OPERATION_TYPES:
        return _OPERATION_TYPES[operation], operation
    if mastra in _MASTRA_TYPES:
        return _MASTRA_TYPES[mastra], mastra
    kind = text_or_none(attributes.get("openinference.span.kind"))
    if kind in _OPENINFERENCE_TYPES:
        return _OPENINFERENCE_TYPES[kind], kind
    return "other", operation or mastra or kind


def _messages(attributes: Mapping[str, Any], key: str, report: _Report) -> Any:
    value = attributes.get(key)
    if value is None:
        return None
    try:
        parsed = parse_json_text(value, key)
    except ValueProblem as e:
        report.add(str(e))
        return None
    if not isinstance(parsed, list):
        report.add(f"{key} must be a JSON array of messages; got {type(parsed).__name__}")
        return None
    return parsed


def _instructions(value: Any) -> tuple[str, ...]:
    decoded = decode_json_text(value)
    if isinstance(decoded, str):
        return (decoded,) if decoded else ()
    if not isinstance(decoded, list):
        return ()
    texts = []
    for part in decoded:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, Mapping) and part.get("type", "text") == "text":
            texts.append(first_text(part, "content", "text") or "")
    return tuple(t for t in texts if t)


def _details(attributes: Mapping[str, Any], report: _Report) -> _Details:
    span_type, source_type = _span_type(attributes)
    given_input = given_output = None
    if span_type in ("agent_run", "model_generation"):
        given_input = _messages(attributes, "gen_ai.input.messages", report)
        given_output = _messages(attributes, "gen_ai.output.messages", report)
    elif span_type == "tool_call":
        given_input = decode_json_text(attributes.get("gen_ai.tool.call.arguments"))
        given_output = decode_json_text(attributes.get("gen_ai.tool.call.result"))
    # Mastra's OpenTelemetry exporter keeps other spans' data as mastra.<type>.input/output.
    if given_input is None and source_type:
        given_input = decode_json_text(attributes.get(f"mastra.{source_type}.input"))
    if given_output is None and source_type:
        given_output = decode_json_text(attributes.get(f"mastra.{source_type}.output"))
    info = GenAIInfo(
        operation=text_or_none(attributes.get("gen_ai.operation.name")),
        agent_name=first_text(attributes, "gen_ai.agent.name", "gen_ai.agent.id"),
        model=first_text(attributes, "gen_ai.request.model", "gen_ai.response.model"),
        tool_name=text_or_none(attributes.get("gen_ai.tool.name")),
        tool_call_id=text_or_none(attributes.get("gen_ai.tool.call.id")),
        system_instructions=_instructions(attributes.get("gen_ai.system_instructions")),
        input_tokens=_tokens(attributes, "input_tokens", "prompt_tokens"),
        output_tokens=_tokens(attributes, "output_tokens", "completion_tokens"),
    )
    return _Details(span_type, source_type, given_input, given_output, info)


def _tokens(attributes: Mapping[str, Any], *names: str) -> int | None:
    for name in names:
        count = as_count(attributes.get(f"gen_ai.usage.{name}"))
        if count is not None:
            return count
    return None
