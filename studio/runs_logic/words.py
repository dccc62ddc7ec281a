"""Numbers of a run in plain words: durations, costs, times, progress."""

from __future__ import annotations

from datetime import datetime


def format_duration(seconds: float | None) -> str:
    """``42 s``, ``3 min 5 s``, ``1 h 2 min`` (``—`` when unknown)."""
    if seconds is None:
        return "—"
    whole = max(round(seconds), 0)
    if whole < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def format_cost(cost: float | None) -> str:
    """A judge cost in dollars, precise enough for fractions of a cent."""
    return "—" if cost is None else f"${cost:,.4f}"


def format_when(moment: datetime | None) -> str:
    """A stored time (UTC) as ``30 Nov 2026, 14:03 UTC`` (``—`` when not yet)."""
    return "—" if moment is None else f"{moment:%d %b %Y, %H:%M} UTC"


def progress_words(done: int, total: int, failed: int) -> str:
    """``12 of 24 examples have a result (2 failed)``."""
    noun = "example has" if total == 1 else "examples have"
    text = f"{done:,} of {total:,} {noun} a result"
    return f"{text} ({failed:,} failed)" if failed else text


def share(done: int, total: int) -> float:
    """The part done, between 0 and 1 (1 for an empty run, which has nothing left)."""
    return 1.0 if total <= 0 else min(max(done / total, 0.0), 1.0)
