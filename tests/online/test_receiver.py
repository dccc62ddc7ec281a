"""The OTLP/HTTP receiver fed by the real OpenTelemetry SDK: its OTLP/HTTP exporter
(protobuf, gzip) and OTLP/JSON as a Collector sends it; what is stored, what a bad body is
told, and how a burst the store cannot take is answered."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceResponse,
)
from opentelemetry.sdk.trace.export import SpanExportResult
from sqlalchemy import Engine

from scorer_runtime.limits import MAX_OTLP_BODY_BYTES
from scorer_runtime.online.receiver import SOURCE, ReceiverConfig, TraceReceiver, running_receiver
from scorer_runtime.store import get_trace, list_traces, read_session
from tests.online.senders import (
    AckRecorder,
    JsonSpanExporter,
    agent_trace,
    otlp_json,
    post,
    protobuf_exporter,
    tracer_provider,
)

PROTOBUF = "application/x-protobuf"


@pytest.fixture
def endpoint(engine: Engine) -> Iterator[str]:
    with running_receiver(TraceReceiver(engine, ReceiverConfig(port=0))) as port:
        yield f"http://127.0.0.1:{port}/v1/traces"


def _stored_span_ids(engine: Engine, trace_id: str) -> set[str]:
    with read_session(engine) as session:
        return {span.span_id for span in get_trace(session, trace_id=trace_id).spans}


def test_the_sdk_exporter_in_protobuf_stores_the_agent_trace(engine, endpoint):
    with tracer_provider(protobuf_exporter(endpoint, gzip_body=True)) as provider:
        trace_id, span_ids = agent_trace(provider)

    with read_session(engine) as session:
        trace = get_trace(session, trace_id=trace_id)
        listed = list_traces(session)
    assert {s.span_id for s in trace.spans} == set(span_ids)
    assert sorted(s.type for s in trace.spans) == ["agent_run", "model_generation", "tool_call"]
    agent = trace.of_type("agent_run")[0]
    assert agent.gen_ai.agent_name == "support"
    assert agent.resource["service.name"] == "support-agent"
    assert agent.input[0]["parts"][0]["content"] == "Where is my order?"
    assert [(t.trace_id, t.source, t.span_count) for t in listed] == [(trace_id, SOURCE, 3)]


@pytest.mark.parametrize("gzip_body", [False, True])
def test_otlp_json_with_hex_ids_stores_the_same_trace_as_protobuf(engine, endpoint, gzip_body):
    sender = JsonSpanExporter(endpoint, gzip_body=gzip_body)
    with tracer_provider(sender, batch=True) as provider:
        trace_id, span_ids = agent_trace(provider)

    assert sender.answers == [(200, {})]
    assert _stored_span_ids(engine, trace_id) == set(span_ids)
    with read_session(engine) as session:
        tool = get_trace(session, trace_id=trace_id).of_type("tool_call")[0]
    assert tool.gen_ai.tool_name == "lookup_order"
    assert tool.input == {"order": 42}


def test_a_trace_arriving_in_pieces_is_merged(engine, endpoint):
    """Spans end one by one and the simple processor exports each on its own: three requests
    for one trace, merged into one stored trace."""
    recorder = AckRecorder(protobuf_exporter(endpoint))
    with tracer_provider(recorder) as provider:
        trace_id, span_ids = agent_trace(provider)

    assert recorder.acks == 3
    assert _stored_span_ids(engine, trace_id) == set(span_ids)
    with read_session(engine) as session:
        assert len(list_traces(session)) == 1


def test_the_same_batch_sent_twice_changes_nothing(engine, endpoint):
    captured: list[bytes] = []

    class Capture(JsonSpanExporter):
        def export(self, spans):  # type: ignore[no-untyped-def]
            captured.append(json.dumps(otlp_json(spans)).encode())
            return super().export(spans)

    with tracer_provider(Capture(endpoint), batch=True) as provider:
        trace_id, span_ids = agent_trace(provider)
    status, answer = post(endpoint, captured[0])  # an exporter's retry after a lost answer

    assert (status, json.loads(answer)) == (200, {})
    assert _stored_span_ids(engine, trace_id) == set(span_ids)


def test_bad_spans_are_named_and_skipped_and_the_good_ones_stored(engine, endpoint):
    captured: list[dict] = []

    class Spoil(JsonSpanExporter):
        def export(self, spans):  # type: ignore[no-untyped-def]
            document = otlp_json(spans)
            bad = document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
            bad["traceId"] = "not-an-id"
            captured.append(bad)
            status, answer = post(self.endpoint, json.dumps(document).encode())
            self.answers.append((status, json.loads(answer)))
            return SpanExportResult.SUCCESS if status == 200 else SpanExportResult.FAILURE

    sender = Spoil(endpoint)
    with tracer_provider(sender, batch=True) as provider:
        trace_id, span_ids = agent_trace(provider)

    [(status, answer)] = sender.answers
    assert status == 200
    partial = answer["partialSuccess"]
    assert partial["rejectedSpans"] == "1"  # int64 is a string in OTLP/JSON
    assert captured[0]["spanId"] in partial["errorMessage"]
    assert "traceId must be a hex string" in partial["errorMessage"]
    stored = _stored_span_ids(engine, trace_id)
    assert stored == set(span_ids) - {captured[0]["spanId"]}


def _words(answer: bytes) -> str:
    """A refusal's words: the message of a JSON client's Status, or a protobuf client's text."""
    try:
        return str(json.loads(answer).get("message", answer.decode()))
    except ValueError:
        return answer.decode()


