"""Worked examples of a judge step: answers people graded, shown to the judge with their grade.

A prompt step may carry a few examples a person graded (what was asked, the answer, the
expected answer when there is one, the person's grade and their note). The judge sees them
before the answer it is to grade, in one block of plain text (:func:`worked_examples_block`)::

    Examples a person graded. Grade the answer after them the way the person would:

    Example 1
    Question:
    How do I get a refund?
    Answer:
    Refunds are issued within 5 days.
    The person's grade: pass
    The person's note: Refund questions may be answered briefly.

    The answer to grade now:

A judge that hardens its prompt sees each example's question, answer and expected answer
fenced as data, as it sees the run's own values (the person's grade and note are not judged
text: they are the person's words). "Improve this judge" fills these from people's grades;
the builder edits them; the Python, JSON, YAML and Mastra exports carry them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

MAX_WORKED_EXAMPLES = 20
"""Examples one step may show the judge (each makes every one of its calls longer)."""

INTRO = "Examples a person graded. Grade the answer after them the way the person would:"
OUTRO = "The answer to grade now:"


@dataclass(frozen=True, slots=True)
class WorkedExample:
    """One graded example as the judge is shown it."""

    output: Any
    grade: float
    input: Any = None
    ground_truth: Any = None
    grade_label: str | None = None
    """The scale's word for the grade ("pass"), shown instead of the number when set."""
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The example as plain data, leaving out what it does not have."""
        return {k: v for k, v in asdict(self).items() if v is not None}


def read_worked_examples(
    given: Iterable[WorkedExample | Mapping[str, Any]],
) -> tuple[WorkedExample, ...]:
    """Examples from plain data (as the Python export writes them) or as they are; ValueError
    in words for a shape that is not one."""
    found: list[WorkedExample] = []
    for n, item in enumerate(given, 1):
        if isinstance(item, WorkedExample):
            found.append(item)
            continue
        if not isinstance(item, Mapping) or "output" not in item or "grade" not in item:
            raise ValueError(
                f"worked example {n} needs at least an output and a grade, e.g. "
                '{"output": "…", "grade": 1.0}'
            )
        unknown = set(item) - {"output", "grade", "input", "ground_truth", "grade_label", "note"}
        if unknown:
            raise ValueError(f"worked example {n} has unknown fields: {', '.join(sorted(unknown))}")
        found.append(WorkedExample(**dict(item)))
    if len(found) > MAX_WORKED_EXAMPLES:
        raise ValueError(
            f"a step shows the judge at most {MAX_WORKED_EXAMPLES} worked examples, "
            f"not {len(found)}: keep the clearest ones"
        )
    return tuple(found)


def worked_examples_block(examples: Iterable[WorkedExample], *, fenced: bool | None = None) -> str:
    """The text shown before the answer to grade (empty without examples). ``fenced``: fence
    the judged values as data (default: as the prompt being built does)."""
    from scorer_runtime.judge.fence import fence, fencing_now

    shown = list(examples)
    if not shown:
        return ""
    fencing = fencing_now() if fenced is None else fenced

    def value(v: Any) -> str:
        text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
        return fence(text) if fencing else text

    lines = [INTRO]
    for n, example in enumerate(shown, 1):
        lines += ["", f"Example {n}"]
        if example.input is not None:
            lines += ["Question:", value(example.input)]
        lines += ["Answer:", value(example.output)]
        if example.ground_truth is not None:
            lines += ["Expected answer:", value(example.ground_truth)]
        lines.append(f"The person's grade: {example.grade_label or grade_text(example.grade)}")
        if example.note:
            lines.append(f"The person's note: {example.note}")
    lines += ["", OUTRO, "", ""]
    return "\n".join(lines)


def grade_text(grade: float) -> str:
    """A grade as a number reads, the same in the Python and TypeScript exports ("1", "0.5")."""
    return str(int(grade)) if float(grade).is_integer() else repr(float(grade))
