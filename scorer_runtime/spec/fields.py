"""What a step can read: the example's fields and what every earlier step gives.

The answer to "which values exist at this step?", grouped by where they come from, with the
reference that reads each one. A reference is a dotted path into the context of
:func:`~scorer_runtime.spec.context.build_context`, so the same text works everywhere a step
reads a value: in a formula (``step2.solved == 'yes'``), in a prompt template
(``{{ step2.solved }}``), in a built-in's ``field`` parameter and in ``calculate_score``
(where the step's own judge answer is ``judge_output``). An earlier step's result is named
by the step's number, as the builder shows it (:data:`~scorer_runtime.spec.context.STEP_NAMES`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from scorer_runtime.types import STEP_ORDER, StepName

FieldKind = Literal["string", "number", "integer", "boolean", "array", "object", "any"]
"""The JSON type of a value (``any`` when it is not known before the scorer runs)."""

FieldSource = Literal[
    "example", "preprocess", "analyze", "generate_score", "generate_reason", "judge_output"
]
"""Where a value comes from: the example, an earlier step, or this step's judge answer."""

_JSON_KINDS: dict[str, FieldKind] = {
    "string": "string",
    "number": "number",
    "integer": "integer",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
}
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_STEP_WORDS: dict[StepName, str] = {
    "preprocess": "prepared data",
    "analyze": "analysis",
    "generate_score": "score",
    "generate_reason": "reason",
}


@dataclass(frozen=True, slots=True)
class FieldRef:
    """One value a step can read: its reference (``path``) and how to show it."""

    path: str
    """The dotted reference, e.g. ``step2.solved``."""
    label: str
    """Its name for people, e.g. ``solved`` or ``expected answer``."""
    kind: FieldKind = "any"
    choices: tuple[str, ...] = ()
    """The values it can take (a judge answer field of kind "one of")."""
    description: str = ""

    @property
    def template(self) -> str:
        """The reference as a prompt template writes it: ``{{ step2.solved }}``."""
        return "{{ " + self.path + " }}"


@dataclass(frozen=True, slots=True)
class FieldGroup:
    """The values one source provides, e.g. "Step 2, the judge's answer"."""

    source: FieldSource
    label: str
    fields: tuple[FieldRef, ...]


@dataclass(frozen=True, slots=True)
class StepShape:
    """What :func:`fields_at` needs of a step: its name, how it is done, its answer schema."""

    step: StepName
    asks_judge: bool
    output_schema: Mapping[str, Any] | None = None


def fields_at(
    step: StepName,
    steps: Sequence[StepShape],
    *,
    agent: bool = False,
    ground_truth: bool = True,
    request_context: bool = True,
    request_context_keys: Sequence[str] = (),
    own_answer: bool = False,
) -> list[FieldGroup]:
    """The groups of values ``step`` can read (see :meth:`ScorerSpec.fields_available_at`)."""
    groups = [_example_group(agent, ground_truth, request_context, request_context_keys)]
    rank = STEP_ORDER.index(step)
    for earlier in steps:
        if STEP_ORDER.index(earlier.step) < rank:
            groups.append(_step_group(earlier))
    if own_answer:
        mine = next((s for s in steps if s.step == step), None)
        if mine is not None and mine.asks_judge and mine.output_schema:
            fields = answer_fields("judge_output", mine.output_schema)
            groups.append(FieldGroup("judge_output", "This step, the judge's answer", fields))
    return groups


def _example_group(
    agent: bool, ground_truth: bool, request_context: bool, keys: Sequence[str]
) -> FieldGroup:
    if agent:
        fields = [
            FieldRef("input.input_messages", "the user's messages", "array"),
            FieldRef("input.remembered_messages", "earlier messages", "array"),
            FieldRef("input.system_messages", "system prompts", "array"),
            FieldRef("input.tagged_system_messages", "tagged system prompts", "object"),
            FieldRef("output", "the agent's messages", "array"),
        ]
    else:
        fields = [FieldRef("input", "input"), FieldRef("output", "output")]
    if ground_truth:
        fields.append(FieldRef("ground_truth", "expected answer"))
    if request_context:
        fields.append(FieldRef("request_context", "request context", "object"))
        fields += [FieldRef(f"request_context.{k}", k) for k in keys]
    return FieldGroup("example", "The example", tuple(fields))


