"""TypeScript for the text, JSON and number checks: helpers and the call of each check."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from scorer_runtime.spec.builtins.combine import (
    ThresholdParams,
    WeightedAverageParams,
    weight_path,
)
from scorer_runtime.spec.builtins.json_checks import JsonSchemaValidParams, JsonValidParams
from scorer_runtime.spec.builtins.matching import ContainsParams, ExcludesParams
from scorer_runtime.spec.builtins.measures import LengthBoundsParams
from scorer_runtime.spec.mastra.formula_ts import Untranslatable

_SPACE = r"[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+"

CHECK_HELPERS: dict[str, str] = {
    "asText": """function asText(value: any, where: string): string {
  // As the Python runtime reads a value as text: agent messages as the agent's answer,
  // an agent run's input as the user's message, other data as JSON.
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  if (isMessages(value)) return messagesText(value, where)
  const plain = typeof value === 'object' && !Array.isArray(value)
  if (plain && INPUT_KEYS.some((key) => Object.hasOwn(value, key))) return userMessage(value) ?? ''
  if (plain && Object.hasOwn(value, 'role') && Object.hasOwn(value, 'content')) {
    return messagesText([value], where)
  }
  return toText(value)
}""",
    "words": f"""function words(text: string): string[] {{
  return text.split(/{_SPACE}/u).filter((word) => word !== '')
}}""",
    "toNumber": """function toNumber(value: any, where: string): number {
  if (typeof value === 'boolean') return value ? 1 : 0
  let number = NaN
  if (typeof value === 'number') number = value
  const text = typeof value === 'string' ? value.trim().replaceAll(',', '') : ''
  if (/^[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?$/.test(text)) number = Number(text)
  if (!Number.isFinite(number)) return fail(`expected a number at ${where}, found ${toText(value)}`)
  return number
}""",
    "parseJson": """const NO_JSON = Symbol('no JSON')
function parseJson(value: any, allowFence: boolean, where: string): any {
  if (value === null || value === undefined) return NO_JSON
  if (typeof value !== 'string' && !isMessages(value)) return value
  let text = asText(value, where)
  const fence = /^\\s*```[A-Za-z0-9_-]*\\s*\\n([\\s\\S]*?)\\n?\\s*```\\s*$/
  const fenced = allowFence ? fence.exec(text) : null
  if (fenced) text = fenced[1]
  try {
    return JSON.parse(text)
  } catch {
    return NO_JSON
  }
}""",
    "jsonEqual": """function jsonEqual(left: any, right: any): boolean {
  // JSON Schema's equality: true and 1 differ (Python's == would call them equal).
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((v, i) => jsonEqual(v, right[i]))
  }
  if (left && right && typeof left === 'object' && typeof right === 'object') {
    const keys = Object.keys(left)
    return keys.length === Object.keys(right).length &&
      keys.every((k) => Object.hasOwn(right, k) && jsonEqual(left[k], right[k]))
  }
  return left === right
}""",
    "matchesSchema": """function matchesSchema(value: any, schema: any): boolean {
  const kind = (v: any): string[] => {
    if (v === null) return ['null']
    if (Array.isArray(v)) return ['array']
    if (typeof v === 'number') return Number.isInteger(v) ? ['integer', 'number'] : ['number']
    return [typeof v]
  }
  if (schema === true) return true
  if (schema === false) return false
  const types = schema.type === undefined ? null : [schema.type].flat()
  if (types && !kind(value).some((k) => types.includes(k))) return false
  if (schema.enum && !schema.enum.some((e: any) => jsonEqual(e, value))) return false
  if ('const' in schema && !jsonEqual(schema.const, value)) return false
  if (typeof value === 'string') {
    const size = [...value].length
    if (size < (schema.minLength ?? 0) || size > (schema.maxLength ?? Infinity)) return false
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) return false
  }
  if (typeof value === 'number') {
    if (value < (schema.minimum ?? -Infinity) || value > (schema.maximum ?? Infinity)) return false
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return false
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) return false
  }
  if (Array.isArray(value)) {
    const [fewest, most] = [schema.minItems ?? 0, schema.maxItems ?? Infinity]
    if (value.length < fewest || value.length > most) return false
    const items = schema.items
    if (items !== undefined && !value.every((item) => matchesSchema(item, items))) return false
  }
  if (kind(value)[0] === 'object') {
    const properties = schema.properties ?? {}
    if (!(schema.required ?? []).every((key: string) => Object.hasOwn(value, key))) return false
    for (const [key, item] of Object.entries(value)) {
      const sub = Object.hasOwn(properties, key) ? properties[key] : schema.additionalProperties
      if (sub !== undefined && !matchesSchema(item, sub)) return false
    }
  }
  return true
}""",
}

CHECK_NEEDS: dict[str, tuple[str, ...]] = {
    "asText": ("toText", "isMessages", "messagesText", "inputKeys", "userMessage"),
    "toNumber": ("fail", "toText"),
    "matchesSchema": ("jsonEqual",),
    "parseJson": ("isMessages", "asText"),
}

_SCHEMA_KEYWORDS = {
    "type", "enum", "const", "properties", "required", "additionalProperties", "items",
    "minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "minItems", "maxItems", "description", "title", "$schema",
}  # fmt: skip


def _check_schema(schema: Any, where: str) -> None:
    if isinstance(schema, bool):
        return
    unknown = set(schema) - _SCHEMA_KEYWORDS
    if unknown:
        raise Untranslatable(f"the JSON Schema keywords {', '.join(sorted(unknown))} ({where})")
    for sub in schema.get("properties", {}).values():
        _check_schema(sub, where)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _check_schema(schema[key], where)


def check_call(
    use: str, params: Mapping[str, Any], path: Any, where: str
) -> tuple[str, set[str]] | None:
    """The expression for a text/JSON/number check, its helpers; None for another check."""
    values = dict(params)
    if use in ("json_valid", "json_schema_valid"):
        return _json_call(use, values, path, where)
    if use in ("length_bounds", "contains", "excludes"):
        return _text_call(use, values, path)
    if use == "threshold":
        p3 = ThresholdParams.model_validate(values)
        op = ">=" if p3.inclusive else ">"
        number = f"toNumber({path(p3.field)}, {json.dumps(p3.field)})"
        passed, failed = json.dumps(p3.pass_value), json.dumps(p3.fail_value)
        return f"({number} {op} {p3.threshold} ? {passed} : {failed})", {"toNumber"}
    if use == "weighted_average":
        p4 = WeightedAverageParams.model_validate(values)
        paths = {weight_path(key, p4.base): weight for key, weight in p4.weights.items()}
        total = sum(paths.values())
        terms = [f"toNumber({path(k)}, {json.dumps(k)}) * {w}" for k, w in paths.items()]
        return f"([{', '.join(terms)}].reduce((a, b) => a + b, 0) / {total})", {"toNumber"}
    return None


def _text_call(use: str, values: dict[str, Any], path: Any) -> tuple[str, set[str]]:
    """length_bounds, contains and excludes."""
    if use == "length_bounds":
        p = LengthBoundsParams.model_validate(values)
        text = f"asText({path(p.field)}, {json.dumps(p.field)})"
        size = f"words({text}).length" if p.unit == "words" else f"[...{text}].length"
        soft = p.scoring == "soft"
        low = 0 if p.min is None else p.min  # a size is never below 0
        high = "Infinity" if p.max is None else p.max
        below = f"size / {low}" if soft else "0"
        above = f"{high} / size" if soft else "0"
        code = f"((size: number) => size < {low} ? {below} : size > {high} ? {above} : 1)({size})"
        return code, {"asText", "words"}
    # contains / excludes
    p2 = (ExcludesParams if use == "excludes" else ContainsParams).model_validate(values)
    text = f"asText({path(p2.field)}, {json.dumps(p2.field)})"
    from scorer_runtime.spec.mastra.matching_ts import term_sources

    terms = term_sources(p2.values, p2.case_sensitive, p2.whole_words)
    found = f"{terms}.map((t) => new RegExp(t, 'u').test(text))"
    wanted = "!f" if use == "excludes" else "f"
    test = "every" if p2.mode == "all" else "some"
    code = f"((text: string) => ({found}.{test}((f) => {wanted}) ? 1 : 0))({text})"
    return code, {"asText"}


def _json_call(use: str, values: dict[str, Any], path: Any, where: str) -> tuple[str, set[str]]:
    p = (JsonValidParams if use == "json_valid" else JsonSchemaValidParams).model_validate(values)
    parsed = f"parseJson({path(p.field)}, {str(p.allow_code_fence).lower()}, {json.dumps(p.field)})"
    if isinstance(p, JsonValidParams):
        shape = {
            "any": "true",
            "object": "data !== null && typeof data === 'object' && !Array.isArray(data)",
            "array": "Array.isArray(data)",
        }[p.expect]
        return f"((data: any) => (data !== NO_JSON && ({shape}) ? 1 : 0))({parsed})", {"parseJson"}
    _check_schema(p.json_schema, where)
    schema = json.dumps(p.json_schema, ensure_ascii=False)
    test = f"data !== NO_JSON && matchesSchema(data, {schema})"
    return f"((data: any) => ({test} ? 1 : 0))({parsed})", {"parseJson", "matchesSchema"}
