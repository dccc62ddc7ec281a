"""What a run will cost, and whether the "Stop at $" cap typed beside Start can be kept.

Streamlit-free, so it is tested without a browser.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer_runtime.costs import CostEstimate, unpriced_words
from scorer_runtime.costs.cap import RESERVATION_WORDS, CapError, check_cap, read_cap
from scorer_runtime.costs.estimate import cached_cost_words
from scorer_runtime.money import format_dollars


@dataclass(frozen=True, slots=True)
class CapChoice:
    """The cap typed (None: no cap) and whether it may go unchecked for an unpriced model;
    ``problem`` says in words why the run cannot start under it (empty when it can)."""

    cap: float | None
    allow_unpriced: bool = False
    problem: str = ""
    asks_unpriced: bool = False
    """Whether the person must accept running an unpriced model under a cap."""
    warning: str = ""
    """What a person should know before Start when the run may start but not finish under
    the cap (empty when the cap is above the worst case)."""


def cost_text(estimate: CostEstimate) -> str:
    """The cost line shown before Start: typical to worst case, or that the price is unknown;
    net of the answers the judge answer cache already holds, when it holds some."""
    if estimate.calls == 0:
        return "No judge call: this run costs nothing."
    if estimate.cached_calls:
        return _cached_text(estimate)
    if estimate.typical_cost is None or estimate.worst_cost is None:
        return unpriced_words(estimate.unpriced_models)
    return (
        f"Estimated cost: about **{format_dollars(estimate.typical_cost)}**, at worst "
        f"**{format_dollars(estimate.worst_cost)}** (if every call is retried and re-asked as "
        f"far as the judge allows), from {estimate.sampled} of the examples."
    )


def _cached_text(estimate: CostEstimate) -> str:
    if estimate.cached_calls >= estimate.calls:
        said = f"All {estimate.calls:,} judge calls likely come from the cache"
    else:
        said = (
            f"{estimate.cached_calls:,} of about {estimate.calls:,} judge calls likely come "
            "from the cache"
        )
    if estimate.typical_cost is None or estimate.worst_cost is None:
        return f"{said}. {unpriced_words(estimate.unpriced_models)}"
    return (
        f"Estimated cost: **{cached_cost_words(estimate)}**. {said} (answers already paid "
        f"for), from {estimate.sampled} of the examples."
    )


def choose_cap(
    typed: str | None, estimate: CostEstimate, *, allow_unpriced: bool, spent: float = 0.0
) -> CapChoice:
    """Read the "Stop at $" box against the estimate."""
    try:
        cap = read_cap(typed)
    except CapError as error:
        return CapChoice(None, problem=_sentence(str(error)))
    if cap is None:
        return CapChoice(None)
    asks = not estimate.priced
    try:
        check_cap(cap, estimate, spent=spent, allow_unpriced=allow_unpriced)
    except CapError as error:
        words = str(error)
        if asks:  # the studio's own words for the command line's --allow-unpriced
            words = (
                f"A spend cap needs prices. {unpriced_words(estimate.unpriced_models)} "
                "Or tick 'Run without a price' to run with the cap unchecked."
            )
        return CapChoice(cap, allow_unpriced, _sentence(words), asks_unpriced=asks)
    return CapChoice(
        cap, allow_unpriced, asks_unpriced=asks, warning=cap_warning(cap, estimate, spent)
    )


def cap_warning(cap: float, estimate: CostEstimate, spent: float = 0.0) -> str:
    """Words for a cap the run will (or may) reach before it finishes, said before Start."""
    typical, worst = estimate.typical_cost, estimate.worst_cost
    if typical is None or worst is None or estimate.calls == 0:
        return ""
    total = spent + typical
    already = f" with {format_dollars(spent)} already spent" if spent > 0 else ""
    if total > cap:
        return (
            f"This run is estimated at {format_dollars(total)}{already}; it will stop at "
            f"{format_dollars(cap)}, before it finishes. Raise the cap to score every "
            "example, or start anyway and resume it later with a higher cap."
        )
    if spent + worst > cap:
        return (
            f"This run is estimated at {format_dollars(total)}{already}, under the "
            f"{format_dollars(cap)} cap, but it may stop before it finishes: "
            f"{RESERVATION_WORDS[0].lower()}{RESERVATION_WORDS[1:]}, and at worst the run "
            f"costs {format_dollars(spent + worst)}."
        )
    return ""


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
