"""Combining numbers that earlier steps produced: weighted average, threshold, clamp."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, StringConstraints, field_validator, model_validator

from scorer_runtime.spec.builtins.base import (
    BuiltinStep,
    FieldPath,
    NumberPath,
    StepParams,
    make_params,
)
from scorer_runtime.spec.builtins.context_values import read_number
from scorer_runtime.spec.context import CONTEXT_NAMES

_NUMBER_FIELD = Field(
    description="The number to use, e.g. a score the judge gave in an earlier step."
)

# -- weighted average -----------------------------------------------------------------------

WeightKey = Annotated[str, StringConstraints(min_length=1, max_length=300, strip_whitespace=True)]


class WeightedAverageParams(StepParams):
    """Parameters of :func:`weighted_average`."""

    weights: dict[WeightKey, float] = Field(
        min_length=1,
        description="How much each value counts, e.g. relevance = 0.7 and tone = 0.3, each "
        "value named as the earlier step gives it.",
    )
    base: FieldPath = Field(
        "step2",
        description="The earlier step whose values are weighed (usually step 2).",
    )

    @field_validator("weights")
    @classmethod
    def _weights(cls, weights: dict[str, float]) -> dict[str, float]:
        for key, weight in weights.items():
            if "" in key.split("."):
                raise ValueError(f"the key {key!r} has an empty part (two dots in a row?)")
            if weight < 0:
                raise ValueError(f"the weight of {key!r} is negative ({weight}); use 0 or more")
        if sum(weights.values()) <= 0:
            raise ValueError("the weights add up to 0; give at least one a positive weight")
        return weights


def weight_path(key: str, base: str) -> str:
    """The full path of a weights key: kept when it starts with a context name, else under base."""
    return key if key.split(".")[0] in CONTEXT_NAMES else f"{base}.{key}"


def weighted_average(**params: Any) -> BuiltinStep:
    """The weighted average of numbers from earlier steps (weights need not add up to 1).

    ``{"relevance": 0.7, "tone": 0.3}`` reads ``step2.relevance`` and
    ``.tone``; true/false values count as 1/0. A missing or non-numeric value is an error
    naming its path.
    """
    p = make_params(WeightedAverageParams, params, "weighted_average")
    paths = {weight_path(key, p.base): weight for key, weight in p.weights.items()}
    total = sum(paths.values())

    def apply(ctx: dict[str, Any]) -> float:
        values = {path: read_number(ctx, path, "weighted_average") for path in paths}
        return sum(values[path] * weight for path, weight in paths.items()) / total

    return BuiltinStep("weighted_average", p, apply)


# -- threshold ------------------------------------------------------------------------------


class ThresholdParams(StepParams):
    """Parameters of :func:`threshold`."""

    field: NumberPath = _NUMBER_FIELD
    threshold: float = Field(description="The lowest value that passes, e.g. 0.7.")
    pass_value: float | str = Field(
        1.0, description="What to give when the value passes: a score, or a label like 'pass'."
    )
    fail_value: float | str = Field(
        0.0, description="What to give when it does not: a score, or a label like 'fail'."
    )
    inclusive: bool = Field(
        True, description="A value equal to the threshold passes (≥); off: it must be above (>)."
    )


def threshold(**params: Any) -> BuiltinStep:
    """``pass_value`` (1) when the number reaches the threshold, else ``fail_value`` (0).

    With text values (``"pass"`` / ``"fail"``) it suits generate_reason.
    """
    p = make_params(ThresholdParams, params, "threshold")

    def apply(ctx: dict[str, Any]) -> float | str:
        value = read_number(ctx, p.field, "threshold")
        passed = value >= p.threshold if p.inclusive else value > p.threshold
        return p.pass_value if passed else p.fail_value

    return BuiltinStep("threshold", p, apply)


# -- clamp ----------------------------------------------------------------------------------


class ClampParams(StepParams):
    """Parameters of :func:`clamp`."""

    field: NumberPath = _NUMBER_FIELD
    min: float = Field(0.0, description="The lowest value given back.")
    max: float = Field(1.0, description="The highest value given back.")

    @model_validator(mode="after")
    def _order(self) -> ClampParams:
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) is larger than max ({self.max})")
        return self


def clamp(**params: Any) -> BuiltinStep:
    """The number, kept within [min, max] (e.g. a judge's 1.2 becomes 1.0)."""
    p = make_params(ClampParams, params, "clamp")

    def apply(ctx: dict[str, Any]) -> float:
        return min(p.max, max(p.min, read_number(ctx, p.field, "clamp")))

    return BuiltinStep("clamp", p, apply)
