"""A fake OpenAI-compatible chat-completions server for tests, reached over real HTTP.

The server runs aiohttp on its own asyncio loop in a background thread, so it serves sync tests
and pytest-asyncio tests alike. Script it with :meth:`FakeOpenAIServer.reply` and
:meth:`FakeOpenAIServer.fault`; inspect what it received with :attr:`FakeOpenAIServer.requests`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from aiohttp import web

__all__ = [
    "CHAT_PATH",
    "DropMode",
    "FakeOpenAIServer",
    "RecordedRequest",
    "SecondCount",
    "error_body",
]

CHAT_PATH = "/v1/chat/completions"
DropMode = Literal["before_response", "mid_body"]

# status -> (message, type, code) of the default error body, in OpenAI's style.
_DEFAULT_ERRORS: dict[int, tuple[str, str, str | None]] = {
    400: ("Invalid request.", "invalid_request_error", None),
    401: ("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"),
    403: ("You are not allowed to access this resource.", "permission_error", None),
    404: ("The model does not exist.", "invalid_request_error", "model_not_found"),
    408: ("Request timed out.", "timeout_error", None),
    429: ("Rate limit reached for requests.", "requests", "rate_limit_exceeded"),
    500: ("The server had an error while processing your request.", "server_error", None),
    502: ("Bad gateway.", "server_error", None),
    503: ("The engine is currently overloaded.", "server_error", "service_unavailable"),
    504: ("Gateway timeout.", "server_error", None),
}


def error_body(status: int, message: str | None = None) -> dict[str, Any]:
    """Return an OpenAI-style error body for ``status``, with an optional custom message."""
    fallback = ("Error.", "server_error" if status >= 500 else "invalid_request_error", None)
    default_message, kind, code = _DEFAULT_ERRORS.get(status, fallback)
    error = {"message": message or default_message, "type": kind, "param": None, "code": code}
    return {"error": error}


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received, as recorded when it arrived."""

    path: str
    headers: dict[str, str]
    json: Any
    received_at: float

    @property
    def last_user_content(self) -> str:
        """The text of the last ``user`` message of a chat request (``""`` if none).

        A list content (multi-part message) gives its text parts joined by newlines.
        """
        messages = self.json.get("messages") if isinstance(self.json, dict) else None
        users = [m for m in messages or [] if isinstance(m, dict) and m.get("role") == "user"]
        content = users[-1].get("content") if users else None
        return _text_of(content)

    @property
    def all_content(self) -> str:
        """The text of every message of a chat request (system ones included), in order."""
        messages = self.json.get("messages") if isinstance(self.json, dict) else None
        found = [m.get("content") for m in messages or [] if isinstance(m, dict)]
        return "\n".join(_text_of(content) for content in found)


def _text_of(content: Any) -> str:
    """A message's text: a list content (multi-part message) gives its text parts joined."""
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


@dataclass
class _Rule:
    """What a reply and a fault share; mutated only under the server lock."""

    when: str | None
    remaining: int | None
    latency_s: float
    skip: int

    def take(self, prompt: str) -> bool:
        """Match ``prompt`` and, if it matches, use up one of the rule's ``times``."""
        if self.remaining == 0 or (self.when is not None and self.when not in prompt):
            return False
        if self.skip > 0:  # let the first matching requests pass this rule by
            self.skip -= 1
            return False
        if self.remaining is not None:
            self.remaining -= 1
        return True


Usage = tuple[int, int] | Literal["counted"]
"""Token counts a reply reports: fixed ``(prompt_tokens, completion_tokens)``, or "counted"."""


Answerer = Callable[[str], "str | dict[str, Any] | list[Any] | None"]
"""A judge written as a function: the last user message in, the reply out (None: no match)."""


