"""What every built-in step shares: its parameters base, the step callable, its errors."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict

from scorer_runtime.spec.context import CONTEXT_NAMES, ContextStep
from scorer_runtime.spec.registry import validate_params

P = TypeVar("P", bound="StepParams")


class StepParams(BaseModel):
    """Base of the built-ins' parameter models: unknown keys rejected, values immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class BuiltinStepError(ValueError):
    """A built-in step could not do its job on this run (e.g. a field path is not there).

    The message names the step and the path, and says what to check.
    """


def _check_path(value: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError("must name what to read, e.g. 'output'")
    parts = value.split(".")
    if parts[0] not in CONTEXT_NAMES:
        raise ValueError(f"must start with one of {', '.join(CONTEXT_NAMES)} (got {parts[0]!r})")
    if "" in parts:
        raise ValueError(f"{value!r} has an empty part (two dots in a row?)")
    return value


FieldPath = Annotated[str, AfterValidator(_check_path)]
"""A dotted path into the step context: ``output``, ``results.analyze_step_result.answer``."""

Apply = Callable[[dict[str, Any]], Any]
"""What a built-in does with the plain-data context of one call."""


class BuiltinStep(ContextStep):
    """A step callable made by a built-in factory: its name, parameters and behaviour.

    Called by the runtime with keyword injection (``run``, ``results``, ``score``,
    ``judge_output``); it reads only the plain-data context. Its ``repr`` is the Python call
    that builds it, so errors and exported code read well. Immutable; equal when name and
    parameters are equal.
    """

    __slots__ = ("_apply", "name", "params")
    name: str
    params: StepParams
    _apply: Apply

    def __init__(self, name: str, params: StepParams, apply: Apply) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "params", params)
        object.__setattr__(self, "_apply", apply)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def evaluate(self, context: Mapping[str, Any]) -> Any:
        """Run the step on an already built context (see :func:`build_context`)."""
        return self._apply(dict(context))

    def given_params(self) -> dict[str, Any]:
        """The parameters that were given (defaults left out), as plain JSON data."""
        return self.params.model_dump(mode="json", exclude_unset=True)

    def to_spec(self) -> dict[str, Any]:
        """The spec form: ``{"use": name, "with": {...}}`` (``with`` left out when empty)."""
        given = self.given_params()
        return {"use": self.name, "with": given} if given else {"use": self.name}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.given_params().items())
        return f"{self.name}({args})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BuiltinStep):
            return NotImplemented
        return (self.name, self.params) == (other.name, other.params)

    def __hash__(self) -> int:
        return hash((self.name, repr(self)))


def make_params(model: type[P], params: Mapping[str, Any], name: str) -> P:
    """Validate a factory's keyword parameters with its model (StepParamsError otherwise)."""
    return validate_params(model, params, step=name)
