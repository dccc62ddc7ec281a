"""StreamErrorRetryProcessor: matchers, budgets, delays, Retry-After and cancellation."""

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
    ErrorProcessor,
    RetryContext,
    RetryMatcher,
    StreamErrorRetryProcessor,
    parse_retry_after_ms,
)


class FakeSleep:
    """Records the seconds requested instead of waiting."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@pytest.fixture
def sleep() -> FakeSleep:
    return FakeSleep()


def ctx(retry_count: int = 0) -> RetryContext:
    return RetryContext(
        scorer_id="quality",
        step="generate_score",
        run_id="run-1",
        model="openai/gpt-4o-mini",
        retry_count=retry_count,
        provider_calls=retry_count + 1,
        max_processor_retries=10,
    )


def err(message: str = "failed", **fields: Any) -> ProviderError:
    return ProviderError(message, **fields)


RATE_LIMITED = err(status_code=429)
AUTH = err(status_code=401, code="invalid_api_key")
BAD_REQUEST = err(status_code=400)
CONTEXT = err(status_code=400, code="context_length_exceeded")


def processor(sleep: FakeSleep, **options: Any) -> StreamErrorRetryProcessor:
    return StreamErrorRetryProcessor(sleep=sleep, **options)


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
