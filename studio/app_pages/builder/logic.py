"""The scorer builder's logic, free of Streamlit: the draft, its steps, previews and "try it".

The builder edits a :class:`~scorer_runtime.spec.ScorerDraft`, the typed working copy of a
scorer (every field optional while the person is still filling it in); the draft says what
its steps are and, through ``to_spec``, what is wrong with it, field by field. This module
adds what only the builder needs: a fresh draft, the first version of a step done a new
way, the draft as it is saved, previews and trying the draft on one example.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from scorer_runtime.batch import outcome_of_error
from scorer_runtime.errors import ScorerRunError
from scorer_runtime.ids import id_from_name
from scorer_runtime.judge.fence import fencing
from scorer_runtime.judge.worked import printed, with_examples
from scorer_runtime.run import ScorerRun
from scorer_runtime.spec import (
    DraftProblem,
    JudgeSpec,
    ScorerDraft,
    StepDraft,
    StepRegistry,
    compile_spec,
    template,
)
from scorer_runtime.spec.draft import How
from scorer_runtime.spec.models import WorkedExampleSpec
from scorer_runtime.types import StepName
from studio.error_words import Explanation, explain
from studio.words import step_number

_STEP_NAMES: dict[StepName, str] = {
    "preprocess": "Prepare the data (optional)",
    "analyze": "Analyse (optional)",
    "generate_score": "Give the score (required)",
    "generate_reason": "Explain the score (optional)",
}
STEP_HEADINGS: dict[StepName, str] = {
    step: f"{step_number(step)}. {name}" for step, name in _STEP_NAMES.items()
}
"""Each step's heading in the builder, numbered as every page numbers it (:func:`step_number`)."""
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
_STARTER_FORMULAS: dict[StepName, str] = {
    "preprocess": "output",
    "analyze": "len(output)",
    "generate_score": "1 if len(output) > 0 else 0",
    "generate_reason": "'The score is ' + str(round(score, 2))",
}


def new_draft(judge: str | None = None) -> ScorerDraft:
    """A fresh draft: a name to fill in, a judge (the saved profile ``judge`` when given, else
    settings to fill in), and a simple scoring formula."""
    return ScorerDraft(
        id="",
        name="",
        description="",
        type="plain",
        judge=judge
        or {
            "model": "openai/gpt-4o-mini",
            "api_key_env": "OPENAI_API_KEY",
            "instructions": "You are a strict, fair evaluator. Judge only what is written.",
            "harden_prompt": True,
        },
        steps=[StepDraft(step="generate_score", formula=_STARTER_FORMULAS["generate_score"])],
    )


def working_profile(
    profiles: Mapping[str, Mapping[str, Any]], key_is_set: Callable[[str], bool]
) -> str | None:
    """The first saved judge (by name) that can be called now: its key is set, or it needs
    none. A new scorer starts on it rather than on a model whose key is missing."""
    for name in sorted(profiles):
        env = profiles[name].get("api_key_env")
        if profiles[name].get("model") and (not env or key_is_set(str(env))):
            return name
    return None


def missing_keys(
    draft: ScorerDraft, profiles: Mapping[str, JudgeSpec], key_is_set: Callable[[str], bool]
) -> list[str]:
    """The key variables the draft's judges name that are not set (sorted)."""
    return [env for env in draft.key_envs(profiles) if not key_is_set(env)]


def starter_step(name: StepName, how: How, registry: StepRegistry) -> StepDraft | None:
    """A sensible first version of a step done a new way (the person then adjusts it)."""
    if how == "skip":
        return None
    if how == "builtin":
        entry = registry.entries(suits=name)[0]
        return StepDraft.builtin(entry.name)
    if how == "formula":
        return StepDraft(formula=_STARTER_FORMULAS[name])
    step = StepDraft(
        description="Ask the judge about the answer",
        template="Question: {{ input }}\n\nAnswer: {{ output }}\n\nIs the answer good?",
    )
    if name in ("preprocess", "analyze", "generate_score"):
        step.output_schema = copy.deepcopy(DEFAULT_OUTPUT_SCHEMA)
    if name == "generate_score":
        step.calculate_score = {
            "use": "label_to_score",
            "with": {"mapping": {"yes": 1, "partial": 0.5, "no": 0}},
        }
    if name == "generate_reason":
        step.template = (
            "The answer below got the score {{ score }}. Explain why in one sentence.\n\n"
            "Answer: {{ output }}"
        )
    return step


def check_draft(
    draft: ScorerDraft,
    *,
    registry: StepRegistry,
    profiles: Mapping[str, JudgeSpec],
) -> list[DraftProblem]:
    """Every problem of the draft, each on the form field it belongs to."""
    return draft.problems(registry=registry, profiles=profiles)


def clean_draft(draft: ScorerDraft) -> ScorerDraft:
    """The draft as it is saved: empty optional text left out, the id derived from the name."""
    clean = draft.model_copy(deep=True)
    if not clean.id and clean.name:
        clean.id = id_from_name(clean.name, fallback_prefix="scorer")
    if not clean.name:
        clean.name = None
    return clean


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