@dataclass
class _ReplyRule(_Rule):
    content: str
    usage: Usage
    finish_reason: str
    answer: Answerer | None = None
    whole: bool = False
    """Whether ``answer`` reads every message of the request, not only the last user one."""

    def take(self, prompt: str) -> bool:
        """As any rule, and for a function rule only when the function answers ``prompt``."""
        if self.answer is not None and self.answer(prompt) is None:
            return False
        return super().take(prompt)

    def content_for(self, prompt: str) -> str:
        """The reply's text for ``prompt`` (a function rule's answer, JSON-encoded if need be)."""
        if self.answer is None:
            return self.content
        found = self.answer(prompt)
        return found if isinstance(found, str) else json.dumps(found)


def _encoding() -> Any:
    """The o200k tokenizer, read from the copy the model client ships (never downloaded; the
    client itself is not imported, so it fetches nothing either)."""
    import importlib.util
    import os

    import tiktoken

    found = importlib.util.find_spec("litellm")
    assert found is not None
    assert found.submodule_search_locations
    shipped = os.path.join(found.submodule_search_locations[0], "litellm_core_utils", "tokenizers")
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", shipped)
    return tiktoken.get_encoding("o200k_base")


def counted_usage(body: dict[str, Any], content: str) -> tuple[int, int]:
    """Tokens as a provider counts them: each message's text plus 3 tokens of framing, 3 for
    the reply's start, the native schema's JSON; and the reply's text."""
    encoding = _encoding()
    prompt = 3
    for message in body.get("messages") or []:
        text = message.get("content") if isinstance(message, dict) else None
        prompt += 3 + len(encoding.encode(text if isinstance(text, str) else ""))
    if body.get("response_format") is not None:
        prompt += len(encoding.encode(json.dumps(body["response_format"])))
    return prompt, len(encoding.encode(content))


@dataclass
class _FaultRule(_Rule):
    status: int | None
    body: Any
    headers: dict[str, str]
    drop: DropMode | None
    raw: bytes | None = None
    """A body sent as is (not JSON-encoded), with the rule's Content-Type header."""


_R = TypeVar("_R", bound=_Rule)


@dataclass
class _TokenBucket:
    """A provider's rate limit: ``per_second`` requests refill it, ``burst`` fill it up."""

    per_second: float
    burst: float
    retry_after: str
    tokens: float
    refilled_at: float

    def admit(self, now: float) -> bool:
        """Take one token if there is one (call under the server lock)."""
        self.tokens = min(self.burst, self.tokens + (now - self.refilled_at) * self.per_second)
        self.refilled_at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


@dataclass(frozen=True)
class SecondCount:
    """What the server saw in one wall-clock second: requests, and of them those refused."""

    second: int
    received: int
    refused: int

    @property
    def admitted(self) -> int:
        return self.received - self.refused


def _raw_response(status: int, raw: bytes, headers: dict[str, str]) -> web.Response:
    """A response whose body is ``raw`` as is; Content-Type from ``headers`` or text/html."""
    named = {key.lower(): value for key, value in headers.items()}
    content_type = named.pop("content-type", "text/html")
    response = web.Response(status=status, body=raw, headers=named)
    response.content_type = content_type.split(";")[0].strip()
    return response


def _take(rules: list[_R], prompt: str) -> _R | None:
    """The first rule matching ``prompt``, used up by one (call under the server lock)."""
    return next((rule for rule in rules if rule.take(prompt)), None)


def _take_reply(rules: list[_ReplyRule], recorded: RecordedRequest) -> _ReplyRule | None:
    """The first reply rule matching the request (the whole request for a ``whole`` rule)."""
    prompt, everything = recorded.last_user_content, recorded.all_content
    return next((r for r in rules if r.take(everything if r.whole else prompt)), None)


def _check_times(times: int | None) -> None:
    if times is not None and times < 1:
        raise ValueError(f"times must be >= 1 or None, got {times}")


