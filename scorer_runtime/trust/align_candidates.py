"""The candidates of an alignment, built from its tuning part only.

- *Guidelines*: the judge model (or another saved judge the person picks) reads the tuning
  disagreements with the people's notes and writes a short list of guidelines
  (:func:`write_guidelines`), appended to every judge step's instructions
  (:func:`with_guidelines`).
- *Worked examples*: some tuning disagreements and agreements, each with the person's grade
  and note, put on the judge step (:func:`with_worked_examples`).
- *Both*.

Nothing here is given a holdout example: the callers pass the tuning part alone.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from scorer_runtime.judge.config import Judge, resolve_judge
from scorer_runtime.scorer import Scorer
from scorer_runtime.spec.models import PromptStepSpec, ScorerSpec
from scorer_runtime.store.datasets import ExampleInfo
from scorer_runtime.trust.align_split import GradedExample

CandidateKind = Literal["worked_examples", "guidelines", "both"]
KINDS: tuple[CandidateKind, ...] = ("worked_examples", "guidelines", "both")
WHAT_CHANGED: dict[str, str] = {
    "worked_examples": "worked examples from people's grades added to the judge step",
    "guidelines": "guidelines written from people's notes added to the judge's instructions",
    "both": "the guidelines and the worked examples together",
}
MAX_GUIDELINES = 8
WORKED_DISAGREEMENTS = 4
WORKED_AGREEMENTS = 2
GUIDELINES_HEADING = "Guidelines from people's grades:"

_OPTIMIZER = (
    "You help improve an LLM judge. People graded some answers differently from the judge. "
    "Read each disagreement and the person's note, then write at most "
    f"{MAX_GUIDELINES} short, general guidelines that would make the judge grade as the "
    "people do. One guideline per line, each starting with '- '. Write rules, never copy an "
    "answer; write nothing else."
)


@dataclass(frozen=True, slots=True)
class TuningExample:
    """A tuning example as a candidate may show it: the example and its grade."""

    example: ExampleInfo
    graded: GradedExample
    judge_label: str
    """The current version's verdict in words."""


@dataclass(frozen=True, slots=True)
class Guidelines:
    """Guidelines the optimizer wrote, and what asking cost (None: no price known)."""

    lines: tuple[str, ...]
    cost: float | None
    model: str

    def text(self) -> str:
        """The block appended to the instructions."""
        return GUIDELINES_HEADING + "\n" + "\n".join(f"- {line}" for line in self.lines)


def optimizer_messages(instructions: str, disagreements: Sequence[TuningExample]) -> list[Any]:
    """The request the optimizer reads: the judge's instructions and the disagreements."""
    cases = "\n\n".join(
        f"{number}. Input: {_text(t.example.input)}\nAnswer: {_text(t.example.output)}\n"
        f"The judge said: {t.judge_label}\nThe person said: {t.graded.grade_label}\n"
        f"The person's note: {t.graded.note or '(none)'}"
        for number, t in enumerate(disagreements, start=1)
    )
    user = f"The judge's instructions:\n{instructions}\n\nDisagreements:\n\n{cases}"
    return [{"role": "system", "content": _OPTIMIZER}, {"role": "user", "content": user}]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


async def write_guidelines(
    judge: Judge, instructions: str, disagreements: Sequence[TuningExample]
) -> Guidelines:
    """Ask ``judge`` for guidelines from the tuning ``disagreements`` (one provider call,
    through the one judge client). ValueError, in words, when it writes none."""
    from scorer_runtime.judge.client import complete

    resolved = resolve_judge(judge)
    done = await complete(
        model=resolved.model,
        messages=optimizer_messages(instructions, disagreements),
        api_base=resolved.api_base,
        api_key=resolved.api_key,
        temperature=resolved.temperature,
        timeout_s=resolved.timeout_s,
        response_format=None,
        prices=resolved.prices,
    )
    lines = parse_guidelines(done.text)
    if not lines:
        raise ValueError(
            "the judge wrote no guidelines (its answer had no line starting with '- '): "
            "try again, or pick another judge to write them"
        )
    return Guidelines(lines, done.cost, resolved.model)


