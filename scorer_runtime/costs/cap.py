"""The spend cap of a run: reading it, and whether a run may start under it."""

from __future__ import annotations

import math

from scorer_runtime.costs.estimate import CostEstimate, unpriced_words
from scorer_runtime.money import format_dollars


class CapError(ValueError):
    """A spend cap that cannot be used, in words saying what to do; nothing was started."""


def read_cap(text: str | float | None) -> float | None:
    """A cap in dollars from what a person typed (``""``/None: no cap)."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return None
    try:
        value = float(str(text).strip().removeprefix("$").replace(",", ""))
    except ValueError:
        raise CapError(
            f"the spend cap {str(text).strip()!r} is not an amount: give dollars, e.g. 5 or 0.50"
        ) from None
    if not math.isfinite(value) or value <= 0:
        raise CapError(
            f"the spend cap must be an amount above $0, not {str(text).strip()}: "
            "leave it empty for no cap"
        )
    return value


BUDGET_REACHED = "stopped: budget reached"
"""How the error text of a run stopped by its cap begins (the run's status is cancelled)."""


def budget_words(spent: float, cap: float) -> str:
    """What a run stopped by its cap says (its error text, shown with the run)."""
    return (
        f"{BUDGET_REACHED}: {format_dollars(spent)} spent of the "
        f"{format_dollars(cap)} cap. Resume it with a higher cap to score the rest."
    )


def check_cap(
    cap: float, estimate: CostEstimate, *, spent: float = 0.0, allow_unpriced: bool = False
) -> None:
    """Raise :class:`CapError` when a run under ``cap`` must not start: a model without a
    price (unless ``allow_unpriced``), or a cap that one more judge request could pass."""
    if not estimate.priced:
        if allow_unpriced:
            return
        raise CapError(
            f"a spend cap needs prices. {unpriced_words(estimate.unpriced_models)} "
            "Or accept that the cap cannot be checked (--allow-unpriced; in the studio, "
            "the box 'Run without a price')."
        )
    worst = estimate.example_worst_cost or 0.0
    if worst > 0 and spent + worst > cap:
        already = f" ({format_dollars(spent)} already spent)" if spent > 0 else ""
        raise CapError(
            f"the cap of {format_dollars(cap)}{already} is below what one example can cost "
            f"at worst ({format_dollars(worst)}, every retry and re-ask included): "
            "raise the cap"
        )
