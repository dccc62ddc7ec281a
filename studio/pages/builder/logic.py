"""The scorer builder's logic, free of Streamlit: the draft, its steps, previews and "try it".

A draft is a scorer spec as plain data (a dict in the shape of ``ScorerSpec``), possibly
incomplete while the person is still filling it in. The builder page edits it; this module
says what the draft means and what is wrong with it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from scorer_runtime.batch import outcome_of_error
from scorer_runtime.errors import ScorerRunError
from scorer_runtime.names import id_from_name
from scorer_runtime.run import ScorerRun
from scorer_runtime.spec import (
    JudgeSpec,
    SpecProblem,
    StepRegistry,
    compile_spec,
    spec_problems,
    template,
)
from studio.messages import Explanation, explain

StepName = Literal["preprocess", "analyze", "generate_score", "generate_reason"]
How = Literal["skip", "builtin", "formula", "judge"]

STEP_SLOTS: tuple[StepName, ...] = ("preprocess", "analyze", "generate_score", "generate_reason")
STEP_TITLES: dict[StepName, str] = {
    "preprocess": "1. Prepare the data (optional)",
    "analyze": "2. Analyse (optional)",
    "generate_score": "3. Give the score (required)",
    "generate_reason": "4. Explain the score (optional)",
}
STEP_HELP: dict[StepName, str] = {
    "preprocess": "Pull out or clean what later steps need, e.g. the statements in the answer.",
    "analyze": "Look at the answer closely, e.g. ask the judge whether each statement is true.",
    "generate_score": "Turn what you found into one number, usually between 0 and 1.",
    "generate_reason": "Say in a sentence why the answer got its score.",
}
HOW_LABELS: dict[How, str] = {
    "skip": "Skip this step",
    "builtin": "Use a built-in check",
    "formula": "Write a formula",
    "judge": "Ask the judge",
}
DEFAULT_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["yes", "partial", "no"]},
        "explanation": {"type": "string"},
    },
    "required": ["verdict", "explanation"],
}


def new_draft() -> dict[str, Any]:
    """A fresh draft: a name to fill in, a judge to set, and a simple scoring formula."""
    return {
        "id": "",
        "name": "",
        "description": "",
        "type": "plain",
        "judge": {
            "model": "openai/gpt-4o-mini",
            "api_key_env": "OPENAI_API_KEY",
            "instructions": "You are a strict, fair evaluator. Judge only what is written.",
        },
        "steps": [{"step": "generate_score", "formula": "1 if len(output) > 0 else 0"}],
    }


def step_at(draft: Mapping[str, Any], name: StepName) -> dict[str, Any] | None:
    """The draft's step of that name, if it has one."""
    for step in draft.get("steps", []):
        if step.get("step") == name:
            return dict(step)
    return None


def step_index(draft: Mapping[str, Any], name: StepName) -> int | None:
    """Where the step sits in ``steps`` (for the JSON paths of problems)."""
    for index, step in enumerate(draft.get("steps", [])):
        if step.get("step") == name:
            return index
    return None


def put_step(draft: dict[str, Any], name: StepName, step: Mapping[str, Any] | None) -> None:
    """Set (or remove, with None) a step, keeping the steps in pipeline order."""
    steps = {s.get("step"): s for s in draft.get("steps", []) if s.get("step") != name}
    if step is not None:
        steps[name] = {**step, "step": name}
    draft["steps"] = [steps[slot] for slot in STEP_SLOTS if slot in steps]


def how_of(step: Mapping[str, Any] | None) -> How:
    """How a step is done, in the builder's terms."""
    if step is None:
        return "skip"
    if "use" in step:
        return "builtin"
    if "formula" in step:
        return "formula"
    return "judge"


