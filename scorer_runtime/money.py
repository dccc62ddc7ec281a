"""Money in words: the one way of writing an amount and of saying a cost total.

The CLI and the studio both use it, so a total with unpriced results never reads as a plain
"$0", and a cheap run of a priced model never reads as ``$0.0000``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

CostKind = Literal["priced", "partial", "unknown", "nothing"]
"""How much of a cost total is known: all of it, part, none; or nothing was spent (no judge
call, or a model priced at nothing)."""


def format_dollars(cost: float) -> str:
    """``$0.0123``; a smaller amount keeps two significant digits (``$0.000023``), so a
    cheap run of a priced model never reads as ``$0.0000``."""
    if cost == 0:
        return "$0"
    if abs(cost) >= 0.001:
        return f"${cost:,.4f}"
    digits = min(10, 1 - math.floor(math.log10(abs(cost))))
    return f"${cost:,.{digits}f}"


@dataclass(frozen=True, slots=True)
class CostWords:
    """A cost total in words: the amount, and what it covers when that is not everything."""

    kind: CostKind
    amount: str
    """``$0.0123``, ``unknown`` (no result was priced) or ``$0`` (nothing was spent)."""
    note: str = ""
    """Empty when every judge call was priced; else what the amount covers."""

    @property
    def complete(self) -> bool:
        """Whether the amount covers every judge call (no result is unpriced)."""
        return self.kind in ("priced", "nothing")

    def __str__(self) -> str:
        return f"{self.amount} ({self.note})" if self.note else self.amount


def _results(n: int) -> str:
    return f"{n:,} result" if n == 1 else f"{n:,} results"


def cost_words(cost: float, priced: int, unpriced: int) -> CostWords:
    """How to say a cost total of results of which ``priced`` have a cost and ``unpriced``
    called the judge without a known price (litellm has no price for the model).

    Results that spent nothing (no judge call) are in neither count.
    """
    if unpriced == 0:
        return CostWords("nothing" if cost == 0 else "priced", format_dollars(cost))
    if priced == 0:
        return CostWords("unknown", "unknown", f"{_results(unpriced)} on an unpriced model")
    called = priced + unpriced
    note = f"{priced:,} of {called:,} results priced; the rest are unknown"
    return CostWords("partial", format_dollars(cost), note)


def describe_cost(cost: float, priced: int, unpriced: int) -> str:
    """A cost total in one line: ``$0.0123``, ``$0.0123 (38 of 40 results priced; the rest
    are unknown)``, ``unknown (40 results on an unpriced model)`` or ``$0``."""
    return str(cost_words(cost, priced, unpriced))


def cache_words(cached: int, answers: int, saved: float) -> str | None:
    """How many judge answers came from the judge answer cache, and what they had cost:
    ``3 of 8 judge answers from the cache, $0.0012 saved``; None when there was no judge
    answer. The saving is left out when nothing priced came from the cache."""
    if answers <= 0:
        return None
    text = f"{cached:,} of {answers:,} judge answers from the cache"
    return f"{text}, {format_dollars(saved)} saved" if saved > 0 else text
