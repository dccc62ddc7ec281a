"""The candidates "Improve this judge" tries, built from the tuning part of the grades only.

- **Worked examples** (:func:`with_worked_examples`): some tuning examples where the judge and
  the person disagreed, and some where they agreed, with the person's grade and note, put on
  the step where the judge decides the verdict (:func:`deciding_step`).
- **Guidelines** (:func:`with_guidelines`): a short list a judge model wrote after reading the
  tuning disagreements and the people's notes (:func:`guidelines_request`), added to the
  instructions of that step's judge.
- **Both.**

Every function here takes only what it is given: nothing of the holdout reaches them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from scorer_runtime.spec.models import JudgeSpec, PromptStepSpec, ScorerSpec, WorkedExampleSpec
from scorer_runtime.trust.align_split import Graded, disagrees
from scorer_runtime.trust.scale import Scale

CandidateKind = Literal["worked_examples", "guidelines", "both"]
KIND_WORDS: dict[CandidateKind, str] = {
    "worked_examples": "Worked examples",
    "guidelines": "Guidelines",
    "both": "Worked examples and guidelines",
}
MAX_DISAGREEMENTS_SHOWN = 6
"""Worked examples where the judge was wrong, at most (each makes every call longer)."""
MAX_AGREEMENTS_SHOWN = 2
"""Worked examples where the judge was right, so the judge keeps what it did well."""
MAX_GUIDELINES = 6
GUIDELINES_HEADING = "Guidelines from people's grades (follow them):"
WRITER_INSTRUCTIONS = (
    "You help improve an AI judge that grades answers. You are shown examples where the "
    "judge's grade differed from a person's, with the person's note. Write at most "
    f"{MAX_GUIDELINES} short, general guidelines that would make the judge grade as the "
    "person did, without naming any one example. Answer with JSON only: "
    '{"guidelines": ["...", "..."]}.'
)
WRITER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "guidelines": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 500},
            "maxItems": MAX_GUIDELINES,
        }
    },
    "required": ["guidelines"],
}


@dataclass(frozen=True, slots=True)
class ExampleText:
    """What an example holds that a candidate may show: its question, answer, expected answer."""

    input: Any
    output: Any
    ground_truth: Any = None


def deciding_step(spec: ScorerSpec) -> int:
    """The index of the prompt step whose answer decides the score: the score step when it
    asks the judge, else the last prompt step before it. ValueError for a scorer with none."""
    found = None
    for index, step in enumerate(spec.steps):
        if step.step == "generate_reason":
            break
        if isinstance(step, PromptStepSpec):
            found = index
    if found is None:
        raise ValueError("this scorer asks no judge before its score: there is no judge to improve")
    return found


def chosen_examples(tuning: Sequence[Graded], scale: Scale) -> list[Graded]:
    """The tuning examples to show: disagreements first, then a few agreements (in order)."""
    wrong = [g for g in tuning if disagrees(g, scale)][:MAX_DISAGREEMENTS_SHOWN]
    right = [g for g in tuning if not disagrees(g, scale)][:MAX_AGREEMENTS_SHOWN]
    return wrong + right


def worked_example(graded: Graded, text: ExampleText, scale: Scale) -> WorkedExampleSpec:
    """One graded example as a step shows it: the person's grade (in the scale's words when it
    has some) and note."""
    label = scale.verdict(graded.human) if scale.kind != "number" else None
    return WorkedExampleSpec(
        input=text.input,
        output=text.output,
        ground_truth=text.ground_truth,
        grade=graded.human,
        grade_label=label,
        note=graded.note or None,
    )


def with_worked_examples(spec: ScorerSpec, examples: Sequence[WorkedExampleSpec]) -> ScorerSpec:
    """``spec`` with ``examples`` on its deciding step (replacing any it had)."""
    index = deciding_step(spec)
    step = spec.steps[index]
    assert isinstance(step, PromptStepSpec)
    steps = list(spec.steps)
    steps[index] = step.model_copy(update={"worked_examples": list(examples) or None})
    return spec.model_copy(update={"steps": steps})


def with_guidelines(
    spec: ScorerSpec, guidelines: Sequence[str], profiles: Mapping[str, JudgeSpec]
) -> ScorerSpec:
    """``spec`` whose deciding step's judge has ``guidelines`` after its instructions (the
    step's own judge settings, else the scorer's judge or its saved profile, are read)."""
    index = deciding_step(spec)
    step = spec.steps[index]
    assert isinstance(step, PromptStepSpec)
    base = _instructions(spec, step, profiles)
    lines = "\n".join(f"- {line.strip()}" for line in guidelines if line.strip())
    added = f"{base}\n\n{GUIDELINES_HEADING}\n{lines}" if lines else base
    own = step.judge
    if isinstance(own, str):  # a saved profile: its settings, with the new instructions
        own = profiles[own]
    judge = (own or JudgeSpec()).model_copy(update={"instructions": added})
    steps = list(spec.steps)
    steps[index] = step.model_copy(update={"judge": judge})
    return spec.model_copy(update={"steps": steps})


def _instructions(spec: ScorerSpec, step: PromptStepSpec, profiles: Mapping[str, JudgeSpec]) -> str:
    for ref in (step.judge, spec.judge):
        judge = profiles.get(ref) if isinstance(ref, str) else ref
        if judge is not None and judge.instructions:
            return judge.instructions
    return "You are a careful, consistent grader."


def guidelines_request(
    tuning: Sequence[Graded], texts: Mapping[int, ExampleText], scale: Scale
) -> str:
    """What the guidelines writer reads: each tuning disagreement (question, answer, the
    judge's grade, the person's grade and note). Only the tuning examples it is given."""
    parts = []
    for n, graded in enumerate((g for g in tuning if disagrees(g, scale)), 1):
        text = texts[graded.example_id]
        lines = [f"Example {n}"]
        if text.input is not None:
            lines.append(f"Question: {_plain(text.input)}")
        lines.append(f"Answer: {_plain(text.output)}")
        if text.ground_truth is not None:
            lines.append(f"Expected answer: {_plain(text.ground_truth)}")
        lines.append(f"The judge's grade: {scale.verdict(graded.judge)}")
        lines.append(f"The person's grade: {scale.verdict(graded.human)}")
        if graded.note:
            lines.append(f"The person's note: {graded.note}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def read_guidelines(answer: Any) -> list[str]:
    """The guidelines of the writer's answer (at most :data:`MAX_GUIDELINES`, no blanks)."""
    found = answer.get("guidelines") if isinstance(answer, Mapping) else None
    if not isinstance(found, list):
        return []
    lines = [str(line).strip() for line in found if str(line).strip()]
    return lines[:MAX_GUIDELINES]


def _plain(value: Any) -> str:
    import json

    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
