"""A judge answer's JSON schema as a zod 4 schema (the subset the studio's builder writes)."""

from __future__ import annotations

import json
from typing import Any

from scorer_runtime.spec.mastra.formula_ts import Untranslatable

_KNOWN = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "description",
    "minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength", "title",
}  # fmt: skip
_BOUNDS = {"minimum": "min", "maximum": "max", "minItems": "min", "maxItems": "max",
           "minLength": "min", "maxLength": "max"}  # fmt: skip


def zod_schema(schema: Any) -> str:
    """The zod expression for ``schema``; raises :class:`Untranslatable` for other keywords."""
    if not isinstance(schema, dict):
        raise Untranslatable("an answer schema that is not an object")
    unknown = set(schema) - _KNOWN
    if unknown:
        raise Untranslatable(f"the answer schema keywords {', '.join(sorted(unknown))}")
    kind = schema.get("type")
    if "enum" in schema and all(isinstance(v, str) for v in schema["enum"]):
        code = f"z.enum({json.dumps(schema['enum'], ensure_ascii=False)})"
    elif kind == "object":
        code = _object(schema)
    elif kind == "array":
        code = f"z.array({zod_schema(schema.get('items', {'type': 'string'}))})"
    elif kind in ("string", "number", "boolean"):
        code = f"z.{kind}()"
    elif kind == "integer":
        code = "z.number().int()"
    else:
        raise Untranslatable(f"the answer schema type {kind!r}")
    for keyword, method in _BOUNDS.items():
        if keyword in schema:
            code += f".{method}({json.dumps(schema[keyword])})"
    if "description" in schema:
        code += f".describe({json.dumps(schema['description'], ensure_ascii=False)})"
    return code


def _object(schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    fields = []
    for name, sub in schema.get("properties", {}).items():
        code = zod_schema(sub) + ("" if name in required else ".optional()")
        fields.append(f"{json.dumps(name)}: {code}")
    made = f"z.object({{ {', '.join(fields)} }})"
    return f"{made}.strict()" if schema.get("additionalProperties") is False else made
