"""The spend cap of a run: reading it, and whether a run may start under it."""

from __future__ import annotations

import math
from typing import Any, Final, Literal

from scorer_runtime.costs.estimate import CostEstimate, unpriced_words
from scorer_runtime.judge.config import Judge
from scorer_runtime.money import format_dollars
from scorer_runtime.scorer import Scorer


class CapError(ValueError):
    """A spend cap that cannot be used, in words saying what to do; nothing was started."""


NO_CAP_WORDS = ("none", "no cap")
"""What a person may type for "no cap" (``--max-cost none`` runs uncapped, whatever the
judge's default cap)."""


def read_cap(text: str | float | None) -> float | None:
    """A cap in dollars from what a person typed (``""``, ``none``/None: no cap)."""
    if text is None or (isinstance(text, str) and text.strip().lower() in ("", *NO_CAP_WORDS)):
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


def default_cap(scorer: Scorer[Any, Any]) -> float | None:
    """The cap of a run of ``scorer`` given no cap of its own: the smallest default cap
    (``default_max_cost``) of the judges its prompt steps call (the scorer's judge with each
    step's own settings over it), None when none of them has one."""
    caps = []
    for step in scorer.steps:
        if step.prompt is None:
            continue
        judge = (scorer.judge or Judge()).override(step.prompt.judge)
        if judge.default_max_cost is not None:
            caps.append(judge.default_max_cost)
    return min(caps, default=None)


JudgeCap = Literal["judge"]
JUDGE_CAP: Final[JudgeCap] = "judge"
"""A run's cap when nobody chose one: its judge's default cap (:func:`default_cap`)."""


def chosen_cap(cap: float | JudgeCap | None, scorer: Scorer[Any, Any]) -> float | None:
    """The cap in dollars of a run of ``scorer``: ``cap`` itself (None: no cap), or for
    :data:`JUDGE_CAP` the judge's default cap."""
    return default_cap(scorer) if isinstance(cap, str) else cap


BUDGET_REACHED = "stopped: budget reached"
"""How the error text of a run stopped by its cap begins (its status is ``stopped``; a run
stored before that status existed is ``cancelled`` with this text)."""


RESERVATION_WORDS = (
    "Before each judge call the run sets aside what that example could cost at worst (every "
    "retry and re-ask included) and gives back what was not spent"
)
"""Why a run under a cap stops before it has spent the whole cap, in words."""


def lost_words(answers: int, cost: float) -> str:
    """What a resumed run counts for answers lost when an earlier runner of it stopped, in
    words ("" when none was lost)."""
    if answers <= 0:
        return ""
    noun = "answer" if answers == 1 else "answers"
    return (
        f"{format_dollars(cost)} counted for {answers} judge {noun} lost when the run stopped "
        "(they may have been paid for, so they count at their worst case)"
    )


def budget_words(spent: float, cap: float, *, lost: str = "") -> str:
    """What a run stopped by its cap says (its error text, shown with the run); a run that
    stopped well below its cap says why (the worst case of the next example did not fit).
    ``lost`` (see :func:`lost_words`) says what of ``spent`` is answers lost in a crash."""
    below = ""
    if cap > 0 and spent < cap * 0.95:
        below = (
            f" It stopped at {spent / cap:.0%} of the cap on purpose: "
            f"{RESERVATION_WORDS[0].lower()}{RESERVATION_WORDS[1:]}, so it stops as soon as "
            "the next example's worst case no longer fits in what is left."
        )
    counted = f", of which {lost}" if lost else ""
    return (
        f"{BUDGET_REACHED}: {format_dollars(spent)} spent of the "
        f"{format_dollars(cap)} cap{counted}.{below} Resume it with a higher cap to score the rest."
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
