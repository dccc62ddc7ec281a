"""The studio's words for numbers and names: durations, money, plurals and labels.

One wording everywhere: every page says a duration, an amount, a count or an outcome the same
way, so a number read on one page means the same on the next. Streamlit-free, so every
wording is unit-tested without a browser. Money is worded once, in :mod:`scorer_runtime.money`
(the CLI uses it too): this module re-exports it and adds only the shapes a metric needs.
"""

from __future__ import annotations

from collections.abc import Mapping

from scorer_runtime.counts import noun, plural
from scorer_runtime.money import CostWords, cost_words, describe_cost, format_dollars
from scorer_runtime.types import STEP_ORDER, Outcome, RunStatus

# -- durations -------------------------------------------------------------------------------


def format_duration(seconds: float | None) -> str:
    """A duration for people, given in seconds: ``850 ms``, ``4.2 s``, ``1 s``, ``42 s``,
    ``3 min 5 s``, ``1 h 2 min`` (``—`` when unknown).

    Under a second it says milliseconds, so a 0.3 s judge call never reads as "0 s"; under
    ten seconds one decimal (none when it is ``.0``); above that whole units.
    """
    if seconds is None:
        return "—"
    millis = round(seconds * 1000)
    if millis < 1000:
        return f"{max(millis, 0)} ms"
    if seconds < 9.95:
        return f"{seconds:.1f}".removesuffix(".0") + " s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


# -- money -----------------------------------------------------------------------------------

UNPRICED_WHY = (
    "Results without a price asked the judge but have no known cost, so they are not in the "
    "amount: most often the price list the studio reads (litellm's) has no price for the "
    "judge's model — a local model, a fine-tune, or one newer than the list — or the "
    "provider failed before answering."
)
"""Why some results have no cost, in plain words (after the counts)."""


def format_cost(cost: float | None) -> str:
    """One judge cost in dollars (``—`` when unknown); a total that may leave unpriced results
    out is said with :func:`cost_words` instead."""
    return "—" if cost is None else format_dollars(cost)


def cost_value(words: CostWords) -> str:
    """The amount for a metric: ``$0.0123``, ``Unknown`` or ``$0``."""
    return words.amount[:1].upper() + words.amount[1:]


def cost_cell(words: CostWords) -> str:
    """The amount and what it covers, for a table cell: ``$0.0123``, ``Unknown (20 results on
    an unpriced model)``, ``$0.0123 (38 of 40 results priced; the rest are unknown)``."""
    value = cost_value(words)
    return f"{value} ({words.note})" if words.note else value


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


# -- plurals ---------------------------------------------------------------------------------


# noun() and plural() live in scorer_runtime.counts: the command line says counts alike.


# -- labels ----------------------------------------------------------------------------------

OUTCOME_LABELS: Mapping[str, str] = {
    "scored": "Scored",
    "not_scorable": "Not scorable",
    "step_error": "Step failed",
    "provider_error": "Judge unavailable",
    "judge_format_error": "Judge answer unreadable",
}
"""Every :data:`~scorer_runtime.types.Outcome` as a person reads it."""

RUN_STATUS_LABELS: Mapping[str, str] = {
    "queued": "Waiting to start",
    "running": "Running",
    "stopped": "Stopped: budget reached",
    "cancelled": "Cancelled",
    "failed": "Stopped by an error",
    "done": "Finished",
}
"""Every stored :data:`~scorer_runtime.types.RunStatus` as a person reads it."""

STEP_TITLES: Mapping[str, str] = {
    "preprocess": "Prepare",
    "analyze": "Analyse",
    "generate_score": "Score",
    "generate_reason": "Explain",
}
"""The four steps' short titles, by :data:`~scorer_runtime.types.StepName` (the technical
names are shown next to them, smaller)."""

STEP_WORDS: Mapping[str, str] = {
    "preprocess": "the preparation step",
    "analyze": "the analysis step",
    "generate_score": "the scoring step",
    "generate_reason": "the explanation step",
}
"""The four steps (by name) inside a sentence ("The scorer stopped in the analysis step")."""


def step_number(step: str) -> int:
    """A step's number, the same on every page (builder, evidence, problems): its place among
    the four steps, so a scorer with no preparation step still analyses in step 2; 0 for a
    name that is not one of the four."""
    return STEP_ORDER.index(step) + 1 if step in STEP_ORDER else 0


def outcome_label(outcome: Outcome | str) -> str:
    """An outcome in words ("Judge unavailable"); an unknown one as it is stored."""
    return OUTCOME_LABELS.get(outcome, outcome)


def run_status_label(status: RunStatus | str | None) -> str:
    """A stored run status in words ("Stopped by an error"); none as empty text."""
    return RUN_STATUS_LABELS.get(status or "", status or "")


def step_words(step: str) -> str:
    """A step name inside a sentence ("the scoring step"); an unknown name as it is."""
    return STEP_WORDS.get(step, step)


def outcome_mix_words(counts: Mapping[str, int]) -> str:
    """Outcome counts in words, scored first: "8 scored, 1 not scorable, 1 failed"."""
    order = ("scored", "not_scorable")
    failed = sum(n for o, n in counts.items() if o not in order)
    parts = [f"{counts[o]} {outcome_label(o).lower()}" for o in order if counts.get(o)]
    if failed:
        parts.append(f"{failed} failed")
    return ", ".join(parts) or "no results yet"


# -- where a judge's key is kept -------------------------------------------------------------

KEY_PLACE = "Where the key is kept"
"""The one label of a judge's ``api_key_env`` (the words "key variable" are a programmer's)."""
KEY_PLACE_HELP = (
    "The name of the setting (environment variable) on this computer that holds the judge's "
    "API key, for example OPENAI_API_KEY — never the key itself. The studio reads the key "
    "only when it calls the judge, and never stores or shows it. Leave empty for a model on "
    "your own computer that needs no key."
)

HARDEN_LABEL = "Mark the judged text as data (recommended)"
"""The one label of a judge's ``harden_prompt``."""
HARDEN_HELP = (
    "Puts the text being judged between markers with a new secret code on every request, and "
    "tells the judge that nothing inside them is an instruction, so an answer cannot talk "
    "the judge into a better grade."
)


__all__ = [
    "HARDEN_HELP",
    "HARDEN_LABEL",
    "KEY_PLACE",
    "KEY_PLACE_HELP",
    "OUTCOME_LABELS",
    "RUN_STATUS_LABELS",
    "STEP_TITLES",
    "STEP_WORDS",
    "UNPRICED_WHY",
    "CostWords",
    "cost_caption",
    "cost_cell",
    "cost_help",
    "cost_value",
    "cost_words",
    "describe_cost",
    "format_cost",
    "format_dollars",
    "format_duration",
    "noun",
    "outcome_label",
    "outcome_mix_words",
    "plural",
    "run_status_label",
    "step_number",
    "step_words",
]
