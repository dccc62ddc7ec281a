"""The rate a judge is held to after its provider said "too many requests" (HTTP 429).

Additive increase, multiplicative decrease (AIMD, Chiu and Jain 1989), on the *request
rate* rather than on the number of requests in flight: a 50 ms judge at one request in
flight is still 20 requests a second, so only a rate can go below what the latency allows.

- Before any 429 nothing is held back (no rate is known).
- A 429 pauses every request to the judge for the ``Retry-After`` the provider gave (1 s
  when it gave none, 60 s at most), and cuts the rate to :data:`BACKOFF` times what was
  being sent: the rate in force, or, before the first cut, the requests sent in the last
  second. One cut per episode: a 429 for a request sent before the last cut (it was
  already in flight) pauses but does not cut again.
- After the pause the rate climbs by :data:`CLIMB` of the rate at the cut each second
  (additive: the same step every second); once it has doubled the rate is forgotten and
  the judge is held back no more until the next 429.

Several processes sending to one judge each keep their own rate: AIMD flows sharing a
bottleneck converge to fair shares of it (the point of Chiu and Jain's proof).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

BACKOFF = 0.7
"""The multiplicative decrease on a 429."""
CLIMB = 0.05
"""The additive increase: this share of the rate at the last cut, every second."""
MIN_RATE = 1 / 60
"""The lowest rate a cut goes to (one request a minute), in requests a second."""
DEFAULT_PAUSE_S = 1.0
"""The pause after a 429 that gave no Retry-After."""
MAX_PAUSE_S = 60.0
"""The longest pause a Retry-After can ask for."""


@dataclass(slots=True)
class AdaptiveRate:
    """One judge's learned rate and pause, all times in seconds of one clock."""

    rate_at_cut: float | None = None
    climb_from: float = -math.inf
    """When the climb after the last cut began (the end of its pause)."""
    cut_at: float = -math.inf
    paused_until: float = -math.inf
    _second: int = 0
    _sent_now: int = 0
    _sent_before: int = 0

    def current(self, now: float) -> float | None:
        """Requests a second the judge is held to now (None: not held)."""
        if self.rate_at_cut is None:
            return None
        climbed = max(0.0, now - self.climb_from) * CLIMB
        if climbed >= 1.0:  # doubled: forget it until the next 429
            self.rate_at_cut = None
            return None
        return self.rate_at_cut * (1.0 + climbed)

    def sent(self, now: float) -> None:
        """Count a request sent at ``now`` (the first cut starts from these counts)."""
        second = int(now)
        if second != self._second:
            self._sent_before = self._sent_now if second == self._second + 1 else 0
            self._second, self._sent_now = second, 0
        self._sent_now += 1

    def rate_limited(self, now: float, sent_at: float, retry_after_s: float | None) -> bool:
        """A 429 for a request sent at ``sent_at``: pause, and cut unless this episode was
        cut already. Returns whether the rate was cut."""
        pause = DEFAULT_PAUSE_S if retry_after_s is None else retry_after_s
        until = now + min(max(pause, 0.0), MAX_PAUSE_S)
        self.paused_until = max(self.paused_until, until)
        if sent_at < self.cut_at:
            self.climb_from = max(self.climb_from, self.paused_until)  # no climb while paused
            return False
        held = self.current(now)
        sending = held if held is not None else float(max(self._recent(now), 1))
        self.rate_at_cut = max(MIN_RATE, BACKOFF * sending)
        self.cut_at = now
        self.climb_from = self.paused_until
        return True

    def _recent(self, now: float) -> int:
        """Requests sent in the last second or so (this second's, or the last whole one's)."""
        second = int(now)
        if second == self._second:
            return max(self._sent_now, self._sent_before)
        return self._sent_now if second == self._second + 1 else 0
