"""``ScorerSpec``: a whole scorer as plain data, the object the studio edits and saves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from scorer_runtime.spec.models.base import SpecModel
from scorer_runtime.spec.models.judge import JudgeRef, JudgeSpec
from scorer_runtime.spec.models.steps import PromptStepSpec, StepSpec
from scorer_runtime.types import StepName

if TYPE_CHECKING:
    from scorer_runtime.spec.fields import FieldGroup

ScorerKind = Literal["plain", "agent"]


class FilterRunSpec(SpecModel):
    """Trim the run before any step sees it (the options of ``filter_run``)."""

    drop_request_context: bool = Field(default=False, description="Hide the request context.")
    drop_ground_truth: bool = Field(default=False, description="Hide the ground truth.")
    part_types: list[str] | None = Field(
        default=None,
        min_length=1,
        description="Keep only message parts of these types: text, reasoning, tool-invocation…",
    )
    tool_names: list[str] | None = Field(
        default=None, description="Keep only calls to these tools ([] drops every tool call)."
    )
    max_remembered_messages: int = Field(
        default=0, ge=0, description="Keep the last N remembered messages (0: all)."
    )
    max_output_messages: int = Field(
        default=0, ge=0, description="Keep the last N output messages (0: all)."
    )


class ScorerSpec(SpecModel):
    """A scorer as data: what it is, its judge, and its steps in order.

    Load one with :func:`~scorer_runtime.spec.load_spec` (which reports every problem at
    once), run it with :func:`~scorer_runtime.spec.compile_spec`, hand it over with
    :func:`~scorer_runtime.spec.export_python`. Written files leave defaults out.
    """

    schema_version: Literal[1] = Field(default=1, description="The version of this file format.")
    id: str = Field(
        min_length=1,
        max_length=100,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
        description="Short unique name: letters, digits, -, _ and . (e.g. answer-relevancy).",
        examples=["answer-relevancy"],
    )
    name: str | None = Field(
        default=None, min_length=1, description="Display name; defaults to id."
    )
    description: str = Field(min_length=1, description="What the scorer judges, in plain words.")
    type: ScorerKind = Field(
        default="plain", description="'agent' for agent runs (messages and tool calls)."
    )
    judge: JudgeRef | None = Field(
        default=None, description="The judge for prompt steps: settings or a saved profile's name."
    )
    prepare: FilterRunSpec | None = Field(
        default=None, description="Trim the run before the steps see it."
    )
    steps: list[StepSpec] = Field(
        description="The steps in order: preprocess, analyze, generate_score, generate_reason."
    )
    cache_answers: bool = Field(
        default=True,
        description="Reuse a judge answer already given to exactly the same request (the "
        "judge answer cache); false asks the judge every time.",
    )

    @property
    def display_name(self) -> str:
        """The name to show: ``name``, or the id when no name is set."""
        return self.name or self.id

    def prompt_steps(self) -> list[PromptStepSpec]:
        """The steps that ask the judge, in order (each one judge request per example)."""
        return [step for step in self.steps if isinstance(step, PromptStepSpec)]

    def judge_refs(self) -> list[JudgeSpec | str]:
        """Every judge the scorer names: its own, then each prompt step's own (settings, or
        a saved profile's name)."""
        refs = [self.judge, *(step.judge for step in self.prompt_steps())]
        return [ref for ref in refs if ref is not None]

    def key_envs(self, profiles: Mapping[str, JudgeSpec] | None = None) -> list[str]:
        """The environment variables holding the keys of the scorer's judges, sorted.

        A judge given by profile name names its key through the profile, looked up in
        ``profiles`` (without them, such a judge names none here).
        """
        return key_envs_of(self.judge_refs(), profiles)

    def fields_available_at(
        self,
        step: StepName,
        *,
        request_context_keys: Sequence[str] = (),
        own_answer: bool = False,
    ) -> list[FieldGroup]:
        """What ``step`` can read, grouped by source: the example's fields, then what each
        earlier step gives (a judge step: each field of its answer, with type and choices).

        Each :class:`~scorer_runtime.spec.fields.FieldRef` path works as written in a
        formula, a prompt template, a built-in's ``field`` parameter and ``calculate_score``.
        ``own_answer`` adds this step's own judge answer (``judge_output.…``), which only
        its ``calculate_score`` reads.
        """
        from scorer_runtime.spec.fields import StepShape, fields_at

        shapes = [
            StepShape(s.step, isinstance(s, PromptStepSpec), _schema_of(s)) for s in self.steps
        ]
        prepare = self.prepare or FilterRunSpec()
        return fields_at(
            step,
            shapes,
            agent=self.type == "agent",
            ground_truth=not prepare.drop_ground_truth,
            request_context=not prepare.drop_request_context,
            request_context_keys=request_context_keys,
            own_answer=own_answer,
        )


def _schema_of(step: object) -> Mapping[str, object] | None:
    return step.output_schema if isinstance(step, PromptStepSpec) else None


def key_envs_of(
    refs: Sequence[JudgeSpec | str], profiles: Mapping[str, JudgeSpec] | None = None
) -> list[str]:
    """The key variables these judges name (a profile name looked up in ``profiles``)."""
    names: set[str] = set()
    for ref in refs:
        judge = (profiles or {}).get(ref) if isinstance(ref, str) else ref
        if judge is not None and judge.api_key_env:
            names.add(judge.api_key_env)
    return sorted(names)
