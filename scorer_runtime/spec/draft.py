"""``ScorerDraft``: the builder's working copy of a scorer, every field optional.

A person fills a scorer in over many edits, in any order; each state between two edits is a
draft. It is stored as JSON (``draft.to_data()`` in, ``ScorerDraft.model_validate(data)``
out) and becomes a :class:`ScorerSpec` with :meth:`ScorerDraft.to_spec`, which reports
every problem at once, each naming the form field it belongs to (``"name"``,
``"steps.analyze.template"``, ``"judge.model"``).

Judge settings, the run filter and ``calculate_score`` stay plain data here: the draft
keeps them exactly as written (a retry policy spelling out a default value stays so), and
the spec checks them on :meth:`ScorerDraft.to_spec`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from scorer_runtime.spec.models import JudgeSpec, ScorerKind, ScorerSpec, SpecProblem
from scorer_runtime.spec.models.scorer import key_envs_of
from scorer_runtime.types import STEP_ORDER, StepName

if TYPE_CHECKING:
    from scorer_runtime.spec.fields import FieldGroup
    from scorer_runtime.spec.references import MissingReference
    from scorer_runtime.spec.registry import StepRegistry

How = Literal["skip", "builtin", "formula", "judge"]
"""How a step is done, in the builder's terms (``skip``: the draft has no such step)."""

JudgeValue = str | dict[str, Any]
"""A judge in a draft: a saved profile's name, or settings as plain data."""

_KIND_HOW: dict[str, How] = {"function": "builtin", "formula": "formula", "prompt": "judge"}

_DRAFT_CONFIG = ConfigDict(
    extra="allow",  # a draft loses nothing; to_spec names what the spec does not know
    validate_by_name=True,
    validate_by_alias=True,
    serialize_by_alias=True,
)


class StepDraft(BaseModel):
    """One step as the builder holds it; any field may still be missing."""

    model_config = _DRAFT_CONFIG

    step: StepName | None = None
    kind: Literal["function", "formula", "prompt"] | None = None
    use: str | None = None
    with_: dict[str, Any] | None = Field(default=None, alias="with")
    formula: str | None = None
    description: str | None = None
    template: str | None = None
    output_schema: dict[str, Any] | None = None
    judge: JudgeValue | None = None
    calculate_score: dict[str, Any] | None = None
    worked_examples: list[dict[str, Any]] | None = None
    """Cases people graded, shown to the judge (plain data, checked by the spec)."""

    @classmethod
    def builtin(cls, use: str, params: Mapping[str, Any] | None = None) -> StepDraft:
        """A step done by the built-in ``use`` with these parameters (``with``)."""
        return cls.model_validate({"use": use, "with": dict(params or {})})

    @property
    def how(self) -> How:
        """How the step is done: a built-in (``use``), a formula, or the judge."""
        if self.kind is not None:
            return _KIND_HOW[self.kind]
        if self.use is not None:
            return "builtin"
        return "formula" if self.formula is not None else "judge"

    def to_data(self) -> dict[str, Any]:
        """The step as spec-shaped plain data (unset fields left out)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


@dataclass(frozen=True, slots=True)
class DraftProblem:
    """One problem of a draft: the form field it belongs to and what is wrong, in words."""

    field: str
    """The form field's key: ``""`` (the whole scorer), ``"name"``, ``"judge.model"``,
    ``"steps.analyze.template"``, ``"steps.generate_score.with.mapping"``…"""
    message: str
    path: str = ""
    """The spec's JSON path of the same place (``steps[1].with.mapping``)."""

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


