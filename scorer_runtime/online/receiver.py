"""The OTLP/HTTP receiver: ``POST /v1/traces`` from an OpenTelemetry SDK or Collector,
stored the way a trace file is imported; and ``POST /v1/logs``, whose evaluation events
(``gen_ai.evaluation.result``, from other tools) are stored as external scores, as are those
that arrive as span events.

Each export request is read (:mod:`otlp_body`), its spans checked by the trace reader (bad
spans named and left out, the good ones kept) and saved with :func:`save_traces` (a trace
arriving in pieces is merged), one request at a time on one writer thread. The answer is sent
only after the commit, so an acknowledged span survives the receiver being killed. When more
bodies wait than the receiver holds (:attr:`ReceiverConfig.bodies_in_flight`), or the store
is busy, the answer is 429 / 503 with ``Retry-After``: the exporter sends the batch again,
nothing is dropped in silence. Requests addressed to a foreign ``Host`` get 403, as the
studio's (DNS rebinding). A log record that is not an evaluation event is ignored (it is
not ours to keep); an evaluation event that cannot be read is named in ``partial_success``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiohttp import web
from aiohttp.typedefs import Handler
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

from scorer_runtime.hosts import allowed_hosts, host_allowed
from scorer_runtime.limits import MAX_OTLP_BODY_BYTES, MAX_PROBLEMS_SHOWN, more_words
from scorer_runtime.online.otlp_body import (
    BadBody,
    Encoding,
    Signal,
    encoding_of,
    export_answer,
    otlp_document,
    refusal_body,
    span_count,
    too_large_words,
    unpacked,
)
from scorer_runtime.store import save_external_scores, save_traces, session_scope
from scorer_runtime.traces import read_otlp_document
from scorer_runtime.traces.received_evaluations import evaluations_in_logs, log_record_count

TRACES_PATH = "/v1/traces"
LOGS_PATH = "/v1/logs"
DEFAULT_PORT = 4318
"""The port OTLP/HTTP exporters send to unless told otherwise."""
SOURCE = "OTLP receiver"
"""What the trace list shows as where a received trace came from."""
_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ReceiverConfig:
    """Where the receiver listens and how much it holds at once."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    bodies_in_flight: int = 8
    """Export requests held at once (read, waiting for or on the writer); one more is 429."""
    retry_after_s: int = 1
    """What ``Retry-After`` says on a 429 or 503."""
    hosts: frozenset[str] = field(default_factory=allowed_hosts)
    """The ``Host`` names answered (loopback, allowed names); others get 403."""


@dataclass(frozen=True, slots=True)
class Stored:
    """What one export request stored: spans (or log records) kept, those left out and why,
    and the evaluation events stored as new external scores."""

    spans: int
    rejected: int
    message: str
    evaluations: int = 0


class _Busy(Exception):
    """The store could not take the request now (locked, or its connection failed)."""


