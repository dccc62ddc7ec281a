"""Turning a judge's labels into numbers: one label to a score, or the share of a verdict."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field, StringConstraints, model_validator

from scorer_runtime.results import NotScorable, not_scorable
from scorer_runtime.spec.builtins.base import (
    BuiltinStep,
    BuiltinStepError,
    FieldPath,
    LabelPath,
    StepParams,
    make_params,
)
from scorer_runtime.spec.builtins.context_values import as_text, read

Label = Annotated[str, StringConstraints(min_length=1, max_length=200)]
Scalar = str | float | bool


def _key(value: Any, case_sensitive: bool) -> tuple[str, Any]:
    """A comparable form: text trimmed (and case-folded), numbers as floats, bools apart.

    The type tag keeps ``True`` from equalling ``1``.
    """
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return ("number", float(value))
    text = str(value).strip()
    return ("text", text if case_sensitive else text.casefold())


# -- label to score -------------------------------------------------------------------------


class LabelToScoreParams(StepParams):
    """Parameters of :func:`label_to_score`."""

    mapping: dict[Label, float] = Field(
        min_length=1,
        description="The score of each label, e.g. yes = 1, partial = 0.5, no = 0.",
    )
    field: LabelPath = Field(
        "judge_output.verdict",
        description="The judge's label to turn into a score, e.g. its verdict.",
    )
    case_sensitive: bool = Field(False, description="Tell 'Yes' and 'yes' apart.")
    default: float | None = Field(
        None,
        description="The score of a label not in the mapping; when empty, such a label is "
        "an error that names it.",
    )

    @model_validator(mode="after")
    def _distinct(self) -> LabelToScoreParams:
        if self.case_sensitive:
            return self
        seen: dict[tuple[str, Any], str] = {}
        for label in self.mapping:
            other = seen.setdefault(_key(label, False), label)
            if other != label:
                raise ValueError(
                    f"the labels {other!r} and {label!r} differ only in case; keep one, "
                    "or turn on case_sensitive"
                )
        return self


def label_to_score(**params: Any) -> BuiltinStep:
    """The score the mapping gives the label the judge chose (``yes`` → 1, ``no`` → 0).

    A label outside the mapping gives ``default``, or an error naming the label and the
    known ones.
    """
    p = make_params(LabelToScoreParams, params, "label_to_score")
    scores = {_key(label, p.case_sensitive): score for label, score in p.mapping.items()}

    def apply(ctx: dict[str, Any]) -> float:
        value = read(ctx, p.field, "label_to_score")
        label = as_text(value, "label_to_score", p.field)
        score = scores.get(_key(label, p.case_sensitive), p.default)
        if score is None:
            known = ", ".join(repr(k) for k in p.mapping)
            raise BuiltinStepError(
                f"label_to_score: the label {label!r} at {p.field!r} is not one of the known "
                f"labels ({known}). Add it to the mapping, or set a default score."
            )
        return score

    return BuiltinStep("label_to_score", p, apply)


# -- proportion -----------------------------------------------------------------------------


class ProportionParams(StepParams):
    """Parameters of :func:`proportion`."""

    items_field: FieldPath = Field(
        "step2.verdicts",
        description="The list to count, e.g. the judge's verdict on each statement.",
    )
    key: str | None = Field(
        "verdict",
        min_length=1,
        description="The field of each item to look at; when empty, the items themselves.",
    )
    equals: Scalar | list[Scalar] = Field(
        "yes", description="The value (or values) that count, e.g. 'yes' or ['yes', 'partly']."
    )
    case_sensitive: bool = Field(False, description="Tell 'Yes' and 'yes' apart.")
    if_empty: float | None = Field(
        None,
        description="The score when the list is empty; when empty, such a run is not scorable.",
    )


def proportion(**params: Any) -> BuiltinStep:
    """The fraction of items whose ``key`` equals the value (e.g. verdicts that are ``yes``).

    An empty list gives ``if_empty``, or makes the run not scorable (with the reason).
    """
    p = make_params(ProportionParams, params, "proportion")
    wanted = p.equals if isinstance(p.equals, list) else [p.equals]
    hits = {_key(v, p.case_sensitive) for v in wanted}

    def apply(ctx: dict[str, Any]) -> float | NotScorable:
        items = read(ctx, p.items_field, "proportion")
        if items is None or items == []:
            if p.if_empty is not None:
                return p.if_empty
            return not_scorable(f"proportion: {p.items_field} has no items to count")
        if not isinstance(items, list):
            raise BuiltinStepError(
                f"proportion: {p.items_field!r} should be a list, but is a "
                f"{type(items).__name__}. Point items_field at a list."
            )
        values = [_item_value(item, index, p) for index, item in enumerate(items)]
        return sum(_key(v, p.case_sensitive) in hits for v in values) / len(values)

    return BuiltinStep("proportion", p, apply)


def _item_value(item: Any, index: int, p: ProportionParams) -> Any:
    if p.key is None:
        return item
    if isinstance(item, Mapping) and p.key in item:
        return item[p.key]
    has = f"its keys: {', '.join(map(str, item))}" if isinstance(item, Mapping) else "not an object"
    raise BuiltinStepError(
        f"proportion: item {index} of {p.items_field!r} has no {p.key!r} ({has}). "
        "Set 'key' to the field that holds the verdict."
    )