class FakeOpenAIServer:
    """An OpenAI-compatible chat-completions server on 127.0.0.1, scripted by the test.

    Use it as a context manager, or call :meth:`start` and :meth:`stop`. Every public method
    is thread-safe.
    """

    def __init__(self, host: str = "127.0.0.1", *, shutdown_timeout_s: float = 1.0) -> None:
        """Prepare (but do not start) a server that will bind ``host`` on a free port."""
        self._host = host
        self._shutdown_timeout_s = shutdown_timeout_s
        self._lock = threading.Condition()  # guards rules and log; notified on each request
        self._replies: list[_ReplyRule] = []
        self._faults: list[_FaultRule] = []
        self._log: list[RecordedRequest] = []
        self._ids = itertools.count(1)
        self._port: int | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_event: asyncio.Event | None = None
        self._startup_error: BaseException | None = None
        self._gate: asyncio.Event | None = None  # set while requests are held: released
        self._bucket: _TokenBucket | None = None
        self._seconds: dict[int, list[int]] = {}  # wall-clock second -> [received, refused]
        self._let_through = 0  # requests that still pass a closed gate

    # ------------------------------------------------------------------------- lifecycle

    def start(self, timeout_s: float = 10.0) -> FakeOpenAIServer:
        """Start serving in a background thread; return once the port is bound."""
        if self._thread is not None:
            raise RuntimeError("server already started")
        ready = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(ready,), name="fake-openai-server", daemon=True
        )
        self._thread.start()
        if not ready.wait(timeout_s):
            raise RuntimeError("fake OpenAI server did not start in time")
        if self._startup_error is not None:
            self._thread.join()
            self._thread = None
            raise RuntimeError("fake OpenAI server failed to start") from self._startup_error
        return self

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop serving: wake pending latency sleeps, close connections, join the thread."""
        thread, loop, stop_event = self._thread, self._loop, self._stop_event
        if thread is None:
            return
        if loop is not None and stop_event is not None:
            with contextlib.suppress(RuntimeError):  # the loop has already closed
                loop.call_soon_threadsafe(stop_event.set)
        thread.join(timeout_s)
        if thread.is_alive():
            raise RuntimeError("fake OpenAI server did not stop in time")
        self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _run(self, ready: threading.Event) -> None:
        self._loop = loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._serve(ready))
        except BaseException as exc:  # reported by start()
            self._startup_error = exc
        finally:
            ready.set()
            loop.close()

    async def _serve(self, ready: threading.Event) -> None:
        self._stop_event = asyncio.Event()
        app = web.Application()
        app.router.add_post(CHAT_PATH, self._chat_completions)
        app.router.add_get("/v1/models", self._models)
        # handler_cancellation: a handler sleeping for a client that went away is cancelled.
        runner = web.AppRunner(
            app,
            access_log=None,
            handler_cancellation=True,
            shutdown_timeout=self._shutdown_timeout_s,
        )
        await runner.setup()
        try:
            await web.TCPSite(runner, self._host, 0).start()
            self._port = runner.addresses[0][1]
            ready.set()
            await self._stop_event.wait()
        finally:
            await runner.cleanup()

    # ------------------------------------------------------------------------- inspection

    @property
    def port(self) -> int:
        """The TCP port the server listens on."""
        if self._port is None:
            raise RuntimeError("server not started")
        return self._port

    @property
    def base_url(self) -> str:
        """The OpenAI ``api_base`` to give clients: ``http://127.0.0.1:<port>/v1``."""
        return f"http://{self._host}:{self.port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received (all paths), oldest first."""
        with self._lock:
            return list(self._log)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """A snapshot of the chat-completion requests received, oldest first."""
        return [r for r in self.requests if r.path == CHAT_PATH]

    @property
    def last_request(self) -> RecordedRequest | None:
        """The most recent request of any path, or ``None``."""
        with self._lock:
            return self._log[-1] if self._log else None

    @property
    def request_count(self) -> int:
        """How many chat-completion requests were received."""
        return len(self.chat_requests)

    def wait_for_requests(self, count: int, timeout_s: float = 5.0) -> None:
        """Block until ``count`` chat-completion requests have arrived (``TimeoutError`` if not).

        From async code run it in a thread (``asyncio.to_thread``) so the loop keeps sending.
        """
        with self._lock:
            arrived = self._lock.wait_for(
                lambda: sum(r.path == CHAT_PATH for r in self._log) >= count, timeout_s
            )
        if not arrived:
            raise TimeoutError(f"{self.request_count} of {count} requests after {timeout_s} s")

    # ------------------------------------------------------------------------- scripting

    def reply(
        self,
        content: str | dict[str, Any] | list[Any],
        *,
        when: str | None = None,
        times: int | None = None,
        latency_s: float = 0.0,
        usage: Usage = (11, 7),
        finish_reason: str = "stop",
    ) -> None:
        """Answer matching chat requests with ``content`` (dicts and lists are JSON-encoded).

        ``when`` is a substring the last user message must contain (``None``: any request);
        ``times`` how many requests the rule answers (``None``: unlimited); ``latency_s`` a
        wait before answering; ``usage`` the ``(prompt_tokens, completion_tokens)`` reported,
        or ``"counted"``: the tokens of the request and of the reply (:func:`counted_usage`).
        Rules are tried in the order added; the first match wins.
        """
        _check_times(times)
        text = content if isinstance(content, str) else json.dumps(content)
        rule = _ReplyRule(when, times, latency_s, 0, text, usage, finish_reason)
        with self._lock:
            self._replies.append(rule)

    def reply_by(self, answer: Answerer, *, times: int | None = None, whole: bool = False) -> None:
        """Answer matching chat requests with what ``answer`` says of the last user message
        (a judge with a mind of its own: one that obeys text in the prompt, say), or with
        ``whole`` of every message's text (the system instructions too); a request it
        returns None for goes on to the next rule. Rules are tried in the order added."""
        _check_times(times)
        rule = _ReplyRule(None, times, 0.0, 0, "", (11, 7), "stop", answer, whole)
        with self._lock:
            self._replies.append(rule)

    def fault(
        self,
        *,
        status: int | None = None,
        body: Any = None,
        headers: dict[str, str] | None = None,
        drop: DropMode | None = None,
        latency_s: float = 0.0,
        when: str | None = None,
        times: int | None = 1,
        after: int = 0,
        raw: str | bytes | None = None,
    ) -> None:
        """Inject a fault for matching chat requests; faults are tried before replies.

        ``status`` sends an HTTP error with the JSON ``body`` (default: an OpenAI error body
        for that status) and ``headers``. ``drop="before_response"`` closes the connection
        without sending a byte; ``drop="mid_body"`` sends 200 headers whose Content-Length
        promises more than is sent, part of the body, then resets the connection.
        ``latency_s`` waits first; a fault with only a latency delays the request and then
        lets the reply rules answer it. ``when`` as for :meth:`reply`; the fault is used up
        after ``times`` requests (``None``: never), then requests fall through to the replies.
        """
        _check_times(times)
        if status is not None and drop is not None:
            raise ValueError("pass either status or drop, not both")
        if status is None and (body is not None or headers):
            raise ValueError("body and headers need a status")
        if drop not in (None, "before_response", "mid_body"):
            raise ValueError(f"unknown drop mode: {drop!r}")
        if status is None and drop is None and latency_s <= 0:
            raise ValueError("a fault needs a status, a drop mode or a latency")
        raw_bytes = raw.encode() if isinstance(raw, str) else raw
        rule = _FaultRule(
            when, times, latency_s, after, status, body, dict(headers or {}), drop, raw_bytes
        )
        with self._lock:
            self._faults.append(rule)

    def limit_rate(
        self, per_second: float, *, burst: float | None = None, retry_after: str = "1"
    ) -> None:
        """Admit ``per_second`` chat requests a second (a token bucket holding ``burst``
        requests, one second's worth by default); above it answer 429 with ``Retry-After``.

        Every chat request is counted in the wall-clock second it arrived in, here at the
        server (:meth:`seconds`), refused or not.
        """
        if per_second <= 0:
            raise ValueError("per_second must be above 0")
        size = per_second if burst is None else burst
        now = time.monotonic()
        with self._lock:
            self._bucket = _TokenBucket(per_second, size, retry_after, size, now)

    def seconds(self) -> list[SecondCount]:
        """Chat requests per wall-clock second since the last :meth:`reset`, oldest first."""
        with self._lock:
            return [SecondCount(s, r, f) for s, (r, f) in sorted(self._seconds.items())]

    def hold(self, *, after: int = 0) -> None:
        """Hold every chat request past the next ``after`` until :meth:`release`.

        A held request is recorded (:meth:`wait_for_requests` counts it) but not answered: a
        test gates the judge on its own events instead of racing it.
        """
        with self._lock:
            self._gate, self._let_through = asyncio.Event(), after

    def release(self) -> None:
        """Answer the held requests and hold no more."""
        with self._lock:
            gate, self._gate = self._gate, None
        if gate is not None and self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has already closed
                self._loop.call_soon_threadsafe(gate.set)

    def reset(self) -> None:
        """Forget every reply rule, fault and recorded request, and release held requests."""
        self.release()
        with self._lock:
            self._replies.clear()
            self._faults.clear()
            self._log.clear()
            self._seconds.clear()
            self._bucket = None

    # ------------------------------------------------------------------------- handlers

    async def _record(self, request: web.Request) -> RecordedRequest:
        received_at = time.monotonic()
        raw = await request.read()
        try:
            parsed: Any = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        headers = {key.lower(): value for key, value in request.headers.items()}
        recorded = RecordedRequest(request.path, headers, parsed, received_at)
        with self._lock:
            self._log.append(recorded)
            self._lock.notify_all()
        return recorded

    async def _models(self, request: web.Request) -> web.Response:
        await self._record(request)
        model = {"id": "fake-judge", "object": "model", "created": 0, "owned_by": "fake"}
        return web.json_response({"object": "list", "data": [model]})

    async def _chat_completions(self, request: web.Request) -> web.StreamResponse:
        recorded = await self._record(request)
        if not await self._pass_gate():
            return await self._abort(request)
        if not self._admitted():
            return web.json_response(
                error_body(429), status=429, headers={"Retry-After": self._retry_after()}
            )
        body, prompt = recorded.json, recorded.last_user_content
        if not isinstance(body, dict):
            return web.json_response(error_body(400, "the body is not a JSON object"), status=400)
        with self._lock:
            fault = _take(self._faults, prompt)
        if fault is not None:
            if not await self._sleep(fault.latency_s) or fault.drop == "before_response":
                return await self._abort(request)
            if fault.drop == "mid_body":
                return await self._cut_mid_body(request, body)
            if fault.status is not None and fault.raw is not None:
                return _raw_response(fault.status, fault.raw, fault.headers)
            if fault.status is not None:
                payload = fault.body if fault.body is not None else error_body(fault.status)
                return web.json_response(payload, status=fault.status, headers=fault.headers)
            # A latency-only fault has delayed the request: the reply rules answer it.
        with self._lock:
            reply = _take_reply(self._replies, recorded)
        if reply is not None and reply.whole:
            prompt = recorded.all_content
        if reply is None:
            message = f"no scripted reply matches the prompt: {prompt[:200]}"
            return web.json_response(error_body(400, message), status=400)
        if not await self._sleep(reply.latency_s):
            return await self._abort(request)
        if body.get("stream"):
            return await self._stream(request, self._completion(body, reply, prompt))
        return web.json_response(self._completion(body, reply, prompt))

    def _admitted(self) -> bool:
        """Count the request in its second; False when the rate limit refuses it."""
        second = int(time.time())
        with self._lock:
            counts = self._seconds.setdefault(second, [0, 0])
            counts[0] += 1
            if self._bucket is None or self._bucket.admit(time.monotonic()):
                return True
            counts[1] += 1
            return False

    def _retry_after(self) -> str:
        with self._lock:
            return self._bucket.retry_after if self._bucket is not None else "1"

    async def _stream(self, request: web.Request, done: dict[str, Any]) -> web.StreamResponse:
        """Send ``done`` as server-sent events: the role, the content, the finish, the usage."""
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        choice = done["choices"][0]
        head = {k: done[k] for k in ("id", "object", "created", "model")}
        head["object"] = "chat.completion.chunk"
        deltas = [
            {"role": "assistant", "content": ""},
            {"content": choice["message"]["content"]},
        ]
        chunks = [{**head, "choices": [{"index": 0, "delta": d}]} for d in deltas]
        finish = {"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}
        chunks.append({**head, "choices": [finish]})
        chunks.append({**head, "choices": [], "usage": done["usage"]})
        for chunk in chunks:
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    def _completion(
        self, body: dict[str, Any], reply: _ReplyRule, prompt: str = ""
    ) -> dict[str, Any]:
        content = reply.content_for(prompt)
        usage = reply.usage
        if usage == "counted":
            usage = counted_usage(body, content)
        prompt_tokens, completion_tokens = usage
        message = {"role": "assistant", "content": content}
        choice = {"index": 0, "message": message, "finish_reason": reply.finish_reason}
        return {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake-judge"),
            "choices": [{**choice, "logprobs": None}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    async def _pass_gate(self) -> bool:
        """Wait while requests are held; return False if the server is stopping."""
        with self._lock:
            gate = self._gate
            if gate is not None and self._let_through > 0:
                self._let_through, gate = self._let_through - 1, None
        if gate is None:
            return True
        assert self._stop_event is not None
        stop = asyncio.ensure_future(self._stop_event.wait())
        opened = asyncio.ensure_future(gate.wait())
        try:
            await asyncio.wait([stop, opened], return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            opened.cancel()
        return opened.done() and not opened.cancelled()

    async def _sleep(self, seconds: float) -> bool:
        """Sleep without blocking other requests; return False if the server is stopping."""
        if seconds <= 0:
            return True
        assert self._stop_event is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop_event.wait(), seconds)
            return False
        return True

    async def _abort(self, request: web.Request) -> web.StreamResponse:
        """Close the connection without writing a byte of a response."""
        if request.transport is not None:
            request.transport.close()
        return await self._await_cancellation()

    async def _cut_mid_body(self, request: web.Request, body: dict[str, Any]) -> web.StreamResponse:
        """Send 200 headers and half of a completion, then reset the connection."""
        filler = _ReplyRule(None, None, 0.0, 0, "x" * 256, (11, 7), "stop")
        payload = json.dumps(self._completion(body, filler)).encode()
        response = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
        response.content_length = len(payload)
        await response.prepare(request)
        await response.write(payload[: len(payload) // 2])
        await asyncio.sleep(0.005)  # let the client read the headers and the partial body
        transport = request.transport
        if transport is not None:
            sock = transport.get_extra_info("socket")
            if sock is not None:  # SO_LINGER 0: closing sends RST rather than FIN
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            transport.abort()
        return await self._await_cancellation()

    async def _await_cancellation(self) -> web.StreamResponse:
        """Park a handler whose connection is gone until aiohttp cancels it.

        With ``handler_cancellation=True`` aiohttp cancels the handler as soon as it sees the
        connection lost; the stop event is a safety net so that shutdown never waits on it.
        """
        assert self._stop_event is not None
        await self._stop_event.wait()
        raise web.HTTPServiceUnavailable()
