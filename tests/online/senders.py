"""Clients of the receiver built on the real OpenTelemetry SDK: its OTLP/HTTP exporter
(protobuf), and a JSON exporter that sends what a Collector's otlphttp exporter sends with
``encoding: json`` (the SDK's own encoding of the spans, written in the OTLP spec's JSON: field
names in lowerCamelCase, trace and span ids in hex)."""

from __future__ import annotations

import base64
import gzip
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)

_ID_KEYS = ("traceId", "spanId", "parentSpanId")


def otlp_json(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """The spans as OTLP/JSON: the SDK's protobuf encoding, by protobuf's JSON mapping, with
    ids turned from protobuf's base64 into the hex the OTLP spec (and a Collector) writes."""
    document = json_format.MessageToDict(encode_spans(spans))
    for entry in document.get("resourceSpans", []):
        for scope in entry.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in _ID_KEYS:
                    if span.get(key):
                        span[key] = base64.b64decode(span[key]).hex()
    return document


@dataclass
class JsonSpanExporter(SpanExporter):
    """An exporter POSTing OTLP/JSON (gzip when asked); records each answer it got."""

    endpoint: str
    gzip_body: bool = False
    answers: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        status, answer = post(
            self.endpoint, json.dumps(otlp_json(spans)).encode(), gzip_body=self.gzip_body
        )
        self.answers.append((status, json.loads(answer or b"{}")))
        return SpanExportResult.SUCCESS if status == 200 else SpanExportResult.FAILURE

    def shutdown(self) -> None:
        return None


def post(
    endpoint: str,
    body: bytes,
    *,
    content_type: str = "application/json",
    gzip_body: bool = False,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes]:
    """One POST: its status and body (an HTTP error's too)."""
    sent = {"Content-Type": content_type, **(headers or {})}
    if gzip_body:
        body = gzip.compress(body)
        sent["Content-Encoding"] = "gzip"
    request = urllib.request.Request(endpoint, data=body, headers=sent, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


class AckRecorder(SpanExporter):
    """Wraps an exporter: the span ids of every export the receiver acknowledged, and an
    event set once ``wanted`` exports were acknowledged."""

    def __init__(self, inner: SpanExporter, wanted: int = 0) -> None:
        self.inner = inner
        self.acked: list[str] = []
        self.acks = 0
        self.wanted = wanted
        self.enough = threading.Event()
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = self.inner.export(spans)
        if result is SpanExportResult.SUCCESS:
            with self._lock:
                self.acked.extend(format(s.context.span_id, "016x") for s in spans)
                self.acks += 1
                if self.wanted and self.acks >= self.wanted:
                    self.enough.set()
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()


def protobuf_exporter(
    endpoint: str, *, gzip_body: bool = True, timeout: float = 10
) -> OTLPSpanExporter:
    """The SDK's own OTLP/HTTP exporter (protobuf)."""
    compression = Compression.Gzip if gzip_body else Compression.NoCompression
    return OTLPSpanExporter(endpoint=endpoint, compression=compression, timeout=timeout)


@contextmanager
def tracer_provider(
    exporter: SpanExporter, *, batch: bool = False, **batch_options: Any
) -> Iterator[TracerProvider]:
    """A tracer provider exporting through ``exporter``; flushed and shut down at the end."""
    provider = TracerProvider(resource=Resource.create({"service.name": "support-agent"}))
    processor = (
        BatchSpanProcessor(exporter, **batch_options) if batch else SimpleSpanProcessor(exporter)
    )
    provider.add_span_processor(processor)
    try:
        yield provider
    finally:
        provider.force_flush()
        provider.shutdown()


def agent_trace(
    provider: TracerProvider, question: str = "Where is my order?"
) -> tuple[str, list[str]]:
    """One agent trace as a GenAI-instrumented app emits it (agent → model call, tool call);
    returns its trace id and span ids in hex."""
    tracer = provider.get_tracer("support-agent")
    ids: list[str] = []
    with tracer.start_as_current_span("invoke_agent support") as agent:
        agent.set_attribute("gen_ai.operation.name", "invoke_agent")
        agent.set_attribute("gen_ai.agent.name", "support")
        agent.set_attribute(
            "gen_ai.input.messages",
            json.dumps([{"role": "user", "parts": [{"type": "text", "content": question}]}]),
        )
        agent.set_attribute(
            "gen_ai.output.messages",
            json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": "On its way."}]}]
            ),
        )
        with tracer.start_as_current_span("chat gpt-4o-mini") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute("gen_ai.request.model", "gpt-4o-mini")
            chat.set_attribute("gen_ai.usage.input_tokens", 12)
            ids.append(format(chat.get_span_context().span_id, "016x"))
        with tracer.start_as_current_span("execute_tool lookup_order") as tool:
            tool.set_attribute("gen_ai.operation.name", "execute_tool")
            tool.set_attribute("gen_ai.tool.name", "lookup_order")
            tool.set_attribute("gen_ai.tool.call.arguments", json.dumps({"order": 42}))
            ids.append(format(tool.get_span_context().span_id, "016x"))
        ids.append(format(agent.get_span_context().span_id, "016x"))
        trace_id = format(agent.get_span_context().trace_id, "032x")
    return trace_id, ids
