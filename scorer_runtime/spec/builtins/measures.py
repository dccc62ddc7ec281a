"""Measured checks: length bounds, and how close a number is to the expected one."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from scorer_runtime.results import NotScorable, not_scorable
from scorer_runtime.spec.builtins.base import BuiltinStep, FieldPath, StepParams, make_params
from scorer_runtime.spec.builtins.context_values import (
    as_text,
    find_number,
    read_optional,
    read_text,
)

_FIELD = Field("output", description="The text to check: usually the answer.")

# -- length bounds --------------------------------------------------------------------------


class LengthBoundsParams(StepParams):
    """Parameters of :func:`length_bounds`."""

    min: int | None = Field(None, ge=0, description="The shortest acceptable length.")
    max: int | None = Field(None, ge=0, description="The longest acceptable length.")
    unit: Literal["words", "characters"] = Field("words", description="Count words or characters.")
    scoring: Literal["strict", "soft"] = Field(
        "strict",
        description="'strict': 1 inside the bounds, 0 outside; 'soft': outside the bounds the "
        "score shrinks in proportion (half the minimum length scores 0.5).",
    )
    field: FieldPath = _FIELD

    @model_validator(mode="after")
    def _bounds(self) -> LengthBoundsParams:
        if self.min is None and self.max is None:
            raise ValueError("give a minimum, a maximum, or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"the minimum ({self.min}) is larger than the maximum ({self.max})")
        return self


def length_bounds(**params: Any) -> BuiltinStep:
    """1 when the text's length (words or characters) is within the bounds, else 0 or less."""
    p = make_params(LengthBoundsParams, params, "length_bounds")

    def apply(ctx: dict[str, Any]) -> float:
        text = read_text(ctx, p.field, "length_bounds")
        size = len(text.split()) if p.unit == "words" else len(text)
        if p.min is not None and size < p.min:
            return size / p.min if p.scoring == "soft" else 0.0
        if p.max is not None and size > p.max:
            return p.max / size if p.scoring == "soft" else 0.0
        return 1.0

    return BuiltinStep("length_bounds", p, apply)


# -- numeric closeness ----------------------------------------------------------------------


class NumericClosenessParams(StepParams):
    """Parameters of :func:`numeric_closeness`."""

    field: FieldPath = _FIELD
    expected: float | None = Field(
        None, description="A fixed expected number; when empty, expected_field is read instead."
    )
    expected_field: FieldPath = Field(
        "ground_truth", description="Where the expected number is when 'expected' is not given."
    )
    abs_tolerance: float = Field(
        0.0, ge=0, description="Accept answers this far from the expected number (e.g. 0.5)."
    )
    rel_tolerance: float = Field(
        0.0, ge=0, description="Accept answers this fraction away from it (0.05 means 5%)."
    )
    soft_margin: float | None = Field(
        None,
        gt=0,
        description="When set, answers beyond the tolerance get partial credit, falling "
        "linearly to 0 at this distance beyond it; when empty, they score 0.",
    )
    number_in_text: Literal["first", "last"] = Field(
        "first", description="Which number of a sentence to read ('It costs 12 dollars')."
    )


def numeric_closeness(**params: Any) -> BuiltinStep:
    """1 when the number in the text is within tolerance of the expected number.

    Beyond the tolerance: 0, or partial credit with ``soft_margin``. A text without a number
    scores 0; no expected number on the run makes it not scorable.
    """
    p = make_params(NumericClosenessParams, params, "numeric_closeness")

    def apply(ctx: dict[str, Any]) -> float | NotScorable:
        expected = p.expected if p.expected is not None else _expected(ctx, p)
        if isinstance(expected, NotScorable):
            return expected
        actual = find_number(read_text(ctx, p.field, "numeric_closeness"), p.number_in_text)
        if actual is None:
            return 0.0
        return _closeness(abs(actual - expected), expected, p)

    return BuiltinStep("numeric_closeness", p, apply)


def _expected(ctx: dict[str, Any], p: NumericClosenessParams) -> float | NotScorable:
    value = read_optional(ctx, p.expected_field, "numeric_closeness")
    if value is None:
        return not_scorable(f"numeric_closeness: there is no {p.expected_field} to compare with")
    number = find_number(as_text(value, "numeric_closeness", p.expected_field), "first")
    if number is None:
        return not_scorable(f"numeric_closeness: {p.expected_field} holds no number")
    return number


def _closeness(diff: float, expected: float, p: NumericClosenessParams) -> float:
    allowed = max(p.abs_tolerance, p.rel_tolerance * abs(expected))
    # A little slack for float rounding: 0.1 + 0.2 is within 0 of 0.3.
    if diff <= allowed + 1e-9 * max(1.0, abs(expected)):
        return 1.0
    if p.soft_margin is None:
        return 0.0
    return max(0.0, 1.0 - (diff - allowed) / p.soft_margin)
