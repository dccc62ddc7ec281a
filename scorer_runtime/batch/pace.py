"""How fast a run goes, whether a judge's rate limit holds it back, and when it will end.

The runner measures its pace from the results as they land (:class:`PaceMeter`): examples a
second over the last few seconds, the provider calls an example makes, and whether the
judge's rate gate held the newest requests back (the evidence of each judge step says so:
``held_by``, ``held_rate``). It stores the pace with the run's heartbeat, so the Runs page
and ``scorer-studio run`` say the same (:func:`pace_words`): "At the limit of 600 requests a
minute: 10 a second. About 1 min 40 s left." While a limit holds the run back, its time
left is counted at the limit's speed, not at the pace of a first burst.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from scorer_runtime.batch.outcome import ExampleScore

MEASURED_S = 10.0
"""The results of the last this many seconds measure the pace."""
HELD_RECENTLY_S = 3.0
"""A run is held back while a request of the last this many seconds was."""


@dataclass(frozen=True, slots=True)
class RunPace:
    """A run's pace: examples a second, and the rate limit holding it back (if one does)."""

    examples_per_s: float | None
    held_by: str | None = None
    """``limit`` (the limit set on the judge) or ``provider`` (slowed down after its 429s)."""
    requests_per_s: float | None = None
    """The judge requests a second the run is held to."""
    calls_per_example: float = 1.0
    """Provider calls one example makes (its judge steps, retries included)."""

    def speed(self) -> float | None:
        """Examples a second to expect from now on."""
        if self.held_by and self.requests_per_s and self.calls_per_example > 0:
            return self.requests_per_s / self.calls_per_example
        return self.examples_per_s or None

    def seconds_left(self, remaining: int) -> float | None:
        """Seconds until ``remaining`` examples have a result (None: not known yet)."""
        speed = self.speed()
        return None if not speed else max(remaining, 0) / speed

    def to_data(self) -> dict[str, Any]:
        """The pace as plain data (stored with the run's heartbeat)."""
        return {
            "examples_per_s": self.examples_per_s,
            "held_by": self.held_by,
            "requests_per_s": self.requests_per_s,
            "calls_per_example": self.calls_per_example,
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any] | None) -> RunPace | None:
        """The pace a run's row holds (None for none, or for what is not a pace)."""
        if not isinstance(data, Mapping):
            return None
        try:
            return cls(
                examples_per_s=_number(data.get("examples_per_s")),
                held_by=str(data["held_by"]) if data.get("held_by") else None,
                requests_per_s=_number(data.get("requests_per_s")),
                calls_per_example=_number(data.get("calls_per_example")) or 1.0,
            )
        except (TypeError, ValueError):
            return None


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


class PaceMeter:
    """Measures a run's pace from its results as they land."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._landed: deque[tuple[float, int]] = deque()  # (when, provider calls)
        self._calls = 0  # provider calls of the landed results that made any
        self._calling = 0  # landed results that made any
        self._held_at = -math.inf
        self._held_by: str | None = None
        self._held_rate: float | None = None

    def count(self, result: ExampleScore) -> None:
        """One result landed."""
        now = self._clock()
        self._landed.append((now, result.attempts))
        self._calls += result.attempts
        self._calling += result.attempts > 0
        while self._landed and self._landed[0][0] < now - MEASURED_S:
            _, calls = self._landed.popleft()
            self._calls -= calls
            self._calling -= calls > 0
        for execution in result.judge.values():
            if isinstance(execution, Mapping) and execution.get("held_by"):
                self._held_at = now
                self._held_by = str(execution["held_by"])
                rate = execution.get("held_rate")
                self._held_rate = float(rate) if isinstance(rate, int | float) else None

    def pace(self) -> RunPace | None:
        """The pace now (None before any result)."""
        if not self._landed:
            return None
        now = self._clock()
        span = max(now - self._landed[0][0], 1.0)
        held = now - self._held_at <= HELD_RECENTLY_S
        return RunPace(
            examples_per_s=len(self._landed) / span,
            held_by=self._held_by if held else None,
            requests_per_s=self._held_rate if held else None,
            calls_per_example=self._calls / self._calling if self._calling else 1.0,
        )


def pace_words(pace: RunPace | None, remaining: int) -> str | None:
    """The pace in words, for the Runs page and the command line (None: nothing to say)."""
    if pace is None:
        return None
    said = []
    rate = pace.requests_per_s
    if pace.held_by == "limit" and rate:
        said.append(
            f"At the limit of {round(rate * 60):,} requests a minute: {_count(rate)} a second."
        )
    elif pace.held_by == "provider":
        about = f": about {_count(rate)} requests a second" if rate else ""
        said.append(f"Slowed down because the judge's provider said 'too many requests'{about}.")
    left = pace.seconds_left(remaining) if remaining > 0 else None
    if left is not None:
        said.append(f"About {duration_words(left)} left.")
    return " ".join(said) or None


def _count(rate: float | None) -> str:
    if rate is None:
        return "?"
    return f"{rate:.0f}" if rate >= 10 or float(rate).is_integer() else f"{rate:.1f}"


def duration_words(seconds: float) -> str:
    """``45 s``, ``2 min 10 s``, ``1 h 5 min``."""
    whole = max(round(seconds), 1)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        minutes, rest = divmod(whole, 60)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    hours, rest = divmod(whole, 3600)
    return f"{hours} h {rest // 60} min" if rest // 60 else f"{hours} h"