class ScorerDraft(BaseModel):
    """A scorer being built: the shape of :class:`ScorerSpec`, every field optional."""

    model_config = _DRAFT_CONFIG

    schema_version: int | None = None
    id: str | None = None
    name: str | None = None
    description: str | None = None
    type: ScorerKind | None = None
    judge: JudgeValue | None = None
    prepare: dict[str, Any] | None = None
    steps: list[StepDraft] = Field(default_factory=list)
    cache_answers: bool | None = None
    """Whether a run may reuse judge answers already given (None: the spec's default, yes)."""

    # -- the steps ----------------------------------------------------------------------------

    def step(self, name: StepName) -> StepDraft | None:
        """A copy of the draft's step of that name, if it has one."""
        for step in self.steps:
            if step.step == name:
                return step.model_copy(deep=True)
        return None

    def step_index(self, name: StepName) -> int | None:
        """Where the step sits in ``steps`` (the index in the spec's JSON paths)."""
        return next((i for i, s in enumerate(self.steps) if s.step == name), None)

    def put_step(self, name: StepName, step: StepDraft | None) -> None:
        """Set (or remove, with None) a step, keeping the steps in pipeline order."""
        kept = {s.step: s for s in self.steps if s.step != name}
        if step is not None:
            kept[name] = step.model_copy(update={"step": name}, deep=True)
        self.steps = [kept[slot] for slot in STEP_ORDER if slot in kept]

    def how(self, name: StepName) -> How:
        """How the step of that name is done (``skip`` when the draft has none)."""
        step = self.step(name)
        return "skip" if step is None else step.how

    def prompt_steps(self) -> list[StepDraft]:
        """The steps that ask the judge, in order."""
        return [step for step in self.steps if step.how == "judge"]

    def judge_refs(self) -> list[JudgeValue]:
        """Every judge the draft names: its own, then each prompt step's own."""
        refs = [self.judge, *(step.judge for step in self.prompt_steps())]
        return [ref for ref in refs if ref]

    def key_envs(self, profiles: Mapping[str, JudgeSpec] | None = None) -> list[str]:
        """The key variables the draft's judges name, sorted (profiles looked up)."""
        refs: list[JudgeSpec | str] = []
        for ref in self.judge_refs():
            if isinstance(ref, str):
                refs.append(ref)
            elif isinstance(env := ref.get("api_key_env"), str) and env:
                refs.append(JudgeSpec.model_construct(api_key_env=env))
        return key_envs_of(refs, profiles)

    def fields_available_at(
        self,
        step: StepName,
        *,
        request_context_keys: Sequence[str] = (),
        own_answer: bool = False,
    ) -> list[FieldGroup]:
        """What ``step`` can read; see :meth:`ScorerSpec.fields_available_at`."""
        from scorer_runtime.spec.fields import StepShape, fields_at

        shapes = [
            StepShape(s.step, s.how == "judge", s.output_schema)
            for s in self.steps
            if s.step is not None
        ]
        prepare = self.prepare or {}
        return fields_at(
            step,
            shapes,
            agent=self.type == "agent",
            ground_truth=not prepare.get("drop_ground_truth"),
            request_context=not prepare.get("drop_request_context"),
            request_context_keys=request_context_keys,
            own_answer=own_answer,
        )

    def missing_references(self, *, registry: StepRegistry | None = None) -> list[MissingReference]:
        """The values the steps read that the scorer does not have where they read them
        (see :func:`scorer_runtime.spec.references.missing_references`)."""
        from scorer_runtime.spec.references import missing_references

        return missing_references(self, registry=registry)

    # -- to and from the spec -----------------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        """The draft as spec-shaped plain data, for JSON (unset fields left out)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    @classmethod
    def from_spec(cls, spec: ScorerSpec | Mapping[str, Any]) -> ScorerDraft:
        """The draft of a spec (or spec data), with exactly the values it was written with."""
        if isinstance(spec, ScorerSpec):
            return cls.model_validate(
                spec.model_dump(mode="json", by_alias=True, exclude_unset=True)
            )
        return cls.model_validate(dict(spec))

    def problems(
        self,
        *,
        registry: StepRegistry | None = None,
        profiles: Mapping[str, JudgeSpec] | None = None,
    ) -> list[DraftProblem]:
        """Every problem of the draft, each naming its form field; ``[]`` when it is a spec."""
        from scorer_runtime.spec.loading import spec_problems

        found = spec_problems(self.to_data(), registry=registry, judge_profiles=profiles)
        return [self.problem(p) for p in found]

    def to_spec(
        self,
        *,
        registry: StepRegistry | None = None,
        profiles: Mapping[str, JudgeSpec] | None = None,
    ) -> ScorerSpec | list[DraftProblem]:
        """The :class:`ScorerSpec` the draft makes, or every problem in the way of one."""
        problems = self.problems(registry=registry, profiles=profiles)
        return problems or ScorerSpec.model_validate(self.to_data())

    def problem(self, problem: SpecProblem) -> DraftProblem:
        """A spec problem placed on the form field it is about."""
        return DraftProblem(self.form_field(problem.path), problem.message, problem.path)

    def form_field(self, path: str) -> str:
        """The form field of a spec JSON path: ``steps[1].with.mapping`` becomes
        ``steps.generate_score.with.mapping`` (the step named, not numbered)."""
        found = _STEP_PATH.match(path)
        if found is None:
            return path
        index = int(found.group(1))
        name = self.steps[index].step if index < len(self.steps) else None
        return f"steps.{name or index}{path[found.end() :]}"


_STEP_PATH = re.compile(r"^steps\[(\d+)\]")
