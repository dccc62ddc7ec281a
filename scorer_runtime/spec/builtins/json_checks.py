"""JSON checks: is the output valid JSON, and does it match a JSON Schema.

jsonschema is imported only when a schema check is built, never when the library loads.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import Field, field_validator

from scorer_runtime.spec.builtins.base import BuiltinStep, FieldPath, StepParams, make_params
from scorer_runtime.spec.builtins.context_values import as_text, is_messages, read

_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n(.*?)\n?\s*```\s*$", re.DOTALL)
_NO_JSON = object()

_FIELD = Field("output", description="The value to check: usually the answer.")
_FENCED = Field(
    True,
    description="Accept JSON wrapped in a Markdown code block (```json … ```), as models "
    "often write it.",
)


def _parsed(value: Any, allow_fence: bool, step: str, path: str) -> Any:
    """The JSON value of the text at a field, the data itself when already parsed; or a marker."""
    if value is None:
        return _NO_JSON
    if not isinstance(value, str) and not is_messages(value):
        return value  # already data (a dict from the judge, a list, a number)
    text = as_text(value, step, path)
    if allow_fence and (fenced := _FENCE.match(text)):
        text = fenced.group(1)
    try:
        return json.loads(text)
    except ValueError:
        return _NO_JSON


_KINDS: dict[str, type | tuple[type, ...]] = {"object": dict, "array": list}


class JsonValidParams(StepParams):
    """Parameters of :func:`json_valid`."""

    field: FieldPath = _FIELD
    expect: Literal["any", "object", "array"] = Field(
        "any", description="'object' ({…}) or 'array' ([…]) to also require that shape."
    )
    allow_code_fence: bool = _FENCED


def json_valid(**params: Any) -> BuiltinStep:
    """1 when the text is valid JSON (of the expected shape), else 0. Empty text scores 0."""
    p = make_params(JsonValidParams, params, "json_valid")

    def apply(ctx: dict[str, Any]) -> float:
        data = _parsed(read(ctx, p.field, "json_valid"), p.allow_code_fence, "json_valid", p.field)
        if data is _NO_JSON:
            return 0.0
        return 1.0 if p.expect == "any" or isinstance(data, _KINDS[p.expect]) else 0.0

    return BuiltinStep("json_valid", p, apply)


class JsonSchemaValidParams(StepParams):
    """Parameters of :func:`json_schema_valid`."""

    json_schema: dict[str, Any] = Field(
        description="The JSON Schema the output must match, e.g. "
        '{"type": "object", "required": ["answer"]}.'
    )
    field: FieldPath = _FIELD
    allow_code_fence: bool = _FENCED

    @field_validator("json_schema")
    @classmethod
    def _valid_schema(cls, schema: dict[str, Any]) -> dict[str, Any]:
        from jsonschema import SchemaError, validators

        try:
            validators.validator_for(schema).check_schema(schema)
        except SchemaError as error:
            where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
            raise ValueError(f"not a valid JSON Schema at {where}: {error.message}") from None
        return schema


def json_schema_valid(**params: Any) -> BuiltinStep:
    """1 when the text is JSON matching the schema, else 0 (invalid JSON scores 0)."""
    p = make_params(JsonSchemaValidParams, params, "json_schema_valid")
    from jsonschema import validators

    validator = validators.validator_for(p.json_schema)(p.json_schema)

    def apply(ctx: dict[str, Any]) -> float:
        value = read(ctx, p.field, "json_schema_valid")
        data = _parsed(value, p.allow_code_fence, "json_schema_valid", p.field)
        if data is _NO_JSON:
            return 0.0
        return 1.0 if validator.is_valid(data) else 0.0

    return BuiltinStep("json_schema_valid", p, apply)
