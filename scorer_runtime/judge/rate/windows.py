"""A judge's rate limit, counted in one-second windows that every runner shares.

A limit of ``requests_per_minute`` (and/or ``tokens_per_minute``) is kept as a budget per
wall-clock second: window ``n`` (the second starting at Unix time ``n``) may send
``floor((n + 1) * rpm / 60) - floor(n * rpm / 60)`` requests, so the budgets of any run of
seconds add up to the limit exactly, also for limits below one a second.

A :class:`RateLedger` hands out *slots* of a window: a position in it (the k-th request of
the window's budget, with the tokens granted before it) that fixes the moment the request
may go, ``k / budget`` of the way into the second. Every runner of a store asks the same
ledger, so the slots of all of them are spread evenly over each second and never add up to
more than its budget. :class:`MemoryLedger` serves one process (several event loops); the
store's ledger (``scorer_runtime.store.rate_windows``) serves every process and machine
that shares the store.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

WINDOW_S = 1.0
"""The length of one window, in seconds (a limit per minute is kept second by second)."""


@dataclass(frozen=True, slots=True)
class RateLimit:
    """What a provider allows one key: requests and/or tokens a minute (None: no limit)."""

    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None

    def __post_init__(self) -> None:
        for name in ("requests_per_minute", "tokens_per_minute"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or value < 1):
                raise ValueError(f"{name} must be a whole number of 1 or more")

    @property
    def is_set(self) -> bool:
        """Whether any limit is set."""
        return self.requests_per_minute is not None or self.tokens_per_minute is not None

    def budgets(self, window: int) -> tuple[int | None, int | None]:
        """Requests and tokens window ``window`` may use (None: not limited)."""
        return _share(self.requests_per_minute, window), _share(self.tokens_per_minute, window)


def _share(per_minute: int | None, window: int) -> int | None:
    if per_minute is None:
        return None
    return (window + 1) * per_minute // 60 - window * per_minute // 60


@dataclass(frozen=True, slots=True)
class Grant:
    """Slots of one window: ``count`` requests from position ``first`` of its budget, the
    window having held ``tokens_before`` tokens before them."""

    window: int
    first: int
    count: int
    tokens_before: int
    request_budget: int | None
    token_budget: int | None

    def moments(self, tokens: Sequence[int]) -> list[float]:
        """When each granted request may go (Unix time): spread evenly over the window by
        its position among the window's requests and among its tokens."""
        out = []
        before = self.tokens_before
        for i in range(self.count):
            share = 0.0
            if self.request_budget:
                share = (self.first + i) / self.request_budget
            if self.token_budget:
                share = max(share, min(before / self.token_budget, 1.0))
            out.append(self.window * WINDOW_S + share * WINDOW_S)
            before += tokens[i]
        return out


def plan_grant(
    used_requests: int,
    used_tokens: int,
    budgets: tuple[int | None, int | None],
    tokens: Sequence[int],
) -> int:
    """How many of the asked-for requests (``tokens``: each one's tokens, in order) fit in
    a window that has used ``used_requests`` and ``used_tokens`` of its ``budgets``.

    A request bigger than a whole window's tokens goes alone, into a window with no tokens
    used yet (else it could never go)."""
    request_budget, token_budget = budgets
    count, spent = 0, used_tokens
    for need in tokens:
        if request_budget is not None and used_requests + count >= request_budget:
            break
        over = token_budget is not None and spent + need > token_budget
        if over and (spent > 0 or token_budget == 0):
            break
        count += 1
        spent += need
    return count


class RateLedger(Protocol):
    """Where the slots of each limited judge's windows are counted."""

    def take(
        self, key: str, window: int, limit: RateLimit, tokens: Sequence[int], debt: int = 0
    ) -> Grant:
        """Grant as many of the requests ``tokens`` describes as fit in ``window`` of the
        limit ``key`` names (maybe none). ``debt``: tokens used beyond what earlier grants
        counted (negative when fewer were used), added to the window first."""


class MemoryLedger:
    """A ledger kept in this process's memory: shared by every event loop of the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._windows: dict[tuple[str, int], tuple[int, int]] = {}  # -> (requests, tokens)

    def take(
        self, key: str, window: int, limit: RateLimit, tokens: Sequence[int], debt: int = 0
    ) -> Grant:
        budgets = limit.budgets(window)
        with self._lock:
            used, spent = self._windows.get((key, window), (0, 0))
            spent = max(0, spent + debt)
            count = plan_grant(used, spent, budgets, tokens)
            self._windows[(key, window)] = (used + count, spent + sum(tokens[:count]))
            for old in [k for k in self._windows if k[1] < window - _KEPT_WINDOWS]:
                del self._windows[old]  # over long ago: nothing asks for them again
        return Grant(window, used, count, spent, *budgets)


_KEPT_WINDOWS = 5
