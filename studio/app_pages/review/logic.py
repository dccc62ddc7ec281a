"""The Review page's Streamlit-free logic: the grading order, moving through it, and the words
for progress, grades and the judge's verdict."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from scorer_runtime.agent.readable import readable_run
from scorer_runtime.store import JudgeVerdict
from scorer_runtime.trust import Scale

SHORTCUT_GRADES = 9
"""Grades beyond the ninth have a button but no number key."""
NUMBER_STEPS = 5
"""A number scale's buttons: its low end, each quarter of the way, its high end (keys 1 to 5)."""


@dataclass(frozen=True, slots=True)
class GradeButton:
    """One grade a person can give: the button's words, the score stored, its key (or None)."""

    label: str
    value: float
    shortcut: str | None


@dataclass(frozen=True, slots=True)
class LastGrade:
    """The grade just given, to show beside the judge's verdict once the person has graded."""

    example_id: int
    position: int
    grade: str
    verdict: str | None


def grading_order(example_ids: Sequence[int], graded: Collection[int]) -> list[int]:
    """Ungraded examples first, then the graded ones, each in dataset order."""
    done = set(graded)
    return [i for i in example_ids if i not in done] + [i for i in example_ids if i in done]


def move(order: Sequence[int], current: int | None, step: int) -> int | None:
    """The example ``step`` places from ``current`` (stops at either end)."""
    if not order:
        return None
    at = order.index(current) if current in order else 0
    return order[min(max(at + step, 0), len(order) - 1)]


def next_ungraded(order: Sequence[int], current: int | None, graded: Collection[int]) -> int | None:
    """The first ungraded example after ``current`` (from the start again when none is after
    it); None when every example is graded."""
    at = order.index(current) + 1 if current in order else 0
    done = set(graded)
    for example_id in [*order[at:], *order[:at]]:
        if example_id not in done and example_id != current:
            return example_id
    return None


def progress_words(graded: int, total: int) -> str:
    """``12 of 40 graded``."""
    return f"{graded} of {total} graded"


def grade_buttons(scale: Scale) -> list[GradeButton]:
    """The grade buttons, keys 1 to 9.

    A pass/fail or labels scale: one per grade, best first. A number scale: five steps from its
    low end to its high end (0, 0.25, 0.5, 0.75, 1), lowest on key 1, as the number row of the
    keyboard reads and as a rating from 1 to 5 does; each says whether it passes, by the
    scorer's own pass mark, and any other number is typed in the box below them.
    The button shows its key itself, so the words are the grade alone.
    """
    if scale.kind == "number":
        span = scale.high - scale.low
        values = [round(scale.low + span * i / (NUMBER_STEPS - 1), 9) for i in range(NUMBER_STEPS)]
        return [
            GradeButton(grade_words(scale, value), value, str(i))
            for i, value in enumerate(values, start=1)
        ]
    return [
        GradeButton(name, value, str(i) if i <= SHORTCUT_GRADES else None)
        for i, (name, value) in enumerate(scale.choices(), start=1)
    ]


def grade_words(scale: Scale, value: float) -> str:
    """A grade as people read it: its label, or the number with pass/fail."""
    if scale.kind == "number":
        return f"{value:g} ({scale.verdict(value)})"
    return scale.verdict(value)


def verdict_words(scale: Scale, verdict: JudgeVerdict | None) -> str:
    """What the judge said about the example, in words."""
    if verdict is None:
        return "The judge has not scored this example yet (run the scorer on these examples)."
    if verdict.outcome != "scored" or verdict.score is None:
        why = f": {verdict.reason}" if verdict.reason else ""
        return f"The judge could not score this example{why}."
    said = grade_words(scale, verdict.score)
    return f"The judge said **{said}** (score {verdict.score:g})."


def agreement_words(scale: Scale, person: float, verdict: JudgeVerdict | None) -> str:
    """Whether the person and the judge agree on the example's verdict, in words ('' when the
    judge has no score)."""
    if verdict is None or verdict.score is None or verdict.outcome != "scored":
        return ""
    same = scale.verdict(person) == scale.verdict(verdict.score)
    return "You agree." if same else "You disagree."


def shown_text(value: Any) -> str:
    """An input, output or expected answer as text to read: an agent run's messages and tool
    calls one turn at a time, a list of words one per line, other structures as laid-out
    JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if (turns := readable_run(value)) is not None:
        return turns
    if isinstance(value, list) and value and all(isinstance(v, str | int | float) for v in value):
        return "\n".join(f"• {v}" for v in value)
    return json.dumps(value, ensure_ascii=False, indent=2)
