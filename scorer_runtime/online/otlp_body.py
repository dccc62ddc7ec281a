"""An OTLP/HTTP export request's body read into the OTLP JSON document a trace file holds
(or, for ``/v1/logs``, its logs document), and the answers the receiver sends back.

Protobuf (``application/x-protobuf``, what the SDK exporters send) is decoded with the
OpenTelemetry project's own messages (``ExportTraceServiceRequest``,
``ExportLogsServiceRequest``) and turned into OTLP
JSON by protobuf's JSON mapping; trace and span ids come out base64 there and as hex in the
OTLP spec's JSON (``application/json``, a Collector's ``encoding: json``): the trace reader
takes both. Gzip is undone with a cap on the size it may grow to. A body that cannot be read
raises :class:`BadBody` with the HTTP status and the words to answer.
"""

from __future__ import annotations

import json
import zlib
from typing import Any, Literal

from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from scorer_runtime import safe_json
from scorer_runtime.limits import (
    MAX_OTLP_BODY_BYTES,
    MAX_OTLP_DECODED_BYTES,
    MAX_TRACE_NESTING,
    size_words,
)

Encoding = Literal["protobuf", "json"]
Signal = Literal["traces", "logs"]
"""What an export request carries: spans (``/v1/traces``) or log records (``/v1/logs``)."""
_ROOT: dict[Signal, str] = {"traces": "resourceSpans", "logs": "resourceLogs"}
_REQUEST: dict[Signal, type[Message]] = {
    "traces": ExportTraceServiceRequest,
    "logs": ExportLogsServiceRequest,
}
_WHAT: dict[Signal, str] = {"traces": "spans", "logs": "log records"}
PROTOBUF = "application/x-protobuf"
JSON = "application/json"


class BadBody(Exception):
    """A body the receiver refuses: its HTTP status and what to do, in words."""

    def __init__(self, status: int, words: str) -> None:
        super().__init__(words)
        self.status = status
        self.words = words


def encoding_of(content_type: str | None) -> Encoding:
    """Which OTLP encoding a ``Content-Type`` names; raises :class:`BadBody` (415) else."""
    kind = (content_type or "").split(";", 1)[0].strip().lower()
    if kind in (PROTOBUF, "application/protobuf"):
        return "protobuf"
    if kind == JSON:
        return "json"
    raise BadBody(
        415,
        f"this receiver reads OTLP traces and logs sent as {PROTOBUF} or {JSON}, not "
        f"{kind or 'a body without a Content-Type'}; set the exporter's protocol to "
        "http/protobuf (the default) or http/json",
    )


def too_large_words(size: int | None = None) -> str:
    """The 413 answer: the cap, and what to change at the exporter."""
    got = f" ({size_words(size)})" if size is not None else ""
    return (
        f"this export request is larger than the receiver takes{got}: at most "
        f"{size_words(MAX_OTLP_BODY_BYTES)} as sent and {size_words(MAX_OTLP_DECODED_BYTES)} "
        "unpacked; export smaller batches (OTEL_BSP_MAX_EXPORT_BATCH_SIZE)"
    )


def unpacked(body: bytes, content_encoding: str | None) -> bytes:
    """The body with gzip (or deflate) undone, refused once it would grow past the cap."""
    kind = (content_encoding or "identity").strip().lower()
    if kind in ("", "identity"):
        return body
    if kind not in ("gzip", "deflate"):
        raise BadBody(415, f"this receiver reads bodies compressed with gzip or none, not {kind!r}")
    wbits = 16 + zlib.MAX_WBITS if kind == "gzip" else zlib.MAX_WBITS
    inflater = zlib.decompressobj(wbits)
    try:
        data = inflater.decompress(body, MAX_OTLP_DECODED_BYTES)
    except zlib.error:
        raise BadBody(400, f"the body says it is {kind} but cannot be unpacked") from None
    if inflater.unconsumed_tail:
        raise BadBody(413, too_large_words())
    if not inflater.eof:
        raise BadBody(400, f"the {kind} body ends before its end: it was cut short")
    return data


def otlp_document(data: bytes, encoding: Encoding, signal: Signal = "traces") -> dict[str, Any]:
    """The OTLP JSON document (``{"resourceSpans": [...]}``, or ``{"resourceLogs": [...]}``
    for logs) an export request carries."""
    if encoding == "protobuf":
        return _from_protobuf(data, signal)
    return _from_json(data, signal)


def _from_protobuf(data: bytes, signal: Signal) -> dict[str, Any]:
    request = _REQUEST[signal]()
    try:
        request.ParseFromString(data)
    except DecodeError:
        raise BadBody(
            400,
            f"the body is not an OTLP {type(request).__name__} in protobuf; send "
            f"{_WHAT[signal]} with an OpenTelemetry exporter (OTLP over HTTP)",
        ) from None
    document: dict[str, Any] = json_format.MessageToDict(request)
    document.setdefault(_ROOT[signal], [])
    return document


def _from_json(data: bytes, signal: Signal) -> dict[str, Any]:
    try:
        text = data.decode("utf-8")
        document = safe_json.loads(text, max_depth=MAX_TRACE_NESTING)
    except UnicodeDecodeError:
        raise BadBody(400, "the JSON body is not UTF-8 text") from None
    except safe_json.JsonLimitError as e:
        raise BadBody(400, f"the JSON body cannot be read: {e.message}") from None
    except json.JSONDecodeError as e:
        raise BadBody(
            400, f"the body is not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
        ) from None
    root = _ROOT[signal]
    if not isinstance(document, dict) or not isinstance(document.get(root, []), list):
        kind = "trace" if signal == "traces" else "logs"
        raise BadBody(
            400, f'the JSON body is not an OTLP {kind} export: expected {{"{root}": [...]}}'
        )
    document.setdefault(root, [])
    return document


def span_count(document: dict[str, Any]) -> int:
    """How many spans a document holds (as sent, good or bad)."""
    total = 0
    for entry in document.get("resourceSpans") or []:
        if not isinstance(entry, dict):
            continue
        for scope in entry.get("scopeSpans") or []:
            spans = scope.get("spans") if isinstance(scope, dict) else None
            total += len(spans) if isinstance(spans, list) else 0
    return total


def export_answer(
    encoding: Encoding, *, rejected: int = 0, message: str = "", signal: Signal = "traces"
) -> bytes:
    """The success body: an ``ExportTraceServiceResponse`` (``ExportLogsServiceResponse``
    for logs), with ``partial_success`` when some spans or records were left out (how many,
    and why in words)."""
    response: ExportTraceServiceResponse | ExportLogsServiceResponse
    if signal == "traces":
        response = ExportTraceServiceResponse()
        if rejected or message:
            response.partial_success.rejected_spans = rejected
            response.partial_success.error_message = message
    else:
        response = ExportLogsServiceResponse()
        if rejected or message:
            response.partial_success.rejected_log_records = rejected
            response.partial_success.error_message = message
    if encoding == "protobuf":
        serialized: bytes = response.SerializeToString()
        return serialized
    return json.dumps(json_format.MessageToDict(response)).encode()


def refusal_body(encoding: Encoding, status: int, words: str) -> tuple[bytes, str]:
    """A refusal's body and content type: a ``google.rpc.Status``-shaped JSON object for a
    JSON client, the words as plain text for a protobuf client (its exporter logs them)."""
    if encoding == "json":
        code = {400: 3, 413: 3, 415: 3, 429: 8, 503: 14}.get(status, 2)
        return json.dumps({"code": code, "message": words}).encode(), JSON
    return words.encode(), "text/plain; charset=utf-8"
