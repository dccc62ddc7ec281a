"""StreamErrorRetryProcessor: what is retried by default, retry_unknown_errors, matchers and
their budgets, delays and on_retry hooks."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from scorer_runtime.errors import ProviderError
from scorer_runtime.processors import (
    ErrorProcessor,
    RetryMatcher,
    StreamErrorRetryProcessor,
)
from tests.processors.retry_helpers import (
    AUTH,
    BAD_REQUEST,
    CONTEXT,
    RATE_LIMITED,
    FakeSleep,
    ctx,
    err,
    processor,
)


def test_implements_error_processor_protocol() -> None:
    assert isinstance(StreamErrorRetryProcessor(), ErrorProcessor)


# --- defaults and budget -------------------------------------------------------------------


async def test_default_retryable_error_is_retried_once(sleep: FakeSleep) -> None:
    proc = processor(sleep)
    decision = await proc.process_api_error(RATE_LIMITED, ctx(0))
    assert decision.retry is True
    assert decision.delay_ms == 0
    assert decision.reason == "retry 1 of 1 after 0 ms: rate_limited"
    # A zero delay still awaits sleep(0): a yield point and a cancellation point.
    assert sleep.calls == [0.0]
    spent = await proc.process_api_error(RATE_LIMITED, ctx(1))
    assert spent.retry is False
    assert spent.reason == "retry budget of 1 spent (rate_limited)"
    assert sleep.calls == [0.0]


async def test_budget_exhaustion(sleep: FakeSleep) -> None:
    proc = processor(sleep, max_retries=2)
    answers = [(await proc.process_api_error(RATE_LIMITED, ctx(n))).retry for n in range(4)]
    assert answers == [True, True, False, False]
    assert (await proc.process_api_error(RATE_LIMITED, ctx(2))).reason == (
        "retry budget of 2 spent (rate_limited)"
    )


async def test_zero_budget_never_retries(sleep: FakeSleep) -> None:
    decision = await processor(sleep, max_retries=0).process_api_error(RATE_LIMITED, ctx(0))
    assert decision.retry is False
    assert sleep.calls == []


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (AUTH, "authentication failed: not retried"),
        (BAD_REQUEST, "invalid_request: not retried by default"),
        (CONTEXT, "context_length: not retried by default"),
        (
            err(status_code=503, retryable=False),
            "server_error: the provider marked it not retryable",
        ),
        (err("odd"), "unclassified error: not retried by default"),
    ],
)
async def test_not_retried_by_default(sleep: FakeSleep, error: ProviderError, reason: str) -> None:
    decision = await processor(sleep, max_retries=3).process_api_error(error, ctx(0))
    assert decision.retry is False
    assert decision.reason == reason
    assert sleep.calls == []


@pytest.mark.parametrize(
    "error",
    [
        err(status_code=408),
        err(status_code=409),
        err(status_code=500),
        err(transport="reset"),
        err(transport="timeout"),
        err(retryable=True),
        err("You can retry your request."),
    ],
)
async def test_default_retried_errors(sleep: FakeSleep, error: ProviderError) -> None:
    assert (await processor(sleep).process_api_error(error, ctx(0))).retry is True


# --- retry_unknown_errors ------------------------------------------------------------------


@pytest.mark.parametrize(
    "error", [BAD_REQUEST, CONTEXT, err("odd"), err(status_code=503, retryable=False)]
)
async def test_retry_unknown_errors_retries_everything_but_auth(
    sleep: FakeSleep, error: ProviderError
) -> None:
    proc = processor(sleep, retry_unknown_errors=True, max_retries=2)
    decision = await proc.process_api_error(error, ctx(1))
    assert decision.retry is True
    assert "retry_unknown_errors" in decision.reason
    assert (await proc.process_api_error(error, ctx(2))).retry is False


@pytest.mark.parametrize("error", [AUTH, err(status_code=403), err(type="authentication_error")])
async def test_retry_unknown_errors_never_retries_auth(
    sleep: FakeSleep, error: ProviderError
) -> None:
    decision = await processor(sleep, retry_unknown_errors=True).process_api_error(error, ctx(0))
    assert decision.retry is False
    assert decision.reason == "authentication failed: not retried"


# --- matchers ------------------------------------------------------------------------------


async def test_plain_predicate_matcher_retries_unknown_error(sleep: FakeSleep) -> None:
    proc = processor(sleep, matchers=[lambda e: "ECONNRESET" in e.message])
    assert (await proc.process_api_error(err("read ECONNRESET"), ctx(0))).retry is True
    assert (await proc.process_api_error(err("other"), ctx(0))).retry is False


async def test_matcher_makes_auth_retryable(sleep: FakeSleep) -> None:
    proc = processor(sleep, matchers=[lambda e: e.status_code == 401])
    decision = await proc.process_api_error(AUTH, ctx(0))
    assert decision.retry is True
    assert "matcher 0" in decision.reason


async def test_matchers_checked_in_order_first_match_wins(sleep: FakeSleep) -> None:
    seen: list[str] = []
    first = RetryMatcher(lambda e: True, delay_ms=10, on_retry=lambda: seen.append("first"))
    second = RetryMatcher(lambda e: True, delay_ms=20, on_retry=lambda: seen.append("second"))
    decision = await processor(sleep, matchers=[first, second]).process_api_error(
        BAD_REQUEST, ctx(0)
    )
    assert decision.delay_ms == 10
    assert seen == ["first"]


async def test_non_matching_matcher_falls_back_to_defaults(sleep: FakeSleep) -> None:
    proc = processor(sleep, matchers=[RetryMatcher(lambda e: False, delay_ms=99)], delay_ms=5)
    decision = await proc.process_api_error(RATE_LIMITED, ctx(0))
    assert decision.retry is True
    assert decision.delay_ms == 5


async def test_matcher_budget_higher_than_processor(sleep: FakeSleep) -> None:
    proc = processor(sleep, max_retries=1, matchers=[RetryMatcher(lambda e: True, max_retries=3)])
    answers = [(await proc.process_api_error(BAD_REQUEST, ctx(n))).retry for n in range(4)]
    assert answers == [True, True, True, False]


async def test_matcher_budget_lower_spent_does_not_fall_through(sleep: FakeSleep) -> None:
    # The 429 would be retried by default and by the second matcher: the first match decides.
    matchers = [RetryMatcher(lambda e: e.status_code == 429, max_retries=1), lambda e: True]
    proc = processor(sleep, max_retries=5, matchers=matchers)
    assert (await proc.process_api_error(RATE_LIMITED, ctx(0))).retry is True
    decision = await proc.process_api_error(RATE_LIMITED, ctx(1))
    assert decision.retry is False
    assert decision.reason.startswith("retry budget of 1 spent (matcher 0")


async def test_matcher_zero_budget_blocks_default_retry(sleep: FakeSleep) -> None:
    proc = processor(sleep, matchers=[RetryMatcher(lambda e: True, max_retries=0)])
    assert (await proc.process_api_error(RATE_LIMITED, ctx(0))).retry is False


async def test_matcher_delay_replaces_processor_delay(sleep: FakeSleep) -> None:
    matcher = RetryMatcher(lambda e: True, delay_ms=10)
    decision = await processor(sleep, delay_ms=5000, matchers=[matcher]).process_api_error(
        RATE_LIMITED, ctx(0)
    )
    assert decision.delay_ms == 10
    assert sleep.calls == [0.01]


async def test_plain_matcher_uses_processor_delay(sleep: FakeSleep) -> None:
    decision = await processor(sleep, delay_ms=250, matchers=[lambda e: True]).process_api_error(
        BAD_REQUEST, ctx(0)
    )
    assert decision.delay_ms == 250


async def test_sync_on_retry_called_before_waiting(sleep: FakeSleep) -> None:
    events: list[tuple[str, Any]] = []

    def on_retry(error: ProviderError, retry_count: int, delay_ms: float) -> None:
        events.append(("on_retry", (error, retry_count, delay_ms, list(sleep.calls))))

    matcher = RetryMatcher(lambda e: True, delay_ms=40, on_retry=on_retry)
    await processor(sleep, max_retries=3, matchers=[matcher]).process_api_error(BAD_REQUEST, ctx(2))
    assert events == [("on_retry", (BAD_REQUEST, 2, 40.0, []))]
    assert sleep.calls == [0.04]


async def test_async_on_retry_is_awaited_with_context(sleep: FakeSleep) -> None:
    received: dict[str, Any] = {}

    async def on_retry(**kwargs: Any) -> None:
        await asyncio.sleep(0)
        received.update(kwargs)

    context = ctx(0)
    matcher = RetryMatcher(lambda e: True, on_retry=on_retry)
    await processor(sleep, matchers=[matcher]).process_api_error(BAD_REQUEST, context)
    assert received == {
        "error": BAD_REQUEST,
        "retry_count": 0,
        "delay_ms": 0.0,
        "context": context,
    }


async def test_on_retry_not_called_when_budget_spent(sleep: FakeSleep) -> None:
    calls: list[int] = []
    matcher = RetryMatcher(
        lambda e: True, max_retries=1, on_retry=lambda retry_count: calls.append(retry_count)
    )
    proc = processor(sleep, matchers=[matcher])
    await proc.process_api_error(BAD_REQUEST, ctx(0))
    await proc.process_api_error(BAD_REQUEST, ctx(1))
    assert calls == [0]
