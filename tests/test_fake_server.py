"""Tests of the fake OpenAI server, driven through litellm (the real client) over HTTP."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import litellm
import pytest

from tests.fakes.openai_server import DropMode, FakeOpenAIServer

MODEL = "openai/fake-judge"
# One attempt: litellm retries nothing (num_retries), nor does the openai client (max_retries).
ONE_ATTEMPT: dict[str, Any] = {
    "api_key": "sk-test",
    "num_retries": 0,
    "max_retries": 0,
    "timeout": 5.0,
}

pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*:UserWarning")


@pytest.fixture(autouse=True)
def _quiet_litellm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stop litellm printing its "Give Feedback" banner on every exception."""
    monkeypatch.setattr(litellm, "suppress_debug_info", True)


@pytest.fixture(params=["sync", "async"])
def api(request: pytest.FixtureRequest) -> str:
    """Run a test through ``litellm.completion`` and through ``litellm.acompletion``."""
    return str(request.param)


def _messages(prompt: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": "You are a judge."}, {"role": "user", "content": prompt}]


async def complete(
    api: str, base_url: str, prompt: str | list[dict[str, Any]], **kwargs: Any
) -> Any:
    """Call litellm the way the runtime does: one attempt, no client-side retries."""
    messages = _messages(prompt) if isinstance(prompt, str) else prompt
    params = {"model": MODEL, "messages": messages, "api_base": base_url, **ONE_ATTEMPT, **kwargs}
    if api == "async":
        return await litellm.acompletion(**params)
    # Blocking the test's event loop is fine: the server runs on its own loop and thread.
    return litellm.completion(**params)


def text(response: Any) -> str:
    """The assistant message of a litellm response."""
    return str(response.choices[0].message.content)


def post_chat(server: FakeOpenAIServer, content: Any = "hi", **extra: Any) -> httpx.Response:
    """POST a one-message chat request with raw httpx (no litellm in between)."""
    body = {"model": "m", "messages": [{"role": "user", "content": content}], **extra}
    return httpx.post(f"{server.base_url}/chat/completions", json=body)


def cause_chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and every exception it was raised from or during, outermost first."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def transport_error(exc: BaseException) -> httpx.TransportError:
    """The first httpx transport error in ``exc``'s cause chain (fails the test if none)."""
    found = [e for e in cause_chain(exc) if isinstance(e, httpx.TransportError)]
    assert found, [type(e) for e in cause_chain(exc)]
    return found[0]


# --------------------------------------------------------------------------- replies


def test_sync_round_trip_from_a_sync_test(fake_judge: FakeOpenAIServer) -> None:
    fake_judge.reply("PASS")
    messages = _messages("grade this")
    response = litellm.completion(MODEL, messages, api_base=fake_judge.base_url, **ONE_ATTEMPT)
    assert text(response) == "PASS"
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (11, 7)
    assert fake_judge.request_count == 1


async def test_reply_round_trip(fake_judge: FakeOpenAIServer, api: str) -> None:
    fake_judge.reply({"score": 0.5, "reason": "ok"}, usage=(120, 30), finish_reason="length")
    response = await complete(api, fake_judge.base_url, "grade this")
    assert text(response) == '{"score": 0.5, "reason": "ok"}'
    assert response.choices[0].message.role == "assistant"
    assert response.choices[0].finish_reason == "length"
    assert response.usage.prompt_tokens == 120
    assert response.usage.completion_tokens == 30
    assert response.usage.total_tokens == 150
    assert response.model.endswith("fake-judge")
    assert fake_judge.request_count == 1


async def test_when_routes_on_the_last_user_message(fake_judge: FakeOpenAIServer, api: str) -> None:
    fake_judge.reply("about cats", when="cat")
    fake_judge.reply("about dogs", when="dog")
    messages = [
        {"role": "user", "content": "tell me about a cat"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "now a dog"},
    ]
    first = await complete(api, fake_judge.base_url, messages)
    second = await complete(api, fake_judge.base_url, "a cat, please")
    assert text(first) == "about dogs"
    assert text(second) == "about cats"


async def test_rules_match_in_order_added(fake_judge: FakeOpenAIServer, api: str) -> None:
    fake_judge.reply("specific", when="special")
    fake_judge.reply("catch-all")
    fake_judge.reply("never", when="special")
    special = await complete(api, fake_judge.base_url, "a special case")
    other = await complete(api, fake_judge.base_url, "anything")
    assert text(special) == "specific"
    assert text(other) == "catch-all"


async def test_times_uses_a_rule_up(fake_judge: FakeOpenAIServer, api: str) -> None:
    fake_judge.reply("first", times=2)
    fake_judge.reply("then", when="again", times=1)
    contents = [text(await complete(api, fake_judge.base_url, "again")) for _ in range(3)]
    assert contents == ["first", "first", "then"]
    with pytest.raises(litellm.BadRequestError, match="no scripted reply matches"):
        await complete(api, fake_judge.base_url, "again")
    assert fake_judge.request_count == 4


async def test_no_match_is_a_loud_400(fake_judge: FakeOpenAIServer, api: str) -> None:
    fake_judge.reply("only for this", when="something else")
    prompt = "a" * 200 + "b" * 100
    with pytest.raises(litellm.BadRequestError) as info:
        await complete(api, fake_judge.base_url, prompt)
    message = str(info.value)
    assert "no scripted reply matches the prompt: " + "a" * 200 in message
    assert "b" not in message.split("prompt: ", 1)[1]
    assert fake_judge.request_count == 1


def test_when_matches_text_parts_of_list_content(fake_judge: FakeOpenAIServer) -> None:
    fake_judge.reply("seen", when="needle")
    content = [{"type": "text", "text": "hay"}, {"type": "text", "text": "needle"}]
    response = post_chat(fake_judge, content)
    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"] == "seen"


# --------------------------------------------------------------------------- request log


async def test_request_log_records_the_exact_body(fake_judge: FakeOpenAIServer, api: str) -> None:
    fake_judge.reply({"score": 1})
    response_format = {
        "type": "json_schema",
        "json_schema": {
            "name": "verdict",
            "schema": {"type": "object", "properties": {"score": {"type": "number"}}},
        },
    }
    before = time.monotonic()
    await complete(api, fake_judge.base_url, "grade", response_format=response_format)
    request = fake_judge.last_request
    assert request is not None
    assert request.path == "/v1/chat/completions"
    assert request.json["model"] == "fake-judge"
    assert request.json["messages"] == _messages("grade")
    assert request.json["response_format"] == response_format
    assert request.headers["authorization"] == "Bearer sk-test"
    assert all(key == key.lower() for key in request.headers)
    assert before <= request.received_at <= time.monotonic()
    assert fake_judge.requests == [request]


def test_models_endpoint_is_logged_but_not_counted(fake_judge: FakeOpenAIServer) -> None:
    response = httpx.get(f"{fake_judge.base_url}/models")
    assert response.status_code == 200
    assert response.json()["data"][0]["id"] == "fake-judge"
    assert fake_judge.request_count == 0
    assert [r.path for r in fake_judge.requests] == ["/v1/models"]


def test_reset_clears_rules_and_log(fake_judge: FakeOpenAIServer) -> None:
    fake_judge.reply("x")
    fake_judge.fault(status=500)
    httpx.get(f"{fake_judge.base_url}/models")
    fake_judge.reset()
    assert fake_judge.requests == []
    assert fake_judge.last_request is None
    response = post_chat(fake_judge)
    assert response.status_code == 400
    assert "no scripted reply matches the prompt: hi" in response.json()["error"]["message"]


def test_concurrent_requests_consume_rules_exactly(fake_judge: FakeOpenAIServer) -> None:
    fake_judge.reply("ok", times=40)
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    with httpx.Client() as client, ThreadPoolExecutor(max_workers=8) as pool:
        url = f"{fake_judge.base_url}/chat/completions"
        statuses = list(pool.map(lambda _: client.post(url, json=body).status_code, range(50)))
    assert sorted(statuses) == [200] * 40 + [400] * 10
    assert fake_judge.request_count == 50


# --------------------------------------------------------------------------- HTTP errors


@pytest.mark.parametrize(
    ("status", "exception"),
    [
        (400, litellm.BadRequestError),
        (429, litellm.RateLimitError),
        (500, litellm.InternalServerError),
        (503, litellm.ServiceUnavailableError),
    ],
)
async def test_status_fault_raises_then_falls_through(
    fake_judge: FakeOpenAIServer, api: str, status: int, exception: type[Exception]
) -> None:
    fake_judge.reply("recovered")
    fake_judge.fault(status=status)
    with pytest.raises(exception):
        await complete(api, fake_judge.base_url, "grade")
    assert fake_judge.request_count == 1
    response = await complete(api, fake_judge.base_url, "grade")
    assert text(response) == "recovered"


async def test_fault_custom_body_when_and_unlimited_times(
    fake_judge: FakeOpenAIServer, api: str
) -> None:
    body = {"error": {"message": "context too long", "type": "invalid_request_error"}}
    fake_judge.fault(status=400, body=body, when="huge", times=None)
    fake_judge.reply("fine")
    for _ in range(2):
        with pytest.raises(litellm.BadRequestError, match="context too long"):
            await complete(api, fake_judge.base_url, "a huge prompt")
    assert text(await complete(api, fake_judge.base_url, "small")) == "fine"
    assert fake_judge.request_count == 3


@pytest.mark.parametrize(
    ("status", "headers", "exception"),
    [
        (429, {"Retry-After": "2"}, litellm.RateLimitError),
        (503, {"retry-after-ms": "1500"}, litellm.ServiceUnavailableError),
    ],
)
async def test_retry_after_reaches_the_exception(
    fake_judge: FakeOpenAIServer,
    api: str,
    status: int,
    headers: dict[str, str],
    exception: type[Exception],
) -> None:
    fake_judge.fault(status=status, headers=headers)
    with pytest.raises(exception) as info:
        await complete(api, fake_judge.base_url, "grade")
    [(name, value)] = headers.items()
    assert info.value.response.headers[name] == value  # type: ignore[attr-defined]
    assert info.value.litellm_response_headers[name] == value  # type: ignore[attr-defined]
    assert fake_judge.request_count == 1


# --------------------------------------------------------------------------- transport faults

# The httpx class at the top of the cause chain differs between the sync client (httpx's own
# transport) and the async one (litellm routes it through its aiohttp transport).
DROP_ERRORS: dict[tuple[str, str], type[httpx.TransportError]] = {
    ("sync", "before_response"): httpx.RemoteProtocolError,
    ("async", "before_response"): httpx.ReadError,
    ("sync", "mid_body"): httpx.ReadError,
    ("async", "mid_body"): httpx.ReadError,
}


@pytest.mark.parametrize("drop", ["before_response", "mid_body"])
async def test_drop_is_a_connection_error(
    fake_judge: FakeOpenAIServer, api: str, drop: DropMode
) -> None:
    fake_judge.fault(drop=drop)
    fake_judge.reply("recovered")
    with pytest.raises(litellm.InternalServerError, match="Connection error") as info:
        await complete(api, fake_judge.base_url, "grade")
    assert type(transport_error(info.value)) is DROP_ERRORS[api, drop]
    assert fake_judge.request_count == 1
    response = await complete(api, fake_judge.base_url, "grade")
    assert text(response) == "recovered"


def test_mid_body_sends_headers_and_part_of_the_body(fake_judge: FakeOpenAIServer) -> None:
    fake_judge.fault(drop="mid_body")
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    url = f"{fake_judge.base_url}/chat/completions"
    with httpx.stream("POST", url, json=body) as response:
        assert response.status_code == 200
        with pytest.raises(httpx.ReadError):
            response.read()
        assert 0 < response.num_bytes_downloaded < int(response.headers["content-length"])


def test_before_response_sends_nothing(fake_judge: FakeOpenAIServer) -> None:
    fake_judge.fault(drop="before_response")
    with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
        post_chat(fake_judge)


async def test_slow_reply_is_a_read_timeout(fake_judge: FakeOpenAIServer, api: str) -> None:
    fake_judge.fault(latency_s=2.0)
    with pytest.raises(litellm.Timeout) as info:
        await complete(api, fake_judge.base_url, "grade", timeout=0.2)
    assert type(transport_error(info.value)) is httpx.ReadTimeout
    assert fake_judge.request_count == 1


async def test_refused_connection(refused_base_url: str, api: str) -> None:
    with pytest.raises(litellm.InternalServerError, match="Connection error") as info:
        await complete(api, refused_base_url, "grade")
    assert type(transport_error(info.value)) is httpx.ConnectError
    assert any(isinstance(e, ConnectionRefusedError) for e in cause_chain(info.value))


# --------------------------------------------------------------------------- latency


async def test_reply_latency_is_honoured(fake_judge: FakeOpenAIServer, api: str) -> None:
    fake_judge.reply("slow", latency_s=0.05)
    started = time.perf_counter()
    await complete(api, fake_judge.base_url, "grade")
    assert time.perf_counter() - started >= 0.04


async def test_latency_only_fault_delays_then_replies(
    fake_judge: FakeOpenAIServer, api: str
) -> None:
    fake_judge.fault(latency_s=0.05)
    fake_judge.reply("late")
    started = time.perf_counter()
    response = await complete(api, fake_judge.base_url, "grade")
    assert time.perf_counter() - started >= 0.04
    assert text(response) == "late"


async def test_latency_does_not_block_other_requests(fake_judge: FakeOpenAIServer) -> None:
    fake_judge.reply("slow", when="slow", latency_s=0.5)
    fake_judge.reply("fast", when="fast")
    slow = asyncio.create_task(complete("async", fake_judge.base_url, "slow"))
    await asyncio.to_thread(fake_judge.wait_for_requests, 1)
    fast = asyncio.create_task(complete("async", fake_judge.base_url, "fast"))
    done, _ = await asyncio.wait({slow, fast}, return_when=asyncio.FIRST_COMPLETED)
    assert done == {fast}
    assert text(await slow) == "slow"


def test_stop_does_not_wait_for_pending_latency() -> None:
    server = FakeOpenAIServer().start()
    server.fault(latency_s=60.0)
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(post_chat, server)  # httpx's default 5 s timeout
        server.wait_for_requests(1)
        server.stop()
        # The server closes the parked connection at once: a disconnect, not a read timeout.
        with pytest.raises(httpx.RemoteProtocolError):
            pending.result(timeout=10.0)


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"status": 500, "drop": "mid_body"}, "not both"),
        ({"body": {"error": {}}}, "need a status"),
        ({"drop": "sideways"}, "unknown drop mode"),
        ({}, "needs a status, a drop mode or a latency"),
        ({"status": 500, "times": 0}, "times must be"),
    ],
)
def test_fault_rejects_nonsense(
    fake_judge: FakeOpenAIServer, kwargs: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        fake_judge.fault(**kwargs)
    with pytest.raises(ValueError, match="times must be"):
        fake_judge.reply("x", times=0)


def test_a_streaming_request_gets_the_reply_as_server_sent_events(
    fake_judge: FakeOpenAIServer,
) -> None:
    fake_judge.reply({"verdict": "yes"}, usage=(5, 3))
    response = post_chat(fake_judge, stream=True)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(event) for event in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert json.loads(text) == {"verdict": "yes"}
    assert [c["choices"][0].get("finish_reason") for c in chunks if c["choices"]][-1] == "stop"
    assert chunks[-1]["usage"]["total_tokens"] == 8


def test_wait_for_requests_times_out(fake_judge: FakeOpenAIServer) -> None:
    with pytest.raises(TimeoutError, match="0 of 1 requests"):
        fake_judge.wait_for_requests(1, timeout_s=0.05)


def test_default_error_body_is_openai_style(fake_judge: FakeOpenAIServer) -> None:
    fake_judge.fault(status=429)
    response = post_chat(fake_judge)
    assert response.status_code == 429
    error = response.json()["error"]
    assert error["code"] == "rate_limit_exceeded"
    assert {"message", "type", "param", "code"} <= error.keys()