def starter_step(name: StepName, how: How, registry: StepRegistry) -> dict[str, Any] | None:
    """A sensible first version of a step done a new way (the person then adjusts it)."""
    if how == "skip":
        return None
    if how == "builtin":
        entry = registry.entries(suits=name)[0]
        return {"use": entry.name, "with": {}}
    if how == "formula":
        return {
            "preprocess": {"formula": "output"},
            "analyze": {"formula": "len(output)"},
            "generate_score": {"formula": "1 if len(output) > 0 else 0"},
            "generate_reason": {"formula": "'The score is ' + str(round(score, 2))"},
        }[name]
    step: dict[str, Any] = {
        "description": "Ask the judge about the answer",
        "template": "Question: {{ input }}\n\nAnswer: {{ output }}\n\nIs the answer good?",
    }
    if name in ("preprocess", "analyze", "generate_score"):
        step["output_schema"] = copy.deepcopy(DEFAULT_OUTPUT_SCHEMA)
    if name == "generate_score":
        step["calculate_score"] = {
            "use": "label_to_score",
            "with": {"mapping": {"yes": 1, "partial": 0.5, "no": 0}},
        }
    if name == "generate_reason":
        step["template"] = (
            "The answer below got the score {{ score }}. Explain why in one sentence.\n\n"
            "Answer: {{ output }}"
        )
    return step


def problems_by_path(problems: Sequence[SpecProblem]) -> dict[str, list[str]]:
    """Problems grouped by JSON path, so each shows next to its field."""
    grouped: dict[str, list[str]] = {}
    for problem in problems:
        grouped.setdefault(problem.path, []).append(problem.message)
    return grouped


def problems_under(grouped: Mapping[str, list[str]], prefix: str) -> list[str]:
    """Messages for a field and everything below it (``steps[1]`` covers ``steps[1].with``)."""
    found = []
    for path, messages in grouped.items():
        if path == prefix or path.startswith((prefix + ".", prefix + "[")):
            rest = path[len(prefix) :].lstrip(".")
            found += [f"{rest}: {m}" if rest else m for m in messages]
    return found


def check_draft(
    draft: Mapping[str, Any],
    *,
    registry: StepRegistry,
    profiles: Mapping[str, JudgeSpec],
) -> list[SpecProblem]:
    """Every problem of the draft, as the spec loader reports them."""
    return spec_problems(dict(draft), registry=registry, judge_profiles=profiles)


def clean_draft(draft: Mapping[str, Any]) -> dict[str, Any]:
    """The draft as it is saved: empty optional text left out, the id derived from the name."""
    data = copy.deepcopy(dict(draft))
    if not data.get("id") and data.get("name"):
        data["id"] = id_from_name(str(data["name"]), fallback_prefix="scorer")
    for key in ("name",):
        if not data.get(key):
            data.pop(key, None)
    return data


@dataclass(frozen=True)
class Example:
    """The example a preview or a try runs on."""

    input: Any = None
    output: Any = None
    ground_truth: Any = None
    request_context: Any = None

    def run_kwargs(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "output": self.output,
            "ground_truth": self.ground_truth,
            "request_context": self.request_context,
        }


def preview_prompt(source: str, example: Example, *, agent: bool = False) -> str:
    """The prompt a judge step would send for this example (before earlier steps' results)."""
    run_input, run_output = example.input, example.output
    if agent:
        from scorer_runtime.agent import to_agent_input, to_agent_output

        run_input, run_output = to_agent_input(run_input), to_agent_output(run_output)
    run = ScorerRun(
        input=run_input,
        output=run_output,
        run_id="preview",
        ground_truth=example.ground_truth,
        request_context=example.request_context,
    )
    return str(template(source)(run=run))


@dataclass(frozen=True)
class TryOutcome:
    """What trying the draft on one example gave: the result (possibly partial) or why not.

    ``result`` is ``ScoreResult.to_dict()`` plus ``outcome`` (and, after a failure, ``error``,
    ``failed_step`` and ``error_kind``): the shape the score drill-down shows.
    """

    result: dict[str, Any] | None
    error: Explanation | None = None


def try_draft(
    draft: Mapping[str, Any],
    example: Example,
    *,
    registry: StepRegistry,
    profiles: Mapping[str, JudgeSpec],
) -> TryOutcome:
    """Compile the draft and run it once on the example; never raises."""
    try:
        scorer = compile_spec(clean_draft(draft), registry, judge_profiles=profiles)
        result = scorer.run_sync(**example.run_kwargs())
    except ScorerRunError as error:
        failed = {
            **error.result.to_dict(),
            "outcome": outcome_of_error(error),
            "error": str(error.__cause__ or error),
            "failed_step": error.failed_step,
            "error_kind": error.error_kind,
        }
        return TryOutcome(failed, explain(error))
    except Exception as error:
        return TryOutcome(None, explain(error))
    data = result.to_dict()
    data["outcome"] = "not_scorable" if result.not_scorable else "scored"
    return TryOutcome(data)
