"""Numbers of a run in plain words: durations, costs, times, progress."""

from __future__ import annotations

from datetime import datetime

from scorer_runtime.money import CostWords, cost_words, format_dollars
from scorer_runtime.store.views import RunLine

UNPRICED_WHY = (
    "Results without a price asked the judge but have no known cost, so they are not in the "
    "amount: most often the price list the studio reads (litellm's) has no price for the "
    "judge's model — a local model, a fine-tune, or one newer than the list — or the "
    "provider failed before answering."
)
"""Why some results have no cost, in plain words (after the counts)."""


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
    """A judge cost in dollars, precise enough for fractions of a cent (a total that may
    leave unpriced results out is said with ``cost_words`` instead)."""
    return "—" if cost is None else format_dollars(cost)


def run_cost_words(line: RunLine) -> CostWords:
    """The run's cost so far in words, saying how much of it is known."""
    return cost_words(line.cost, line.priced, line.unpriced)


def cost_value(words: CostWords) -> str:
    """The amount for a metric: ``$0.0123``, ``Unknown`` or ``$0``."""
    return words.amount[:1].upper() + words.amount[1:]


def cost_help(words: CostWords, *, so_far: bool = False) -> str:
    """What a cost amount covers, for a metric's help: the counts when some results have no
    price (and why), else what it is."""
    if not words.complete:
        known = "the known cost so far" if so_far else "the known cost"
        return f"{words.note[:1].upper()}{words.note[1:]}: the amount is {known}. {UNPRICED_WHY}"
    if words.kind == "nothing":
        return "Nothing was spent on judge calls (no result called a priced judge)."
    spent = "made so far cost" if so_far else "cost"
    return f"What the judge calls {spent}, at the prices litellm knows for the model."


def cost_caption(words: CostWords, *, so_far: bool = False) -> str | None:
    """A line to show under the numbers when part of the cost is unknown (None otherwise):
    ``Judge cost: $0.0123 (38 of 40 results priced; the rest are unknown). …why…``; while a
    run goes, ``Known cost so far: …``."""
    if words.complete:
        return None
    label = "Judge cost"
    if so_far:
        label = "Known cost so far" if words.kind == "partial" else "Cost so far"
    return f"{label}: {words}. {UNPRICED_WHY}"


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
