"""Judge rate limits: every request to a judge passes its gate first.

A judge's limit (``requests_per_minute`` and/or ``tokens_per_minute``, set on a judge
profile or a spec's judge) is kept in one-second windows counted in a :class:`RateLedger`
(:mod:`~scorer_runtime.judge.rate.windows`). The ledger in use is this process's memory
unless the caller says otherwise with :func:`using_ledger`: the batch engine hands its
runs the store's ledger, so every run, runner and process of a store shares one count.
With no limit set, a judge is held back only after its provider answers 429, by the rate
the gate learns (:mod:`~scorer_runtime.judge.rate.adaptive`).

Which judge a limit belongs to is its *limit key*: the model, the base URL and the name of
the key's environment variable (what a provider counts requests by), never the key.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import weakref
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from scorer_runtime.judge.rate.gate import NO_HOLD, HeldBy, Hold, JudgeGate, Ticket
from scorer_runtime.judge.rate.windows import (
    WINDOW_S,
    Grant,
    MemoryLedger,
    RateLedger,
    RateLimit,
    plan_grant,
)

__all__ = [
    "NO_HOLD",
    "WINDOW_S",
    "Grant",
    "HeldBy",
    "Hold",
    "JudgeGate",
    "MemoryLedger",
    "RateLedger",
    "RateLimit",
    "Ticket",
    "active_ledger",
    "gate_for",
    "limit_key",
    "plan_grant",
    "using_ledger",
    "using_time",
]

_PROCESS_LEDGER = MemoryLedger()
"""The ledger of a process that was given none: its limits hold within the process."""
_LEDGER: ContextVar[RateLedger | None] = ContextVar("scorer_runtime_rate_ledger", default=None)
_Time = tuple[Callable[[], float], Callable[[float], Awaitable[object]]]
_REAL_TIME: _Time = (time.time, asyncio.sleep)
_TIME: ContextVar[_Time] = ContextVar("scorer_runtime_rate_time", default=_REAL_TIME)
_GATES: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[str, RateLimit, int, int], JudgeGate]
] = weakref.WeakKeyDictionary()


def limit_key(model: str, api_base: str | None, api_key_env: str | None) -> str:
    """The name a judge's limit is counted under: a SHA-256 of what the provider counts
    requests by (model, address, the key variable's *name*)."""
    described = "\n".join((model, api_base or "", api_key_env or ""))
    return hashlib.sha256(described.encode()).hexdigest()


def active_ledger() -> RateLedger:
    """The ledger the current task's judge requests count in."""
    return _LEDGER.get() or _PROCESS_LEDGER


@contextmanager
def using_ledger(ledger: RateLedger | None) -> Iterator[None]:
    """Judge requests made inside (and in tasks created inside) count in ``ledger``; None:
    this process's memory."""
    token = _LEDGER.set(ledger)
    try:
        yield
    finally:
        _LEDGER.reset(token)


@contextmanager
def using_time(
    clock: Callable[[], float], sleep: Callable[[float], Awaitable[object]]
) -> Iterator[None]:
    """Gates made inside read ``clock`` (Unix seconds) and wait with ``sleep``: a test of
    something else (a retry policy) need not wait out a real pause after a 429."""
    token = _TIME.set((clock, sleep))
    try:
        yield
    finally:
        _TIME.reset(token)


def gate_for(key: str, limit: RateLimit) -> JudgeGate:
    """The gate of the judge ``key`` with ``limit`` on the running event loop (one per
    loop: a gate's waits belong to its loop), counting in the active ledger."""
    ledger = active_ledger()
    clock, sleep = timing = _TIME.get()
    gates = _GATES.setdefault(asyncio.get_running_loop(), {})
    name = (key, limit, id(ledger), id(timing))
    found = gates.get(name)
    if found is None or found.ledger is not ledger:
        found = gates[name] = JudgeGate(key, limit, ledger, clock=clock, sleep=sleep)
    return found