def hardened_steps(
    draft: ScorerDraft, profiles: Mapping[str, Mapping[str, Any]]
) -> frozenset[StepName]:
    """The judge steps whose judge marks the judged text as data: the step's own setting, else
    the scorer's judge's (its own settings, or the saved judge it names)."""

    def setting(judge: Any) -> bool | None:
        found = profiles.get(judge, {}) if isinstance(judge, str) else judge or {}
        value = found.get("harden_prompt") if isinstance(found, Mapping) else None
        return value if isinstance(value, bool) else None

    scorer = setting(draft.judge)
    hardened = set()
    for step in draft.prompt_steps():
        own = setting(step.judge)
        if step.step is not None and (scorer if own is None else own):
            hardened.add(step.step)
    return frozenset(hardened)


def preview_prompt(
    source: str,
    example: Example,
    *,
    agent: bool = False,
    harden: bool = False,
    worked: Sequence[Mapping[str, Any]] = (),
) -> str:
    """The prompt a judge step would send for this example (before earlier steps' results);
    ``harden``: with the judged text between markers, as the step's judge sends it (with the
    stand-in code of :mod:`scorer_runtime.judge.fence`, each call's own code replacing it);
    ``worked``: the step's worked examples, shown first as the judge reads them."""
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
    shown = [WorkedExampleSpec.model_validate(dict(w)).example() for w in worked]
    with fencing(harden):
        return with_examples(str(template(source)(run=run)), shown)


def worked_example_ids(examples: Sequence[Mapping[str, Any]]) -> list[str]:
    """A widget id for each worked example that stays with it when another one is removed or
    its grade or note is edited: a digest of what was graded (and which repeat it is)."""
    seen: dict[str, int] = {}
    ids = []
    for example in examples:
        graded = [example.get(name) for name in ("input", "output", "ground_truth")]
        text = json.dumps(graded, sort_keys=True, ensure_ascii=False, default=str)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
        seen[digest] = seen.get(digest, 0) + 1
        ids.append(f"{digest}-{seen[digest]}")
    return ids


def worked_example_from_form(
    question: str, answer: str, expected: str, grade: float, word: str, note: str
) -> dict[str, Any] | str:
    """A worked example typed by hand, as spec data; or what to fix, in words. Blank optional
    fields are left out."""
    if not answer.strip():
        return "Write the answer the person graded (the question and the rest may stay empty)."
    data: dict[str, Any] = {"input": question.strip() or None, "output": answer}
    data |= {"ground_truth": expected.strip() or None, "grade": grade}
    data |= {"grade_label": word.strip() or None, "note": note.strip() or None}
    data = {name: value for name, value in data.items() if value is not None}
    try:
        WorkedExampleSpec.model_validate(data)
    except ValidationError as error:
        return "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in error.errors())
    return data


def shown_value(value: Any, limit: int = 300) -> str:
    """A worked example's value as a line of the builder shows it (long text cut short)."""
    text = printed(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def example_dataset(
    kind: str, agent_runs: Mapping[int, bool | None], preferred: int | None
) -> int | None:
    """The dataset the example panel opens on for a scorer of ``kind`` ("plain" or "agent"):
    the one open on the Examples page when its examples are of that kind, else the first one
    that is; None when none is, so the panel opens on an example to type instead (a text
    scorer never opens on an agent's messages). ``agent_runs`` says, by dataset id, whether
    its examples are agent runs (None: it has no examples)."""
    suits = [
        d for d, agent in agent_runs.items() if agent is not None and agent == (kind == "agent")
    ]
    if preferred in suits:
        return preferred
    return suits[0] if suits else None


@dataclass(frozen=True)
class TryOutcome:
    """What trying the draft on one example gave: the result (possibly partial) or why not.

    ``result`` is ``ScoreResult.to_dict()`` plus ``outcome`` (and, after a failure, ``error``,
    ``failed_step`` and ``error_kind``): the shape the score drill-down shows.
    """

    result: dict[str, Any] | None
    error: Explanation | None = None


def try_draft(
    draft: ScorerDraft,
    example: Example,
    *,
    registry: StepRegistry,
    profiles: Mapping[str, JudgeSpec],
) -> TryOutcome:
    """Compile the draft and run it once on the example; never raises."""
    try:
        spec = clean_draft(draft).to_data()
        spec["id"] = spec.get("id") or "try-it"  # trying needs no name yet
        scorer = compile_spec(spec, registry, judge_profiles=profiles)
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


def sample_prompt(draft: ScorerDraft, example: Example | None, slot: StepName | None) -> str | None:
    """The prompt the judge would get for ``example`` in step ``slot`` (None: the first step
    that asks the judge), for the processors' previews; None when there is none to show."""
    steps = [s for s in draft.prompt_steps() if slot is None or s.step == slot]
    if example is None or not steps or not steps[0].template:
        return None
    try:
        return preview_prompt(steps[0].template, example, agent=draft.type == "agent")
    except Exception:  # a template still being typed: the previews use a sample text
        return None


def processors_by_step(
    draft: ScorerDraft, profiles: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Each judge step's processor settings as they run: the step's own lists replace the
    scorer's ("before": hide and shorten together; "after": the stop list)."""
    judge = draft.judge
    scorer = dict(profiles.get(judge, {}) if isinstance(judge, str) else judge or {})
    out: dict[str, dict[str, Any]] = {}
    for step in draft.prompt_steps():
        own = step.judge
        own = dict(profiles.get(own, {}) if isinstance(own, str) else own or {})
        before = "redact_pii" in own or "truncate" in own
        settings = {
            "redact_pii": (own if before else scorer).get("redact_pii"),
            "truncate": (own if before else scorer).get("truncate"),
            "output_guard": own.get("output_guard", scorer.get("output_guard")),
        }
        out[str(step.step)] = settings
    return out
