"""A fake OpenTelemetry collector: an OTLP/HTTP server on 127.0.0.1 that records what is sent.

It decodes each ``POST /v1/logs`` body (protobuf, gzip or not) with the OpenTelemetry
project's own messages and keeps every log record with its resource; tests wait for records
with :meth:`FakeCollector.wait_for_records` (a condition, never a sleep).
"""

from __future__ import annotations

import gzip
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)


@dataclass(frozen=True)
class ReceivedRecord:
    """One log record as the collector received it."""

    event_name: str
    trace_id: str
    span_id: str
    attributes: dict[str, Any]
    resource: dict[str, Any]


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


class FakeCollector:
    """Start with ``with FakeCollector() as collector:``; ``collector.url`` is its address."""

    def __init__(self) -> None:
        self.records: list[ReceivedRecord] = []
        self.paths: list[str] = []
        self._changed = threading.Condition()
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                collector._received(self.path, body)
                answer = ExportLogsServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _received(self, path: str, body: bytes) -> None:
        request = ExportLogsServiceRequest.FromString(body)
        found = [
            ReceivedRecord(
                record.event_name,
                record.trace_id.hex(),
                record.span_id.hex(),
                _attributes(record.attributes),
                _attributes(resource_logs.resource.attributes),
            )
            for resource_logs in request.resource_logs
            for scope_logs in resource_logs.scope_logs
            for record in scope_logs.log_records
        ]
        with self._changed:
            self.paths.append(path)
            self.records.extend(found)
            self._changed.notify_all()

    def wait_for_records(self, count: int, timeout_s: float = 30.0) -> list[ReceivedRecord]:
        """The records once at least ``count`` arrived; AssertionError after ``timeout_s``."""
        with self._changed:
            arrived = self._changed.wait_for(lambda: len(self.records) >= count, timeout_s)
            assert arrived, f"{len(self.records)} of {count} records arrived"
            return list(self.records)

    def __enter__(self) -> FakeCollector:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
