"""One judge's gate on one event loop: every request to the judge passes it before it goes.

The gate holds a request back (never refuses it) until three things allow it:
1. no pause after a 429 is in force (:class:`~scorer_runtime.judge.rate.adaptive.AdaptiveRate`);
2. the rate learned from 429s, if any, spaces it from the request before;
3. the limit set on the judge, if any, grants it a slot of a window in the ledger that
   every runner of the store shares (:mod:`~scorer_runtime.judge.rate.windows`).

Slots are leased a few at a time (a quarter of a second's budget) so the shared ledger is
asked a few times a second, not once a request. Tokens are counted before the call (the
prompt's tokens plus the answers' usual size) and the difference to what the provider
reports is carried into the next lease. Waiting here is not a provider call: a held
request spends none of its retries.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from scorer_runtime.judge.rate.adaptive import AdaptiveRate
from scorer_runtime.judge.rate.windows import WINDOW_S, RateLedger, RateLimit

HeldBy = Literal["limit", "provider"]
"""Why a request was held: the limit set on the judge, or the provider's 429s."""

_NOTICED_S = 0.005
"""A hold shorter than this is no hold (the time of the gate's own work)."""
_LEASE_SHARE = 4
"""A lease takes at most a quarter of a window's requests (so runners take turns)."""
_MAX_LEASE = 50


@dataclass(frozen=True, slots=True)
class Hold:
    """What the gate did to one request: how long it held it, why, and the rate it kept."""

    held_s: float = 0.0
    by: HeldBy | None = None
    per_second: float | None = None
    """Requests a second the request was held to (the limit's, or the learned rate)."""


NO_HOLD = Hold()


@dataclass(frozen=True, slots=True)
class Ticket:
    """A request the gate let through: when, what it charged, and how it was held."""

    sent_at: float
    charged_tokens: int
    hold: Hold


@dataclass(frozen=True, slots=True)
class _Slot:
    at: float
    ends: float
    tokens: int


class JudgeGate:
    """The gate of one judge (a limit key and its limit) on one event loop."""

    def __init__(
        self,
        key: str,
        limit: RateLimit,
        ledger: RateLedger,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.key = key
        self.limit = limit
        self.ledger = ledger
        self.adaptive = AdaptiveRate()
        self._clock = clock
        self._sleep = sleep
        self._next_local = -math.inf
        self._slots: deque[_Slot] = deque()
        self._lease_lock = asyncio.Lock()
        self._debt = 0
        self._answer_tokens = 0.0
        """The usual size of an answer, in tokens (what a count of the prompt leaves out)."""

    def estimate(self, prompt_tokens: int) -> int:
        """Tokens a request with ``prompt_tokens`` will likely use, its answer included."""
        return prompt_tokens + round(self._answer_tokens)

    async def acquire(self, tokens: int = 0) -> Ticket:
        """Wait until the request (``tokens``: its estimate) may go; never refuses."""
        started = self._clock()
        by: HeldBy | None = None
        rate: float | None = None
        charged = 0
        while True:
            now = self._clock()
            if self.adaptive.paused_until > now:
                by, rate = "provider", self.adaptive.current(now)
                await self._sleep(self.adaptive.paused_until - now)
                continue
            learned = self.adaptive.current(now)
            if learned is not None:
                slot = max(now, self._next_local)
                self._next_local = slot + 1.0 / learned
                if slot - now > _NOTICED_S:
                    by, rate = "provider", learned
                    await self._sleep(slot - now)
            if self.limit.is_set:
                shared = await self._shared_slot(tokens)
                charged = shared.tokens
                wait = shared.at - self._clock()
                if wait > 0:
                    if by is None:
                        by, rate = "limit", self._limit_rate(tokens)
                    await self._sleep(wait)
            if self.adaptive.paused_until > self._clock():
                continue  # a 429 came while this one waited: the pause comes first
            break
        sent = self._clock()
        self.adaptive.sent(sent)
        held = sent - started
        if held < _NOTICED_S:
            return Ticket(sent, charged, NO_HOLD)
        return Ticket(sent, charged, Hold(held, by, rate))

    def succeeded(self, ticket: Ticket, *, prompt_tokens: int, answer_tokens: int) -> None:
        """The provider answered: carry what the tokens' estimate missed into the next lease."""
        if self.limit.tokens_per_minute is None:
            return
        self._debt += prompt_tokens + answer_tokens - ticket.charged_tokens
        # The usual answer: a moving mean, so the next estimates include it.
        self._answer_tokens += (answer_tokens - self._answer_tokens) * 0.2

    def rate_limited(self, ticket: Ticket, retry_after_s: float | None) -> None:
        """The provider answered 429 although the gate let the request through: pause
        every request to this judge, and cut its rate."""
        self.adaptive.rate_limited(self._clock(), ticket.sent_at, retry_after_s)

    def _limit_rate(self, tokens: int) -> float:
        rpm, tpm = self.limit.requests_per_minute, self.limit.tokens_per_minute
        rates = [rpm / 60] if rpm else []
        if tpm and tokens > 0:
            rates.append(tpm / 60 / tokens)
        return min(rates) if rates else 0.0

    async def _shared_slot(self, tokens: int) -> _Slot:
        async with self._lease_lock:  # one lease at a time; the others take its slots
            while True:
                now = self._clock()
                while self._slots and self._slots[0].ends <= now:
                    self._slots.popleft()  # its window is over: sending now would overrun
                if self._slots:
                    return self._slots.popleft()
                if not await self._lease(tokens, now):
                    await self._sleep(_next_window(now) * WINDOW_S - now)

    async def _lease(self, tokens: int, now: float) -> bool:
        """Lease slots of this window, else of the next; False when both are full."""
        size = self._lease_size(tokens)
        asks = [tokens] * size
        window = int(now // WINDOW_S)
        for at in (window, window + 1):
            debt, self._debt = self._debt, 0
            grant = await asyncio.to_thread(self.ledger.take, self.key, at, self.limit, asks, debt)
            ends = (at + 1) * WINDOW_S
            for moment in grant.moments(asks):
                self._slots.append(_Slot(moment, ends, tokens))
            if grant.count:
                return True
        return False

    def _lease_size(self, tokens: int) -> int:
        per_window = self._limit_rate(tokens) * WINDOW_S
        return max(1, min(_MAX_LEASE, math.ceil(per_window / _LEASE_SHARE)))


def _next_window(now: float) -> int:
    return int(now // WINDOW_S) + 1
