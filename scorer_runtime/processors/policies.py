"""Readable building blocks for retry policies: a backoff curve and error matchers.

They plug into :class:`~scorer_runtime.processors.StreamErrorRetryProcessor` (``delay_ms=``
and ``matchers=``). Each is a small frozen object whose ``repr`` is the call that builds it,
so a processor prints as the code that made it and exported scorers read as written::

    StreamErrorRetryProcessor(
        max_retries=3,
        delay_ms=exponential_backoff(initial_ms=500, factor=2, max_ms=8000),
        matchers=[status_in(429, 529), message_contains("overloaded")],
    )
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scorer_runtime.errors import ProviderError

__all__ = [
    "ExponentialBackoff",
    "MessageContains",
    "StatusIn",
    "exponential_backoff",
    "message_contains",
    "status_in",
]


def _num(value: float) -> str:
    """A number as people write it: 1000 rather than 1000.0."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@dataclass(frozen=True, slots=True)
class ExponentialBackoff:
    """A delay (ms) growing by ``factor`` per retry, capped at ``max_ms``; see
    :func:`exponential_backoff`."""

    initial_ms: float
    factor: float
    max_ms: float

    def __call__(self, retry_count: int) -> float:
        """The delay before retry number ``retry_count + 1`` (``retry_count`` made so far)."""
        try:
            delay = self.initial_ms * self.factor ** max(retry_count, 0)
        except OverflowError:  # a huge retry count: the cap applies anyway
            return float(self.max_ms)
        return float(min(delay, self.max_ms))

    def __repr__(self) -> str:
        return (
            f"exponential_backoff(initial_ms={_num(self.initial_ms)}, "
            f"factor={_num(self.factor)}, max_ms={_num(self.max_ms)})"
        )


def exponential_backoff(
    initial_ms: float = 1000, factor: float = 2, max_ms: float = 30_000
) -> ExponentialBackoff:
    """Wait ``initial_ms``, then ``initial_ms * factor``, ``* factor**2``… never above ``max_ms``.

    Growing waits give an overloaded provider room to recover; the cap keeps one request from
    stalling a batch. Raises ``ValueError`` for negative or non-finite values, or a factor
    below 1 (a shrinking backoff would hammer a struggling provider).
    """
    for name, value in (("initial_ms", initial_ms), ("max_ms", max_ms)):
        if not _is_number(value) or value < 0:
            raise ValueError(f"exponential_backoff: {name} must be a number >= 0, got {value!r}")
    if not _is_number(factor) or factor < 1:
        raise ValueError(f"exponential_backoff: factor must be a number >= 1, got {factor!r}")
    return ExponentialBackoff(initial_ms, factor, max_ms)


@dataclass(frozen=True, slots=True)
class StatusIn:
    """Matches provider errors whose HTTP status is one of ``codes``; see :func:`status_in`."""

    codes: tuple[int, ...]

    def __call__(self, error: ProviderError) -> bool:
        """True when the failed call answered with one of the codes."""
        return error.status_code in self.codes

    def __repr__(self) -> str:
        return f"status_in({', '.join(str(code) for code in self.codes)})"


def status_in(*codes: int) -> StatusIn:
    """A matcher retrying errors with any of these HTTP status codes (e.g. ``status_in(529)``).

    A match is retried even when the status would not be by default (an explicit choice wins).
    """
    if not codes:
        raise ValueError("status_in needs at least one HTTP status code, e.g. status_in(429)")
    for code in codes:
        if isinstance(code, bool) or not isinstance(code, int) or not 100 <= code <= 599:
            raise ValueError(f"status_in: {code!r} is not an HTTP status code (100-599)")
    return StatusIn(tuple(codes))


@dataclass(frozen=True, slots=True)
class MessageContains:
    """Matches provider errors whose message contains any of ``texts`` (ignoring case); see
    :func:`message_contains`."""

    texts: tuple[str, ...]

    def __call__(self, error: ProviderError) -> bool:
        """True when the error's text contains one of the texts, case-insensitively."""
        message = str(error).casefold()
        return any(text.casefold() in message for text in self.texts)

    def __repr__(self) -> str:
        return f"message_contains({', '.join(repr(text) for text in self.texts)})"


def message_contains(*texts: str) -> MessageContains:
    """A matcher retrying errors whose message mentions any of ``texts`` (case-insensitive),
    e.g. ``message_contains("overloaded", "try again")``."""
    if not texts:
        raise ValueError("message_contains needs at least one text, e.g. 'overloaded'")
    for text in texts:
        if not isinstance(text, str) or not text:
            raise ValueError(f"message_contains: {text!r} must be a non-empty string")
    return MessageContains(tuple(texts))


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