def test_a_partial_success_reaches_a_protobuf_client_as_the_response_message(engine, endpoint):
    document = {
        "resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "ab" * 16, "spanId": "cd" * 8}]}]}]
    }
    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = json_format.ParseDict(document, ExportTraceServiceRequest())
    status, body = post(endpoint, request.SerializeToString(), content_type=PROTOBUF)

    answer = ExportTraceServiceResponse.FromString(body)
    assert status == 200
    assert answer.partial_success.rejected_spans == 1
    assert "name is missing" in answer.partial_success.error_message
    with read_session(engine) as session:
        assert list_traces(session) == []


@pytest.mark.parametrize(
    ("body", "content_type", "status", "words"),
    [
        (b"\xff\xff\xff", PROTOBUF, 400, "not an OTLP ExportTraceServiceRequest in protobuf"),
        (b'{"resourceSpans": ', "application/json", 400, "not valid JSON"),
        (b'{"spans": []}', "application/json", 200, ""),
        (b'{"resourceSpans": {}}', "application/json", 400, 'expected {"resourceSpans": [...]}'),
        (b"[1, 2]", "application/json", 400, "not an OTLP trace export"),
        (b"hello", "text/plain", 415, "application/x-protobuf or application/json"),
    ],
)
def test_a_body_that_is_not_otlp_gets_its_status_in_words(
    engine, endpoint, body, content_type, status, words
):
    got, answer = post(endpoint, body, content_type=content_type)

    assert got == status
    assert words in _words(answer)
    with read_session(engine) as session:
        assert list_traces(session) == []


def test_a_body_that_says_gzip_but_is_not_gets_400(endpoint):
    status, answer = post(
        endpoint, b"plain", content_type=PROTOBUF, headers={"Content-Encoding": "gzip"}
    )
    assert (status, answer.decode()) == (400, "the body says it is gzip but cannot be unpacked")


def test_a_body_over_the_limit_gets_413_naming_the_limit(endpoint):
    status, answer = post(endpoint, b"\x00" * (MAX_OTLP_BODY_BYTES + 1), content_type=PROTOBUF)
    assert status == 413
    assert "at most 20 MB as sent" in answer.decode()


def test_a_gzip_bomb_is_refused_before_it_is_unpacked(endpoint):
    bomb = b"\x00" * (65 * 1024 * 1024)  # 65 MB of zeros: about 64 KB gzipped
    status, answer = post(endpoint, bomb, content_type=PROTOBUF, gzip_body=True)
    assert status == 413
    assert "64 MB unpacked" in answer.decode()


def test_a_foreign_host_is_refused_and_nothing_is_stored(engine, endpoint):
    with tracer_provider(JsonSpanExporter(endpoint), batch=True) as provider:
        agent_trace(provider)
    document = {"resourceSpans": []}
    status, answer = post(
        endpoint, json.dumps(document).encode(), headers={"Host": "attacker.example:4318"}
    )
    assert status == 403
    assert "--allow-host" in answer.decode()


