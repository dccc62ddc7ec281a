"""What the retry processor tests share: a sleep that records instead of waiting, a retry
context, provider errors, and a processor built with that sleep."""

from __future__ import annotations

from typing import Any

from scorer_runtime.errors import ProviderError
from scorer_runtime.processors import RetryContext, StreamErrorRetryProcessor


class FakeSleep:
    """Records the seconds requested instead of waiting."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


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
