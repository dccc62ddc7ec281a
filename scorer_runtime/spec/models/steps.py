"""The steps of a spec: a built-in function, a formula, or a prompt for the judge.

The kind of a step is read from which key it has (``use``, ``formula`` or ``template``), so a
hand-written spec never needs a ``kind``; one may be given, and then wins.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, field_validator

from scorer_runtime.spec.models.base import SpecModel
from scorer_runtime.spec.models.judge import JudgeRef
from scorer_runtime.spec.models.worked import MAX_WORKED_EXAMPLES, WorkedExampleSpec
from scorer_runtime.types import StepName

StepKind = Literal["function", "formula", "prompt"]


class FieldScoreSpec(SpecModel):
    """The score is one field of the judge's answer, read as a number."""

    field: str = Field(
        min_length=1,
        pattern=r"^[^.]+(\.[^.]+)*$",
        description="The field of the judge's answer holding the score (dotted for nesting).",
        examples=["score"],
    )


class FormulaScoreSpec(SpecModel):
    """The score is a formula over the judge's answer (``judge_output``) and the run."""

    formula: str = Field(
        min_length=1,
        description="A safe expression, e.g. judge_output.correct / max(judge_output.total, 1).",
    )


class FunctionScoreSpec(SpecModel):
    """The score comes from a registered step suited to scoring a judge's answer."""

    use: str = Field(min_length=1, description="The registered step's name.")
    with_: dict[str, Any] = Field(
        default_factory=dict, alias="with", description="The step's parameters."
    )


def _score_tag(value: Any) -> str | None:
    if isinstance(value, FieldScoreSpec | FormulaScoreSpec | FunctionScoreSpec):
        return _SCORE_TAGS[type(value)]
    if isinstance(value, dict):
        for key, tag in (("use", "score-use"), ("formula", "score-formula")):
            if key in value:
                return tag
        return "score-field" if "field" in value else None
    return None


_SCORE_TAGS: dict[type, str] = {
    FieldScoreSpec: "score-field",
    FormulaScoreSpec: "score-formula",
    FunctionScoreSpec: "score-use",
}

CalculateScoreSpec = Annotated[
    Annotated[FieldScoreSpec, Tag("score-field")]
    | Annotated[FormulaScoreSpec, Tag("score-formula")]
    | Annotated[FunctionScoreSpec, Tag("score-use")],
    Discriminator(
        _score_tag,
        custom_error_type="calculate_score",
        custom_error_message=(
            'calculate_score is {"field": "score"} (a field of the judge\'s answer), '
            '{"formula": "..."} or {"use": "<registered step>", "with": {...}}'
        ),
    ),
]
"""How a prompt generate_score step turns the judge's answer into the score."""


class FunctionStepSpec(SpecModel):
    """A step done by a registered built-in (or plugin) operation, with parameters."""

    kind: Literal["function"] = "function"
    step: StepName = Field(description="Which step of the pipeline this is.")
    use: str = Field(
        min_length=1, description="The registered step's name.", examples=["keyword_coverage"]
    )
    with_: dict[str, Any] = Field(
        default_factory=dict, alias="with", description="The step's parameters."
    )


class FormulaStepSpec(SpecModel):
    """A step computed by a safe formula over the run and earlier results."""

    kind: Literal["formula"] = "formula"
    step: StepName = Field(description="Which step of the pipeline this is.")
    formula: str = Field(
        min_length=1,
        description="A safe expression, e.g. step2.score * 2.",
    )


class PromptStepSpec(SpecModel):
    """A step answered by the judge: a prompt template, and the shape of the answer."""

    kind: Literal["prompt"] = "prompt"
    step: StepName = Field(description="Which step of the pipeline this is.")
    description: str = Field(min_length=1, description="What this step asks the judge.")
    template: str = Field(
        min_length=1, description="The prompt, a sandboxed Jinja template: {{ output }} etc."
    )
    output_schema: dict[str, Any] | None = Field(
        default=None,
        description="JSON Schema of the judge's answer (required for preprocess and analyze).",
    )
    judge: JudgeRef | None = Field(
        default=None, description="Overrides the scorer's judge for this step, field by field."
    )
    calculate_score: CalculateScoreSpec | None = Field(
        default=None, description="For generate_score: how the judge's answer becomes the score."
    )
    worked_examples: list[WorkedExampleSpec] | None = Field(
        default=None,
        description=(
            "Examples people graded, shown to the judge with their grade and note "
            f"(at most {MAX_WORKED_EXAMPLES})."
        ),
    )

    @field_validator("worked_examples")
    @classmethod
    def _few_examples(cls, examples: list[WorkedExampleSpec] | None) -> Any:
        if examples is not None and len(examples) > MAX_WORKED_EXAMPLES:
            raise ValueError(
                f"a judge step may show at most {MAX_WORKED_EXAMPLES} worked examples, and "
                f"this one has {len(examples)}; remove {len(examples) - MAX_WORKED_EXAMPLES}"
            )
        return examples


_STEP_TAGS: dict[StepKind, str] = {
    "function": "function-step",
    "formula": "formula-step",
    "prompt": "prompt-step",
}


def _step_tag(value: Any) -> str | None:
    if isinstance(value, FunctionStepSpec | FormulaStepSpec | PromptStepSpec):
        return _STEP_TAGS[value.kind]
    if not isinstance(value, dict):
        return None
    kind = value.get("kind")
    if kind in _STEP_TAGS:
        return _STEP_TAGS[kind]
    if kind is not None:
        return None
    for key, tag in (("use", "function-step"), ("formula", "formula-step")):
        if key in value:
            return tag
    if "template" in value or "description" in value:
        return "prompt-step"
    return None


StepSpec = Annotated[
    Annotated[FunctionStepSpec, Tag("function-step")]
    | Annotated[FormulaStepSpec, Tag("formula-step")]
    | Annotated[PromptStepSpec, Tag("prompt-step")],
    Discriminator(
        _step_tag,
        custom_error_type="step_kind",
        custom_error_message=(
            'a step is an object with "step" and one of: "use" (a built-in operation), '
            '"formula" (a safe expression) or "template" (ask the judge); "kind", when '
            "given, is function, formula or prompt"
        ),
    ),
]
"""One step of a spec; which kind is read from its keys."""

AnyStepSpec = FunctionStepSpec | FormulaStepSpec | PromptStepSpec
