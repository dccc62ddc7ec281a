"""A judge step's worked examples: cases people graded, with the grade and note they gave.

They are shown to the judge before the step's prompt (see
:mod:`scorer_runtime.judge.worked` for the text it reads). The list and each text are capped,
so a spec cannot grow every judge request without bound.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from scorer_runtime.judge.worked import WorkedExample, printed
from scorer_runtime.spec.models.base import SpecModel

MAX_WORKED_EXAMPLES = 20
"""Most worked examples one judge step may show."""

MAX_EXAMPLE_VALUE_CHARS = 8_000
"""Longest input, output or expected answer of one example, as the judge reads it."""

MAX_NOTE_CHARS = 2_000
"""Longest note of one example."""

MAX_GRADE_LABEL_CHARS = 100
"""Longest word (label) of one example's grade."""

_VALUE_NAMES = {"input": "input", "output": "output", "ground_truth": "expected answer"}


class WorkedExampleSpec(SpecModel):
    """One case a person graded, shown to the judge with their grade and note."""

    input: Any = Field(default=None, description="What the judged system was asked.")
    output: Any = Field(description="The answer the person graded.")
    ground_truth: Any = Field(default=None, description="The expected answer, if there was one.")
    grade: float = Field(
        allow_inf_nan=False,
        description="The person's grade, as a number on the scorer's scale.",
    )
    grade_label: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_GRADE_LABEL_CHARS,
        description="The scale's word for the grade, when it has words (e.g. pass).",
    )
    note: str | None = Field(
        default=None,
        max_length=MAX_NOTE_CHARS,
        description="Why the person gave this grade, in their words.",
    )

    def example(self) -> WorkedExample:
        """The runtime's form of this example (what a compiled step shows the judge)."""
        return WorkedExample(**self.model_dump())

    @model_validator(mode="after")
    def _values_fit(self) -> WorkedExampleSpec:
        for name, words in _VALUE_NAMES.items():
            size = len(printed(getattr(self, name)))
            if size > MAX_EXAMPLE_VALUE_CHARS:
                raise ValueError(
                    f"this example's {words} is {size:,} characters long; a worked example "
                    f"may show at most {MAX_EXAMPLE_VALUE_CHARS:,}. Shorten it, or pick a "
                    "shorter example"
                )
        return self
