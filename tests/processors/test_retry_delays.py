"""StreamErrorRetryProcessor: delays, Retry-After, callable delays, waiting and cancellation,
concurrency, and construction checks."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest

from scorer_runtime.errors import ProviderError
from scorer_runtime.processors import (
    RetryContext,
    RetryMatcher,
    StreamErrorRetryProcessor,
    parse_retry_after_ms,
)
from tests.processors.retry_helpers import (
    RATE_LIMITED,
    FakeSleep,
    ctx,
    err,
    processor,
)

# --- delays and Retry-After ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("configured", "headers", "expected"),
    [
        (100, {"retry-after": "2"}, 2000),
        (100, {"retry-after": "0.5"}, 500),
        (3000, {"retry-after": "1"}, 3000),
        (0, {"retry-after": "120"}, 30_000),
        (0, {"retry-after-ms": "1500.5", "retry-after": "10"}, 1500.5),
        (0, {"retry-after-ms": "90000"}, 30_000),
        (0, {"retry-after-ms": "soon", "retry-after": "3"}, 3000),
        (100, {"retry-after": "soon"}, 100),
        (100, {"retry-after": "-5"}, 100),
        (100, {"retry-after-ms": "-5"}, 100),
        (100, {"retry-after": "inf"}, 100),
        (100, {}, 100),
        (45_000, {"retry-after": "1"}, 45_000),  # the cap bounds Retry-After, not our delay
    ],
)
async def test_delay_is_max_of_configured_and_capped_retry_after(
    sleep: FakeSleep, configured: float, headers: dict[str, str], expected: float
) -> None:
    error = err(status_code=429, headers=headers)
    decision = await processor(sleep, delay_ms=configured).process_api_error(error, ctx(0))
    assert decision.delay_ms == expected
    assert sleep.calls == [expected / 1000]


async def test_custom_cap_applies_to_both_headers(sleep: FakeSleep) -> None:
    proc = processor(sleep, max_retry_after_ms=5000)
    for headers in ({"retry-after": "60"}, {"retry-after-ms": "60000"}):
        decision = await proc.process_api_error(err(status_code=429, headers=headers), ctx(0))
        assert decision.delay_ms == 5000


async def test_http_date_in_future_is_capped(sleep: FakeSleep) -> None:
    future = format_datetime(datetime.now(UTC) + timedelta(hours=1), usegmt=True)
    error = err(status_code=503, headers={"retry-after": future})
    decision = await processor(sleep).process_api_error(error, ctx(0))
    assert decision.delay_ms == 30_000


async def test_http_date_in_future_within_cap(sleep: FakeSleep) -> None:
    future = format_datetime(datetime.now(UTC) + timedelta(seconds=20), usegmt=True)
    error = err(status_code=503, headers={"retry-after": future})
    decision = await processor(sleep).process_api_error(error, ctx(0))
    assert 15_000 < decision.delay_ms <= 20_000


async def test_http_date_in_past_is_ignored(sleep: FakeSleep) -> None:
    past = format_datetime(datetime.now(UTC) - timedelta(minutes=5), usegmt=True)
    error = err(status_code=503, headers={"retry-after": past})
    decision = await processor(sleep, delay_ms=70).process_api_error(error, ctx(0))
    assert decision.delay_ms == 70


NOW = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "3"}, 3000),
        ({"retry-after": " 2.5 "}, 2500),
        ({"retry-after": "0"}, 0),
        ({"retry-after-ms": "250"}, 250),
        ({"retry-after-ms": "250", "retry-after": "9"}, 250),
        ({"Retry-After": "4"}, 4000),
        ({"retry-after": "Wed, 01 Jan 2025 12:00:30 GMT"}, 30_000),
        ({"retry-after": "Wed, 01 Jan 2025 11:59:30 GMT"}, None),
        ({"retry-after": "Wed, 01 Jan 2025 12:00:00 GMT"}, None),
        ({"retry-after": "-1"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "1_000"}, None),
        ({"retry-after": ""}, None),
        ({"retry-after": "tomorrow"}, None),
        ({"retry-after-ms": "abc"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after_ms(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after_ms(headers, now=NOW) == expected


# --- callable delays -----------------------------------------------------------------------


async def test_exponential_backoff_callable(sleep: FakeSleep) -> None:
    proc = processor(
        sleep, max_retries=10, delay_ms=lambda retry_count: min(1000 * 2**retry_count, 30_000)
    )
    delays = [(await proc.process_api_error(RATE_LIMITED, ctx(n))).delay_ms for n in range(6)]
    assert delays == [1000, 2000, 4000, 8000, 16_000, 30_000]
    assert sleep.calls == [1, 2, 4, 8, 16, 30]


async def test_callable_delay_may_declare_error_and_context(sleep: FakeSleep) -> None:
    def delay(error: ProviderError, context: RetryContext) -> float:
        return 500 if error.status_code == 429 else context.retry_count

    decision = await processor(sleep, delay_ms=delay).process_api_error(RATE_LIMITED, ctx(0))
    assert decision.delay_ms == 500


async def test_callable_delay_with_kwargs_receives_everything(sleep: FakeSleep) -> None:
    received: dict[str, Any] = {}

    def delay(**kwargs: Any) -> float:
        received.update(kwargs)
        return 1

    context = ctx(0)
    await processor(sleep, delay_ms=delay).process_api_error(RATE_LIMITED, context)
    assert received == {"retry_count": 0, "error": RATE_LIMITED, "context": context}


async def test_async_callable_delay(sleep: FakeSleep) -> None:
    async def delay(retry_count: int) -> float:
        return 10 * (retry_count + 1)

    decision = await processor(sleep, delay_ms=delay).process_api_error(RATE_LIMITED, ctx(0))
    assert decision.delay_ms == 10


async def test_callable_delay_still_honours_retry_after(sleep: FakeSleep) -> None:
    error = err(status_code=429, headers={"retry-after": "5"})
    decision = await processor(sleep, delay_ms=lambda: 1000).process_api_error(error, ctx(0))
    assert decision.delay_ms == 5000


def test_callable_delay_requiring_unknown_argument_is_rejected() -> None:
    def delay(attempt: int) -> float:
        return attempt

    with pytest.raises(TypeError, match="'attempt'"):
        StreamErrorRetryProcessor(delay_ms=delay)


@pytest.mark.parametrize("bad", [-1, float("nan"), "soon"])
async def test_callable_delay_returning_invalid_value(sleep: FakeSleep, bad: object) -> None:
    proc = processor(sleep, delay_ms=lambda: bad)
    with pytest.raises(ValueError, match="non-negative number"):
        await proc.process_api_error(RATE_LIMITED, ctx(0))


async def test_signature_inspected_once_at_construction(
    sleep: FakeSleep, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[object] = []
    real_signature = inspect.signature

    def counting_signature(fn: Any) -> Any:
        calls.append(fn)
        return real_signature(fn)

    monkeypatch.setattr(inspect, "signature", counting_signature)
    proc = processor(sleep, max_retries=5, delay_ms=lambda retry_count: retry_count)
    assert len(calls) == 1
    for n in range(3):
        await proc.process_api_error(RATE_LIMITED, ctx(n))
    assert len(calls) == 1


# --- waiting, cancellation, concurrency ----------------------------------------------------


async def test_cancellation_during_wait_propagates() -> None:
    started = asyncio.Event()

    async def slow_sleep(seconds: float) -> None:
        started.set()
        await asyncio.sleep(3600)

    proc = StreamErrorRetryProcessor(delay_ms=1000, sleep=slow_sleep)
    task = asyncio.create_task(proc.process_api_error(RATE_LIMITED, ctx(0)))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()


async def test_default_sleep_is_asyncio_sleep() -> None:
    decision = await StreamErrorRetryProcessor(delay_ms=1).process_api_error(RATE_LIMITED, ctx(0))
    assert decision.retry is True
    assert decision.delay_ms == 1


async def test_shared_instance_is_stateless_across_concurrent_requests(sleep: FakeSleep) -> None:
    proc = processor(sleep, max_retries=2, delay_ms=lambda retry_count: 100 * retry_count)
    decisions = await asyncio.gather(
        *(proc.process_api_error(RATE_LIMITED, ctx(n)) for n in (0, 2, 1, 0))
    )
    assert [(d.retry, d.delay_ms) for d in decisions] == [
        (True, 0),
        (False, 0),
        (True, 100),
        (True, 0),
    ]


# --- construction --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_retries": -1}, "max_retries must be >= 0"),
        ({"max_retry_after_ms": -1}, "max_retry_after_ms must be a finite number >= 0"),
        ({"delay_ms": -5}, "delay_ms must be a finite number >= 0"),
        ({"delay_ms": float("inf")}, "delay_ms must be a finite number >= 0"),
    ],
)
def test_negative_arguments_are_rejected(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        StreamErrorRetryProcessor(**options)


@pytest.mark.parametrize(
    "options",
    [
        {"max_retries": 1.5},
        {"max_retries": True},
        {"delay_ms": "100"},
        {"matchers": ["rate_limit"]},
        {"retry_unknown_errors": "yes"},
        {"sleep": 1},
    ],
)
def test_wrong_argument_types_are_rejected(options: dict[str, Any]) -> None:
    with pytest.raises(TypeError):
        StreamErrorRetryProcessor(**options)


def test_retry_matcher_validation() -> None:
    with pytest.raises(ValueError, match="RetryMatcher max_retries must be >= 0"):
        RetryMatcher(lambda e: True, max_retries=-1)
    with pytest.raises(ValueError, match="RetryMatcher delay_ms"):
        RetryMatcher(lambda e: True, delay_ms=-1)
    with pytest.raises(TypeError, match="match must be callable"):
        RetryMatcher("429")  # type: ignore[arg-type]


def test_retry_matcher_is_frozen() -> None:
    matcher = RetryMatcher(lambda e: True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        matcher.max_retries = 3  # type: ignore[misc]


def test_repr() -> None:
    def is_reset(error: ProviderError) -> bool:
        return "ECONNRESET" in error.message

    proc = StreamErrorRetryProcessor(
        max_retries=2,
        delay_ms=250,
        matchers=[is_reset, RetryMatcher(is_reset, max_retries=4)],
    )
    text = repr(proc)
    assert text.startswith("StreamErrorRetryProcessor(max_retries=2, max_retry_after_ms=30000,")
    assert "delay_ms=250" in text
    assert "is_reset" in text
    assert "max_retries=4" in text
    assert text.endswith("retry_unknown_errors=False)")
