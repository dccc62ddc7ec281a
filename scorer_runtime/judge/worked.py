"""Worked examples: cases people graded, shown to the judge before the case it judges.

A prompt step with worked examples (``PromptStep(worked_examples=[...])``) starts its prompt
with one block, then the step's own prompt::

    Examples graded by people — follow how they were graded:

    Example 1
    Input:
    Where is my order?
    Output:
    It left the warehouse today.
    A person graded this: pass (1). Their note: Short, but answers the question.

    End of the examples. Judge the following the same way.

    <the step's prompt>

Input and expected answer are left out when an example has none. For a judge with
``harden_prompt`` on, each example's input, output and expected answer are judged text like
the step's own values: fenced as data exactly as a template prints them
(:func:`~scorer_runtime.judge.fence.fence_printed`); the rest of the block has any marker
shape neutralised. :func:`example_parts` is the one rendering; the Mastra export writes the
same parts, so both send the same text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scorer_runtime.judge.fence import fence_printed, fencing_now, neutralise

HEADING = "Examples graded by people \u2014 follow how they were graded:"
"""The first line of the block."""

ENDING = "End of the examples. Judge the following the same way."
"""The line between the examples and the step's own prompt."""


@dataclass(frozen=True, kw_only=True, slots=True)
class WorkedExample:
    """One case a person graded: what the judge saw, the person's grade and their note.

    ``grade`` is the number on the scorer's scale; ``grade_label`` the scale's word for it
    (``"pass"``) when the scale has words.
    """

    output: Any
    grade: float
    input: Any = None
    ground_truth: Any = None
    grade_label: str | None = None
    note: str | None = None

    def __post_init__(self) -> None:
        grade = self.grade
        number = isinstance(grade, int | float) and not isinstance(grade, bool)
        if not number or not math.isfinite(grade):
            raise ValueError(f"a worked example's grade must be a number, not {grade!r}")
        for name in ("grade_label", "note"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"a worked example's {name} must be text, not {value!r}")


def printed(value: Any) -> str:
    """A value as the block shows it: text as it is, lists and objects as JSON, nothing as
    empty, exactly as a template prints a value (the sandbox's ``to_text``)."""
    from scorer_runtime.spec.sandbox.functions import to_text  # spec builds on judge

    return to_text(value)


def grade_text(example: WorkedExample) -> str:
    """The grade as the judge reads it: ``pass (1)`` with a word, ``0.75`` without."""
    grade = float(example.grade)
    number = str(int(grade)) if grade.is_integer() and abs(grade) < 1e15 else repr(grade)
    return f"{example.grade_label} ({number})" if example.grade_label else number


def example_parts(examples: Sequence[WorkedExample]) -> list[tuple[str, bool]]:
    """The block as parts ``(text, is_judged_value)``, in order; joined, they are the block
    (with each judged value fenced for a hardened judge). Empty for no examples."""
    if not examples:
        return []
    parts: list[tuple[str, bool]] = [(f"{HEADING}\n", False)]
    for number, example in enumerate(examples, 1):
        parts.append((f"\nExample {number}\n", False))
        shown = (
            ("Input", example.input, example.input is not None),
            ("Output", example.output, True),
            ("Expected answer", example.ground_truth, example.ground_truth is not None),
        )
        for title, value, present in shown:
            if present:
                parts += [(f"{title}:\n", False), (printed(value), True), ("\n", False)]
        note = f" Their note: {example.note}" if example.note else ""
        parts.append((f"A person graded this: {grade_text(example)}.{note}\n", False))
    parts.append((f"\n{ENDING}\n\n", False))
    return parts


def block_text(examples: Sequence[WorkedExample], *, fenced: bool) -> str:
    """The examples block; ``fenced`` for a judge with ``harden_prompt`` on."""
    if not fenced:
        return "".join(text for text, _ in example_parts(examples))
    return "".join(
        fence_printed(text) if judged else neutralise(text)
        for text, judged in example_parts(examples)
    )


def with_examples(prompt: str, examples: Sequence[WorkedExample]) -> str:
    """The prompt as sent: the examples block first (fenced while a hardened judge's prompt
    is built), then ``prompt``; ``prompt`` itself when there are no examples."""
    if not examples:
        return prompt
    return block_text(examples, fenced=fencing_now()) + prompt