def parse_guidelines(text: str) -> tuple[str, ...]:
    """The guideline lines of an answer: lines starting with '-', '*', '•' or a number."""
    found = []
    for line in text.splitlines():
        matched = re.match(r"\s*(?:[-*•]|\d+[.)])\s+(.+\S)\s*$", line)
        if matched:
            found.append(matched.group(1))
    return tuple(found[:MAX_GUIDELINES])


def step_judges(scorer: Scorer[Any, Any]) -> dict[str, Judge]:
    """The judge each step of the compiled scorer that asks one calls, by step name."""
    return {
        step.name: (scorer.judge or Judge()).override(step.prompt.judge)
        for step in scorer.steps
        if step.prompt is not None
    }


def judge_step_indexes(spec: ScorerSpec) -> list[int]:
    """The places of the steps that ask the judge in ``spec.steps``."""
    return [i for i, step in enumerate(spec.steps) if isinstance(step, PromptStepSpec)]


def spec_data(spec: ScorerSpec) -> dict[str, Any]:
    """The spec as the plain data a version stores (the values it was written with)."""
    return spec.model_dump(mode="json", by_alias=True, exclude_unset=True)


def with_guidelines(
    spec: ScorerSpec, guidelines: str, instructions: Mapping[str, str]
) -> dict[str, Any]:
    """``spec``'s data with ``guidelines`` appended to each judge step's instructions
    (``instructions`` is what each judge step reads now, by step name), set on the step's
    own judge. ValueError, in words, for a step that names a saved judge of its own (it
    cannot be changed from here)."""
    data = spec_data(spec)
    for index in judge_step_indexes(spec):
        step = data["steps"][index]
        own = step.get("judge")
        if isinstance(own, str):
            raise ValueError(
                f"the {step['step']} step names the saved judge {own!r}: guidelines can only "
                "be added to a judge the scorer sets itself"
            )
        now = instructions.get(step["step"], "")
        step["judge"] = {**(own or {}), "instructions": f"{now}\n\n{guidelines}".strip()}
    return data


def pick_worked(tuning: Sequence[TuningExample]) -> list[TuningExample]:
    """Some tuning disagreements and agreements, in id order (the same grades, the same
    pick)."""
    ordered = sorted((t for t in tuning if _fits(t)), key=lambda t: t.example.id)
    wrong = [t for t in ordered if not t.graded.agrees][:WORKED_DISAGREEMENTS]
    right = [t for t in ordered if t.graded.agrees][:WORKED_AGREEMENTS]
    return sorted([*wrong, *right], key=lambda t: t.example.id)


def _worked_data(t: TuningExample) -> dict[str, Any]:
    return {
        "input": t.example.input,
        "output": t.example.output,
        "ground_truth": t.example.ground_truth,
        "grade": t.graded.grade,
        "grade_label": t.graded.grade_label,
        "note": t.graded.note or None,
    }


def _fits(t: TuningExample) -> bool:
    """Whether the example fits a worked example's caps (a very long answer or note is
    left for another one)."""
    from pydantic import ValidationError

    from scorer_runtime.spec.models import WorkedExampleSpec

    try:
        WorkedExampleSpec.model_validate(_worked_data(t))
    except ValidationError:
        return False
    return True


def with_worked_examples(
    spec: ScorerSpec, worked: Sequence[TuningExample], data: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``spec``'s data (or ``data``, the same spec changed already) with ``worked`` on its
    last judge step that is not the reason's."""
    data = copy.deepcopy(dict(data)) if data is not None else spec_data(spec)
    places = judge_step_indexes(spec)
    scoring = [i for i in places if data["steps"][i]["step"] != "generate_reason"] or places
    data["steps"][scoring[-1]]["worked_examples"] = [_worked_data(t) for t in worked]
    return data