class TraceReceiver:
    """The receiver's request handling, one writer thread storing the requests in turn."""

    def __init__(self, engine: Engine, config: ReceiverConfig) -> None:
        self.engine = engine
        self.config = config
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="otlp-writer")
        self._in_flight = 0

    def app(self) -> web.Application:
        """The aiohttp application: ``POST /v1/traces`` and ``/v1/logs`` behind the host
        check."""
        made = web.Application(client_max_size=MAX_OTLP_BODY_BYTES, middlewares=[self._host_guard])
        made.router.add_post(TRACES_PATH, self.export)
        made.router.add_post(LOGS_PATH, self.export_logs)
        made.on_cleanup.append(self._close)
        return made

    async def _close(self, _app: web.Application) -> None:
        self._writer.shutdown(wait=True)

    @web.middleware
    async def _host_guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if host_allowed(request.raw_headers, self.config.hosts):
            answer: web.StreamResponse = await handler(request)
            return answer
        return web.Response(
            status=403,
            text="This address is not one the Scorer Studio receiver answers to. Send traces "
            "to http://127.0.0.1:PORT/v1/traces; to allow another name, start it with "
            "'scorer-studio receive --allow-host NAME'.",
        )

    async def export(self, request: web.Request) -> web.Response:
        """One trace export request: stored, then acknowledged (or refused in words)."""
        return await self._export(request, "traces", self.store)

    async def export_logs(self, request: web.Request) -> web.Response:
        """One logs export request: its evaluation events stored, then acknowledged."""
        return await self._export(request, "logs", self.store_logs)

    async def _export(self, request: web.Request, signal: Signal, store: _Store) -> web.Response:
        try:
            encoding = encoding_of(request.content_type)
        except BadBody as e:
            return _refusal("protobuf", e.status, e.words)
        if self._in_flight >= self.config.bodies_in_flight:
            return self._retry_later(encoding, 429, "the receiver is busy")
        self._in_flight += 1
        try:
            return await self._take(request, encoding, signal, store)
        finally:
            self._in_flight -= 1

    async def _take(
        self, request: web.Request, encoding: Encoding, signal: Signal, store: _Store
    ) -> web.Response:
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return _refusal(encoding, 413, too_large_words(request.content_length))
        loop = asyncio.get_running_loop()
        try:
            stored = await loop.run_in_executor(
                self._writer, store, body, request.headers.get("Content-Encoding"), encoding
            )
        except BadBody as e:
            return _refusal(encoding, e.status, e.words)
        except _Busy:
            return self._retry_later(encoding, 503, "the store is busy")
        except Exception as e:  # a fault of ours: said in words, never acknowledged
            _log.exception("the receiver could not store an export request")
            words = f"the receiver failed to store this batch ({type(e).__name__}); see its log"
            return _refusal(encoding, 500, words)
        answer = export_answer(
            encoding, rejected=stored.rejected, message=stored.message, signal=signal
        )
        return web.Response(body=answer, content_type=_content_type(encoding))

    def store(self, body: bytes, content_encoding: str | None, encoding: Encoding) -> Stored:
        """Read one body and store its good spans (on the writer thread); raises
        :class:`BadBody` for a body that is not OTLP, :class:`_Busy` when the store is."""
        document = otlp_document(unpacked(body, content_encoding), encoding)
        found = read_otlp_document(document, source=SOURCE)
        kept = sum(len(trace.spans) for trace in found.traces)
        new = 0
        if found.traces or found.evaluations:
            try:
                with session_scope(self.engine) as session:
                    saved = save_traces(
                        session, traces=found.traces, source=SOURCE, evaluations=found.evaluations
                    )
                new = saved.external_scores
            except OperationalError as e:
                _log.warning("the store could not take %d spans now: %s", kept, e.orig or e)
                raise _Busy from None
        rejected = max(span_count(document) - kept, 0)
        return Stored(kept, rejected, _problem_words(found.problems), new)

    def store_logs(self, body: bytes, content_encoding: str | None, encoding: Encoding) -> Stored:
        """Read one logs body and store its evaluation events as external scores (on the
        writer thread); other log records are ignored. Raises as :meth:`store` does."""
        document = otlp_document(unpacked(body, content_encoding), encoding, "logs")
        found = evaluations_in_logs(document)
        new = 0
        if found.evaluations:
            try:
                with session_scope(self.engine) as session:
                    new = save_external_scores(session, evaluations=found.evaluations)
            except OperationalError as e:
                _log.warning("the store could not take evaluation events now: %s", e.orig or e)
                raise _Busy from None
        kept = len(found.evaluations)
        rejected = log_record_count(document) - kept - found.ignored
        return Stored(kept, rejected, _problem_words(found.problems), new)

    def _retry_later(self, encoding: Encoding, status: int, why: str) -> web.Response:
        wait = self.config.retry_after_s
        words = f"{why}; send this batch again in {wait} s (nothing of it was stored)"
        response = _refusal(encoding, status, words)
        response.headers["Retry-After"] = str(wait)
        return response


_Store = Callable[[bytes, str | None, Encoding], Stored]
"""How a body is stored: :meth:`TraceReceiver.store` or :meth:`TraceReceiver.store_logs`."""


def _content_type(encoding: Encoding) -> str:
    return "application/x-protobuf" if encoding == "protobuf" else "application/json"


def _refusal(encoding: Encoding, status: int, words: str) -> web.Response:
    body, content_type = refusal_body(encoding, status, words)
    return web.Response(status=status, body=body, headers={"Content-Type": content_type})


def _problem_words(problems: Sequence[object]) -> str:
    """The partial-success message: each left-out span's (or event's) problem, in words."""
    if not problems:
        return ""
    shown = "; ".join(str(p) for p in problems[:MAX_PROBLEMS_SHOWN])
    more = more_words(len(problems))
    return f"left out: {shown}{'; ' + more if more else ''}"


async def _start(receiver: TraceReceiver) -> tuple[web.AppRunner, int]:
    # Bodies are unpacked by otlp_body, under its own cap on what they may grow to.
    runner = web.AppRunner(
        receiver.app(), access_log=None, handle_signals=False, auto_decompress=False
    )
    await runner.setup()
    site = web.TCPSite(runner, receiver.config.host, receiver.config.port)
    await site.start()
    # The bound port (0 asks the system for a free one).
    port = runner.addresses[0][1] if runner.addresses else receiver.config.port
    return runner, int(port)


@dataclass
class _Served:
    """What the receiver's thread tells the thread that started it."""

    ready: threading.Event = field(default_factory=threading.Event)
    port: int = 0
    error: BaseException | None = None
    stop: asyncio.Event | None = None


async def _serve_until_stopped(receiver: TraceReceiver, served: _Served) -> None:
    try:
        runner, served.port = await _start(receiver)
    except BaseException as e:
        served.error = e
        served.ready.set()
        return
    served.stop = asyncio.Event()
    served.ready.set()
    try:
        await served.stop.wait()
    finally:
        await runner.cleanup()


@contextmanager
def running_receiver(receiver: TraceReceiver) -> Iterator[int]:
    """The receiver served on a thread of its own while the block runs; yields its port
    (``config.port`` 0 picks a free one). For the CLI, the tests and the benchmark alike."""
    loop = asyncio.new_event_loop()
    served = _Served()
    thread = threading.Thread(
        target=loop.run_until_complete,
        args=(_serve_until_stopped(receiver, served),),
        name="otlp-receiver",
        daemon=True,
    )
    thread.start()
    served.ready.wait()
    if served.error is not None:
        thread.join()
        loop.close()
        raise served.error
    try:
        yield served.port
    finally:
        assert served.stop is not None
        loop.call_soon_threadsafe(served.stop.set)
        thread.join()
        loop.close()
