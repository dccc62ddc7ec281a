"""``StreamErrorRetryProcessor``: retry failed judge requests with bounded, honest waits.

The Python counterpart of Mastra's ``StreamErrorRetryProcessor``. It decides whether a failed
provider call is retried, computes the delay (configured delay vs. the provider's
``Retry-After``), waits it out itself (so the wait can be cancelled), and answers with a
:class:`~scorer_runtime.processors.base.RetryDecision`.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from scorer_runtime.errors import ProviderError
from scorer_runtime.processors.base import RetryContext, RetryDecision
from scorer_runtime.processors.classify import (
    classify_error,
    is_auth_failure,
    is_retryable_by_default,
)

__all__ = [
    "DelayMs",
    "ErrorPredicate",
    "RetryMatcher",
    "StreamErrorRetryProcessor",
    "parse_retry_after_ms",
]

ErrorPredicate = Callable[[ProviderError], bool]
"""A plain matcher: True when the error should be retried."""

DelayMs = float | Callable[..., float | Awaitable[float]]
"""A delay in milliseconds, or a callable computing it from keyword arguments.

The callable may declare any subset of ``retry_count``, ``error`` and ``context`` (or
``**kwargs``); ``retry_count`` is ``context.retry_count``, the retries already made, so the
retry about to be made is number ``retry_count + 1``.
"""

_DELAY_KWARGS = frozenset({"retry_count", "error", "context"})
_ON_RETRY_KWARGS = frozenset({"retry_count", "error", "context", "delay_ms"})
_SECONDS = re.compile(r"\d+(?:\.\d*)?|\.\d+")


@dataclass(frozen=True, slots=True)
class RetryMatcher:
    """A matcher with its own retry budget, delay and callback.

    ``match`` decides whether this matcher applies. When it does, the error is retried (even
    an auth failure: an explicit match wins), ``max_retries`` replaces the processor's budget
    for it (once spent, the error is not retried: no fall-through to later matchers or the
    defaults), ``delay_ms`` replaces the processor's delay, and ``on_retry`` (sync or async,
    called with any of ``error``, ``retry_count``, ``delay_ms``, ``context``) runs before the
    wait.
    """

    match: ErrorPredicate
    max_retries: int | None = None
    delay_ms: DelayMs | None = None
    on_retry: Callable[..., object] | None = None

    def __post_init__(self) -> None:
        if not callable(self.match):
            raise TypeError(f"RetryMatcher.match must be callable, got {self.match!r}")
        if self.max_retries is not None:
            _check_count("RetryMatcher max_retries", self.max_retries)
        if self.delay_ms is not None:
            _check_delay("RetryMatcher delay_ms", self.delay_ms)
        if self.on_retry is not None and not callable(self.on_retry):
            raise TypeError(f"RetryMatcher.on_retry must be callable, got {self.on_retry!r}")


def parse_retry_after_ms(
    headers: Mapping[str, str], *, now: datetime | None = None
) -> float | None:
    """Return how long the provider asked us to wait, in milliseconds, or None.

    ``retry-after-ms`` (milliseconds, may be fractional) wins over ``retry-after``, which is
    seconds (integer or decimal) or an HTTP date; only a date in the future counts. Invalid,
    negative or non-finite values are ignored. Header names are matched case-insensitively.
    ``now`` (an aware datetime; default: the current time) is injectable for tests. No cap is
    applied here: the processor caps the result with ``max_retry_after_ms``.
    """
    lowered = {key.lower(): value for key, value in headers.items()}
    millis = _parse_seconds(lowered.get("retry-after-ms"))
    if millis is not None:
        return millis
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    seconds = _parse_seconds(raw)
    if seconds is not None:
        return seconds * 1000
    return _parse_http_date_ms(raw, now)


def _parse_seconds(raw: str | None) -> float | None:
    # A strict pattern rather than float(): float() also accepts "inf", "nan", "-1" and "1_0".
    if raw is None or not _SECONDS.fullmatch(raw.strip()):
        return None
    return float(raw.strip())


def _parse_http_date_ms(raw: str, now: datetime | None) -> float | None:
    try:
        when = parsedate_to_datetime(raw.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # HTTP dates are GMT; a zone-less one is read as UTC.
        when = when.replace(tzinfo=UTC)
    remaining = (when - (now or datetime.now(UTC))).total_seconds()
    return remaining * 1000 if remaining > 0 else None


@dataclass(frozen=True, slots=True)
class _Rule:
    """A matcher prepared at construction: label, predicate and keyword-filtered callables."""

    label: str
    match: ErrorPredicate
    max_retries: int | None
    delay: Callable[[dict[str, Any]], object] | float | None
    on_retry: Callable[[dict[str, Any]], object] | None


@dataclass(frozen=True, slots=True)
class _Plan:
    """What to do for one error: retry or not, why, and under which matcher and budget."""

    retry: bool
    reason: str
    rule: _Rule | None = None
    budget: int = 0


class StreamErrorRetryProcessor:
    """An error processor that retries transient judge failures, within a budget.

    Order of decision for each failed call:

    1. ``matchers``, in order; the first match wins. A plain predicate uses the processor's
       budget and delay; a :class:`RetryMatcher` may replace both. A match retries even an
       auth failure. A spent matcher budget means "not retried" (no fall-through).
    2. Otherwise the defaults: retried when :func:`is_retryable_by_default` says so, or, with
       ``retry_unknown_errors=True``, any failure except an auth failure (including 400 and
       context-length errors, as in Mastra).
    3. Retried only while ``context.retry_count < max_retries`` (or the matcher's budget).

    The delay is ``max(configured delay, min(Retry-After, max_retry_after_ms))``; ``delay_ms``
    may be a callable such as ``lambda retry_count: min(1000 * 2**retry_count, 30_000)``
    (``retry_count`` is ``context.retry_count``). The processor awaits ``sleep(seconds)``
    itself before answering, so cancelling the request cancels the wait.

    Budgets combine with the judge's: the judge stops after
    ``min(this processor's budget for the error, judge max_processor_retries)`` retries for
    one request (the judge's cap defaults to 10 when error processors are configured). Set
    both to the same value for one clear budget.

    The processor keeps no per-request state (all counting comes from ``context``), so one
    instance can serve concurrent requests.
    """

    def __init__(
        self,
        max_retries: int = 1,
        max_retry_after_ms: float = 30_000,
        delay_ms: DelayMs = 0,
        matchers: Iterable[ErrorPredicate | RetryMatcher] = (),
        retry_unknown_errors: bool = False,
        sleep: Callable[[float], Awaitable[object]] | None = None,
    ) -> None:
        _check_count("max_retries", max_retries)
        _check_number("max_retry_after_ms", max_retry_after_ms)
        _check_delay("delay_ms", delay_ms)
        if not isinstance(retry_unknown_errors, bool):
            raise TypeError(f"retry_unknown_errors must be a bool, got {retry_unknown_errors!r}")
        if sleep is not None and not callable(sleep):
            raise TypeError(f"sleep must be an async callable, got {sleep!r}")
        self.max_retries = max_retries
        self.max_retry_after_ms = max_retry_after_ms
        self.delay_ms = delay_ms
        self.matchers: tuple[ErrorPredicate | RetryMatcher, ...] = tuple(matchers)
        self.retry_unknown_errors = retry_unknown_errors
        self._sleep: Callable[[float], Awaitable[object]] = sleep or asyncio.sleep
        self._delay = _prepare_delay(delay_ms)
        self._rules = tuple(_prepare_rule(i, m) for i, m in enumerate(self.matchers))

    def __repr__(self) -> str:
        matchers = ", ".join(_describe(m) for m in self.matchers)
        return (
            f"{type(self).__name__}(max_retries={self.max_retries}, "
            f"max_retry_after_ms={_num(self.max_retry_after_ms)}, "
            f"delay_ms={_describe(self.delay_ms)}, matchers=[{matchers}], "
            f"retry_unknown_errors={self.retry_unknown_errors})"
        )

    async def process_api_error(self, error: ProviderError, context: RetryContext) -> RetryDecision:
        """Decide whether ``error`` is retried; when it is, wait the delay, then say so."""
        plan = self._plan(error, context)
        if not plan.retry:
            return RetryDecision(retry=False, reason=plan.reason)
        rule = plan.rule
        delay_spec = rule.delay if rule is not None and rule.delay is not None else self._delay
        configured = await _resolve_delay(
            delay_spec, {"retry_count": context.retry_count, "error": error, "context": context}
        )
        delay_ms = self._with_retry_after(configured, error)
        if rule is not None and rule.on_retry is not None:
            outcome = rule.on_retry(
                {
                    "error": error,
                    "retry_count": context.retry_count,
                    "delay_ms": delay_ms,
                    "context": context,
                }
            )
            if inspect.isawaitable(outcome):
                await outcome
        # Always await, even for 0 ms: it yields to the loop and is a cancellation point.
        await self._sleep(delay_ms / 1000)
        reason = (
            f"retry {context.retry_count + 1} of {plan.budget} after {_num(delay_ms)} ms: "
            f"{plan.reason}"
        )
        return RetryDecision(retry=True, delay_ms=delay_ms, reason=reason)

    def _plan(self, error: ProviderError, context: RetryContext) -> _Plan:
        for rule in self._rules:
            if not rule.match(error):
                continue
            budget = self.max_retries if rule.max_retries is None else rule.max_retries
            if context.retry_count >= budget:
                return _Plan(False, f"retry budget of {budget} spent ({rule.label})")
            return _Plan(True, rule.label, rule, budget)
        kind = classify_error(error)
        label = kind.value if kind is not None else "unclassified error"
        if is_retryable_by_default(error):
            why = label
        elif self.retry_unknown_errors and not is_auth_failure(error):
            why = f"{label} (retry_unknown_errors)"
        else:
            return _Plan(False, _not_retried_reason(error, label))
        if context.retry_count >= self.max_retries:
            return _Plan(False, f"retry budget of {self.max_retries} spent ({label})")
        return _Plan(True, why, budget=self.max_retries)

    def _with_retry_after(self, configured: float, error: ProviderError) -> float:
        retry_after = parse_retry_after_ms(error.headers)
        if retry_after is None:
            return configured
        return max(configured, min(retry_after, self.max_retry_after_ms))


def _not_retried_reason(error: ProviderError, label: str) -> str:
    if is_auth_failure(error):
        return "authentication failed: not retried"
    if error.retryable is False:
        return f"{label}: the provider marked it not retryable"
    return f"{label}: not retried by default"


def _prepare_rule(index: int, matcher: ErrorPredicate | RetryMatcher) -> _Rule:
    label = f"matcher {index} ({_describe(matcher)})"
    if isinstance(matcher, RetryMatcher):
        on_retry = matcher.on_retry
        return _Rule(
            label=label,
            match=matcher.match,
            max_retries=matcher.max_retries,
            delay=None if matcher.delay_ms is None else _prepare_delay(matcher.delay_ms),
            on_retry=None if on_retry is None else _keyword_caller(on_retry, _ON_RETRY_KWARGS),
        )
    if not callable(matcher):
        raise TypeError(
            f"matchers[{index}] must be a predicate (ProviderError) -> bool or a RetryMatcher, "
            f"got {matcher!r}"
        )
    return _Rule(label=label, match=matcher, max_retries=None, delay=None, on_retry=None)


def _prepare_delay(delay: DelayMs) -> Callable[[dict[str, Any]], object] | float:
    if callable(delay):
        return _keyword_caller(delay, _DELAY_KWARGS)
    return float(delay)


async def _resolve_delay(
    delay: Callable[[dict[str, Any]], object] | float, kwargs: dict[str, Any]
) -> float:
    if not callable(delay):
        return delay
    value = delay(kwargs)
    if inspect.isawaitable(value):
        value = await value
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not (math.isfinite(value) and value >= 0)
    ):
        raise ValueError(
            f"delay_ms callable returned {value!r}; it must return a non-negative number of "
            "milliseconds"
        )
    return float(value)


def _keyword_caller(
    fn: Callable[..., object], offered: frozenset[str]
) -> Callable[[dict[str, Any]], object]:
    """Wrap ``fn`` so it receives only the keyword arguments it declares (inspected once)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # some builtins have no signature: offer everything
        return lambda kwargs: fn(**kwargs)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return lambda kwargs: fn(**kwargs)
    keyword_kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    accepted = frozenset(p.name for p in params if p.kind in keyword_kinds and p.name in offered)
    missing = [
        p.name
        for p in params
        if p.default is inspect.Parameter.empty
        and p.kind is not inspect.Parameter.VAR_POSITIONAL
        and p.name not in accepted
    ]
    if missing:
        raise TypeError(
            f"{_describe(fn)} requires {', '.join(map(repr, missing))}, which is never passed; "
            f"it may declare any of {', '.join(sorted(offered))} (by keyword) or **kwargs"
        )
    return lambda kwargs: fn(**{name: kwargs[name] for name in accepted})


def _check_count(what: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, got {value!r}")
    if value < 0:
        raise ValueError(f"{what} must be >= 0, got {value}")


def _check_number(what: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{what} must be a number of milliseconds, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be a finite number >= 0 (milliseconds), got {value}")


def _check_delay(what: str, value: object) -> None:
    if not callable(value):
        _check_number(what, value)


def _describe(value: object) -> str:
    if isinstance(value, RetryMatcher):
        extras = "".join(
            f", {name}={_describe(getattr(value, name))}"
            for name in ("max_retries", "delay_ms", "on_retry")
            if getattr(value, name) is not None
        )
        return f"RetryMatcher({_describe(value.match)}{extras})"
    if callable(value):
        return getattr(value, "__qualname__", None) or repr(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _num(value)
    return repr(value)


def _num(value: float) -> str:
    """A number as people write it: 30000 rather than 30000.0 or 3e+04."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))
