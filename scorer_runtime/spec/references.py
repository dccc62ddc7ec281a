"""Which earlier values a draft's steps read, and which of them the scorer does not have.

A step reads earlier values through references (``step2.solved`` in a formula or a prompt,
``judge_output.verdict`` in a built-in's field or in ``calculate_score``; the older long form
``results.analyze_step_result.solved`` still reads, and :func:`short_references` rewrites it).
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
from scorer_runtime.spec.context import STEP_NAMES
from scorer_runtime.types import STEP_ORDER, STEP_RESULT_FIELD, StepName

if TYPE_CHECKING:
    from scorer_runtime.spec.draft import ScorerDraft, StepDraft
    from scorer_runtime.spec.fields import FieldGroup
    from scorer_runtime.spec.registry import StepRegistry

_REF = re.compile(r"(?<![\w.'\"])(results|judge_output|score|step\d+\b)((?:\.[A-Za-z_]\w*)*)")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_SHORT = {f"results.{STEP_RESULT_FIELD[step]}": name for name, step in STEP_NAMES.items()}
_LONG = re.compile(
    r"'[^']*'|\"[^\"]*\"|(?<![\w.])(" + "|".join(map(re.escape, _SHORT)) + r")(?!\w)"
)
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


def short_references(text: str) -> str:
    """``text`` (a formula, a prompt, a field) with every reference in the older long form
    written the short way: ``results.analyze_step_result.solved`` becomes ``step2.solved``.
    Quoted text is left as it is; the value read is the same."""
    return _LONG.sub(lambda m: _SHORT[m.group(1)] if m.group(1) else m.group(0), text)


def with_short_references(draft: ScorerDraft) -> ScorerDraft:
    """The draft with every step's references written the short way (what the builder shows
    a scorer saved with the long form in); it reads the same values."""
    data = draft.to_data()
    data["steps"] = _shorten(data.get("steps", []))
    return type(draft).model_validate(data)


def _shorten(value: Any) -> Any:
    if isinstance(value, str):
        return short_references(value)
    if isinstance(value, list):
        return [_shorten(item) for item in value]
    if isinstance(value, Mapping):
        return {short_references(str(k)): _shorten(v) for k, v in value.items()}
    return value


def long_reference(ref: str) -> str:
    """A reference with a step's short name written the long way (``step2.x`` →
    ``results.analyze_step_result.x``); others unchanged."""
    root, dot, rest = ref.partition(".")
    if root not in STEP_NAMES:
        return ref
    return f"results.{STEP_RESULT_FIELD[STEP_NAMES[root]]}{dot}{rest}"


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
    head = ref.partition(".")[0]
    answers = tuple(f.label for g in groups if _is_answer(g) for f in g.fields)
    if head.startswith("step") and head not in STEP_NAMES:
        return (f"a result of step {head.removeprefix('step')}", answers)
    root, _, rest = long_reference(ref).partition(".")
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
