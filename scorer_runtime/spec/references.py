"""Which earlier values a draft's steps read, and which of them the scorer does not have.

A step reads earlier values through references (``results.analyze_step_result.solved`` in a
formula or a prompt, ``judge_output.verdict`` in a built-in's field or in ``calculate_score``).
A reference to a value no earlier step gives fails only when the scorer runs, and then in the
runtime's words ("judge_output is empty"). :func:`missing_references` finds them before
anything runs, with what the scorer does have, so a person can be told in words and the judge
is not called for nothing.

Only references into the judge's answers and earlier steps are checked: the example's fields
(``input``, ``output``, …) may hold anything, and so may the result of a built-in or a formula.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scorer_runtime.spec.builtins.base import READS_FIELD
from scorer_runtime.types import STEP_ORDER, StepName

if TYPE_CHECKING:
    from scorer_runtime.spec.draft import ScorerDraft, StepDraft
    from scorer_runtime.spec.fields import FieldGroup
    from scorer_runtime.spec.registry import StepRegistry

_REF = re.compile(r"(?<![\w.'\"])(results|judge_output|score)((?:\.[A-Za-z_]\w*)*)")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_JINJA = re.compile(r"\{\{(.*?)\}\}|\{%(.*?)%\}", re.S)
_JUDGE_ANSWER = "the judge's answer"


@dataclass(frozen=True, slots=True)
class MissingReference:
    """A value one step reads that the scorer does not have at that point."""

    step: StepName
    """The step that reads it."""
    field: str
    """The form field it is written in: ``with.field``, ``template``,
    ``calculate_score.with.field``…"""
    path: str
    """The reference as written."""
    wanted: str
    """What it reads, in words: "the judge's answer: verdict"."""
    available: tuple[str, ...]
    """What the scorer has instead, in words ("solved", "polite"…); may be empty."""

    def sentence(self) -> str:
        """The problem as the end of a sentence: "reads 'the judge's answer: verdict', which
        this scorer does not have at this step. It has: solved, polite."
        """
        text = f"reads ‘{self.wanted}’, which this scorer does not have at this step."
        if self.available:
            text += f" It has: {', '.join(self.available)}."
        return text


def references(step: StepDraft, registry: StepRegistry | None) -> Iterator[tuple[str, str]]:
    """Every ``(form field, reference)`` the step reads from earlier steps or the judge."""
    if step.use and registry is not None and step.use in registry:
        yield from _param_refs("with", step.use, step.with_ or {}, registry)
    if step.formula:
        yield from (("formula", ref) for ref in _refs(step.formula))
    if step.template:
        blocks = (a or b for a, b in _JINJA.findall(step.template))
        yield from (("template", ref) for block in blocks for ref in _refs(block))
    calc = step.calculate_score or {}
    if isinstance(calc.get("field"), str):
        yield ("calculate_score.field", f"judge_output.{calc['field']}")
    if isinstance(calc.get("formula"), str):
        yield from (("calculate_score.formula", ref) for ref in _refs(calc["formula"]))
    use = calc.get("use")
    if isinstance(use, str) and registry is not None and use in registry:
        given = calc.get("with")
        given = given if isinstance(given, Mapping) else {}
        yield from _param_refs("calculate_score.with", use, given, registry)


def _param_refs(
    prefix: str, use: str, given: Mapping[str, Any], registry: StepRegistry
) -> Iterator[tuple[str, str]]:
    for name, prop in registry.get(use).params_schema.get("properties", {}).items():
        if prop.get(READS_FIELD):
            value = given.get(name, prop.get("default"))
            if isinstance(value, str) and value.strip():
                yield (f"{prefix}.{name}", value.strip())


def _refs(text: str) -> list[str]:
    return [root + rest for root, rest in _REF.findall(_QUOTED.sub("''", text))]


def missing_references(
    draft: ScorerDraft, *, registry: StepRegistry | None = None
) -> list[MissingReference]:
    """Every reference of the draft's steps to a value the scorer does not have there."""
    missing = []
    for step in draft.steps:
        if step.step is None:
            continue
        for field, ref in references(step, registry):
            own = field.startswith("calculate_score")
            groups = draft.fields_available_at(step.step, own_answer=own)
            problem = _check(ref, groups, step.step)
            if problem is not None:
                missing.append(MissingReference(step.step, field, ref, *problem))
    return missing


def _check(
    ref: str, groups: list[FieldGroup], step: StepName
) -> tuple[str, tuple[str, ...]] | None:
    """``(wanted, available)`` when ``ref`` reads nothing there; None when it is fine."""
    root, _, rest = ref.partition(".")
    answers = tuple(f.label for g in groups if _is_answer(g) for f in g.fields)
    if root == "score":
        has = any(g.source == "generate_score" for g in groups)
        return None if has else ("the score", ())
    if root == "judge_output":
        own = next((g for g in groups if g.source == "judge_output"), None)
        return _in_group(own, rest, answers)
    if not rest:
        return None  # all results at once: whatever there is
    slot, _, field = rest.partition(".")
    name = slot.removesuffix("_step_result")
    if name not in STEP_ORDER or not slot.endswith("_step_result"):
        return (f"a step result named {slot or 'nothing'}", answers)
    source = next((g for g in groups if g.source == name), None)
    if source is None:
        number = STEP_ORDER.index(name) + 1
        return (f"the result of step {number}", answers)
    return _in_group(source, field, answers) if _is_answer(source) else None


def _is_answer(group: FieldGroup) -> bool:
    return _JUDGE_ANSWER in group.label and group.fields[0].label != _JUDGE_ANSWER


def _in_group(
    group: FieldGroup | None, path: str, answers: tuple[str, ...]
) -> tuple[str, tuple[str, ...]] | None:
    name = path.split(".")[0]
    wanted = f"{_JUDGE_ANSWER}: {name}" if name else _JUDGE_ANSWER
    if group is None:
        return (wanted, answers)
    labels = tuple(f.label for f in group.fields)
    if not name or not _is_answer(group) or name in labels:
        return None
    return (wanted, labels)