class _HeldWriter(TraceReceiver):
    """A receiver whose writer holds the first request until the test lets it go, and that
    tells the test each time it asks an exporter to send again."""

    def __init__(self, engine: Engine, config: ReceiverConfig) -> None:
        super().__init__(engine, config)
        self.entered = threading.Event()
        self.release = threading.Event()
        self.refused = threading.Event()

    def store(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if not self.entered.is_set():
            self.entered.set()
            assert self.release.wait(30)
        return super().store(*args, **kwargs)

    def _retry_later(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.refused.set()
        return super()._retry_later(*args, **kwargs)


def _batch_of_one_trace() -> tuple[bytes, str]:
    captured: list[bytes] = []

    class Capture(JsonSpanExporter):
        def export(self, spans):  # type: ignore[no-untyped-def]
            captured.append(json.dumps(otlp_json(spans)).encode())
            return SpanExportResult.SUCCESS

    with tracer_provider(Capture("unused"), batch=True) as provider:
        trace_id, _ = agent_trace(provider, "a held batch")
    return captured[0], trace_id


def test_a_burst_beyond_the_bodies_in_flight_gets_429_and_the_exporter_sends_again(engine):
    receiver = _HeldWriter(engine, ReceiverConfig(port=0, bodies_in_flight=1))
    held_body, held_trace = _batch_of_one_trace()
    with running_receiver(receiver) as port:
        url = f"http://127.0.0.1:{port}/v1/traces"
        held: list[tuple[int, bytes]] = []
        first = threading.Thread(target=lambda: held.append(post(url, held_body)))
        first.start()
        assert receiver.entered.wait(30)

        recorder = AckRecorder(protobuf_exporter(url))
        done: list[str] = []

        def send() -> None:
            with tracer_provider(recorder) as provider:
                done.append(agent_trace(provider)[0])

        second = threading.Thread(target=send)
        second.start()
        assert receiver.refused.wait(30)  # the exporter's first request was turned away
        receiver.release.set()
        first.join(30)
        second.join(60)

    assert held[0][0] == 200
    assert recorder.acks == 3  # every export acknowledged after its retry
    assert _stored_span_ids(engine, done[0]) == set(recorder.acked)
    assert len(_stored_span_ids(engine, held_trace)) == 3


def test_the_429_answer_names_the_wait_and_stores_nothing_of_the_batch(engine):
    receiver = _HeldWriter(engine, ReceiverConfig(port=0, bodies_in_flight=1, retry_after_s=2))
    held_body, _ = _batch_of_one_trace()
    other_body, other_trace = _batch_of_one_trace()
    with running_receiver(receiver) as port:
        url = f"http://127.0.0.1:{port}/v1/traces"
        first = threading.Thread(target=lambda: post(url, held_body))
        first.start()
        assert receiver.entered.wait(30)
        status, retry_after, answer = _post_with_headers(url, other_body)
        receiver.release.set()
        first.join(30)

    assert (status, retry_after) == (429, "2")
    assert json.loads(answer) == {
        "code": 8,
        "message": "the receiver is busy; send this batch again in 2 s (nothing of it was stored)",
    }
    with read_session(engine) as session:
        assert other_trace not in {t.trace_id for t in list_traces(session)}


def test_a_locked_store_gets_503_with_retry_after_and_the_batch_is_stored_when_sent_again(
    db_url, tmp_path
):
    if not db_url.startswith("sqlite"):
        pytest.skip("an SQLite store's single writer; PostgreSQL writers do not lock each other")
    from sqlalchemy import text

    from scorer_runtime.store import ensure_schema, make_engine
    from scorer_runtime.store.tables import TraceRecord

    engine = make_engine(db_url, busy_timeout_ms=50)
    ensure_schema(engine)
    blocker = make_engine(db_url)
    body, trace_id = _batch_of_one_trace()
    try:
        with running_receiver(TraceReceiver(engine, ReceiverConfig(port=0))) as port:
            url = f"http://127.0.0.1:{port}/v1/traces"
            with blocker.connect() as holding:  # another writer holds the store
                holding.execute(text(f"DELETE FROM {TraceRecord.__tablename__}"))
                refused = _post_with_headers(url, body)
                holding.rollback()
            accepted = post(url, body)
        with read_session(engine) as session:
            stored = {t.trace_id for t in list_traces(session)}
    finally:
        engine.dispose()
        blocker.dispose()

    status, retry_after, words = refused
    assert (status, retry_after) == (503, "1")
    assert "the store is busy; send this batch again in 1 s" in words
    assert accepted[0] == 200
    assert stored == {trace_id}


def _post_with_headers(url: str, body: bytes) -> tuple[int, str | None, str]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        url, data=body, headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers.get("Retry-After"), response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Retry-After"), e.read().decode()


def test_a_fault_while_storing_is_answered_500_in_words_never_acknowledged(engine):
    class Broken(TraceReceiver):
        def store(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise RuntimeError("disk on fire")

    body, _ = _batch_of_one_trace()
    with running_receiver(Broken(engine, ReceiverConfig(port=0))) as port:
        status, answer = post(f"http://127.0.0.1:{port}/v1/traces", body)

    assert status == 500
    assert json.loads(answer)["message"] == (
        "the receiver failed to store this batch (RuntimeError); see its log"
    )