def _step_group(step: StepShape) -> FieldGroup:
    number = STEP_ORDER.index(step.step) + 1
    if step.step == "generate_score":
        score = FieldRef("score", "score", "number")
        return FieldGroup("generate_score", f"Step {number}, the score", (score,))
    base = f"step{number}"
    if step.asks_judge and step.output_schema:
        label = f"Step {number}, the judge's answer"
        return FieldGroup(step.step, label, answer_fields(base, step.output_schema))
    label = f"Step {number}, the {_STEP_WORDS[step.step]}"
    return FieldGroup(step.step, label, (FieldRef(base, _STEP_WORDS[step.step]),))


def answer_fields(base: str, schema: Mapping[str, Any]) -> tuple[FieldRef, ...]:
    """The fields of a judge answer with this JSON Schema, as references under ``base``.

    An answer that is not an object (or has no listed properties) is one value, ``base``.
    """
    properties = schema.get("properties")
    if schema.get("type") != "object" or not isinstance(properties, Mapping) or not properties:
        return (FieldRef(base, "the judge's answer", _kind(schema)),)
    return tuple(
        FieldRef(
            f"{base}.{name}",
            str(name),
            _kind(prop),
            tuple(str(c) for c in prop.get("enum", ())) if isinstance(prop, Mapping) else (),
            str(prop.get("description", "")) if isinstance(prop, Mapping) else "",
        )
        for name, prop in properties.items()
    )


def _kind(schema: Any) -> FieldKind:
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    return _JSON_KINDS.get(kind, "any") if isinstance(kind, str) else "any"


def choices_of(groups: Sequence[FieldGroup]) -> dict[str, str]:
    """Every value of the groups as ``{reference: "Group > name"}``, in the groups' order
    (what a picker offers: "Step 2, the judge's answer > solved")."""
    return {f.path: f"{g.label} › {f.label}" for g in groups for f in g.fields}


def fields_read(text: str, groups: Sequence[FieldGroup]) -> list[str]:
    """The references of the groups that a formula reads, in the groups' order (quoted text
    is no reference): what to name in words next to the formula."""
    bare = _QUOTED.sub("''", text)
    found = [
        f.path
        for g in groups
        for f in g.fields
        if re.search(rf"(?<![\w.]){re.escape(f.path)}(?!\w)", bare)
    ]
    return [p for p in found if not any(q.startswith(f"{p}.") for q in found)]


def find_field(groups: Sequence[FieldGroup], path: str) -> FieldRef | None:
    """The value of the groups with this reference, if there is one."""
    return next((f for g in groups for f in g.fields if f.path == path), None)


def first_label_field(groups: Sequence[FieldGroup]) -> FieldRef | None:
    """The first field of kind "one of" (a label with known choices) of the latest judge
    answer that has one."""
    for group in reversed(groups):
        found = next((f for f in group.fields if f.choices), None)
        if found is not None:
            return found
    return None


def first_number_field(groups: Sequence[FieldGroup]) -> FieldRef | None:
    """The first value known to be a number (a judge answer's number field, the score) of
    the latest source that has one."""
    for group in reversed(groups):
        found = next((f for f in group.fields if f.kind in ("number", "integer")), None)
        if found is not None:
            return found
    return None


def spaced_scores(choices: Sequence[str]) -> dict[str, float]:
    """A first score for each label, from 1 (the first) down to 0 (the last): ``yes, partly,
    no`` gives 1, 0.5, 0. A person adjusts them; this only saves typing."""
    if len(choices) == 1:
        return {choices[0]: 1.0}
    top = len(choices) - 1
    return {label: round(1 - i / top, 3) for i, label in enumerate(choices)}
