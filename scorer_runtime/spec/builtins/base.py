"""What every built-in step shares: its parameters base, the step callable, its errors."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from scorer_runtime.spec.context import CONTEXT_NAMES, ContextStep
from scorer_runtime.spec.registry import validate_params

P = TypeVar("P", bound="StepParams")


PARAM_TITLES: dict[str, str] = {
    "field": "What to read",
    "expected_field": "Where the expected value is",
    "reference_field": "Where the reference text is",
    "items_field": "Where the list is",
    "base": "Where the values are",
    "mapping": "Score of each label",
    "values": "Words to look for",
    "keywords": "Keywords",
    "case_sensitive": "Tell upper and lower case apart",
    "whole_words": "Whole words only",
    "ignore_case": "Ignore upper and lower case",
    "whole_text": "Match the whole text",
    "dot_all": "Let '.' match line breaks",
    "min": "At least",
    "max": "At most",
    "abs_tolerance": "Tolerance (a number)",
    "rel_tolerance": "Tolerance (a share, 0.05 is 5%)",
    "number_in_text": "Which number in the text",
    "expect": "Expected shape",
    "allow_code_fence": "Accept JSON in a code block",
    "json_schema": "The shape (JSON Schema)",
    "min_times": "At least this many times",
    "max_calls": "At most this many calls",
    "error_keys": "Keys that mark an error",
    "error_prefixes": "Texts that mark an error",
    "pass_value": "Given when it passes",
    "fail_value": "Given when it fails",
    "inclusive": "Equal to the threshold passes",
    "default": "Score of any other label",
    "key": "Field of each item",
    "equals": "Values that count",
    "if_empty": "Score when the list is empty",
}
"""The label a form shows for a built-in's parameter (its JSON Schema ``title``); a parameter
not listed is labelled by its name in words (``soft_margin`` is "Soft margin")."""


def _param_title(name: str, _info: Any) -> str:
    return PARAM_TITLES.get(name) or name.replace("_", " ").capitalize()


class StepParams(BaseModel):
    """Base of the built-ins' parameter models: unknown keys rejected, values immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, field_title_generator=_param_title)


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


READS_FIELD = "x-reads-field"
"""The JSON Schema mark of a parameter that names a value to read (a :data:`FieldPath`), so
a form can offer the values that exist at that step as choices instead of a text box."""


class _ReadsField:
    """Marks a :data:`FieldPath` parameter in its JSON Schema (``"x-reads-field": "any"``, or
    ``"label"`` / ``"number"`` when it reads a judge's label or a number)."""

    def __init__(self, kind: str = "any") -> None:
        self.kind = kind

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema[READS_FIELD] = self.kind
        return schema


FieldPath = Annotated[str, AfterValidator(_check_path), _ReadsField()]
"""A dotted path into the step context: ``output``, ``step2.answer``."""
LabelPath = Annotated[str, AfterValidator(_check_path), _ReadsField("label")]
"""A :data:`FieldPath` to a label (a judge answer field of kind "one of")."""
NumberPath = Annotated[str, AfterValidator(_check_path), _ReadsField("number")]
"""A :data:`FieldPath` to a number."""

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
