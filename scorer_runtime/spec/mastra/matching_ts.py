"""TypeScript for exact_match, regex_match, keyword_coverage, numeric_closeness and clamp."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from scorer_runtime.spec.builtins.combine import ClampParams
from scorer_runtime.spec.builtins.context_values import _NUMBER
from scorer_runtime.spec.builtins.matching import (
    ExactMatchParams,
    KeywordCoverageParams,
    RegexMatchParams,
)
from scorer_runtime.spec.builtins.measures import NumericClosenessParams
from scorer_runtime.spec.mastra.regex_ts import SPACE, js_regex

MATCHING_HELPERS: dict[str, str] = {
    "readOptional": """function readOptional(value: any, path: string): any {
  for (const part of path.split('.')) {
    if (Array.isArray(value) && /^-?\\d+$/.test(part)) {
      const index = Number(part) < 0 ? value.length + Number(part) : Number(part)
      value = index >= 0 && index < value.length ? value[index] : undefined
    } else if (value && typeof value === 'object' && !Array.isArray(value)) {
      value = Object.hasOwn(value, part) ? value[part] : undefined
    } else {
      value = undefined
    }
    if (value === undefined) return null
  }
  return value === '' || (Array.isArray(value) && value.length === 0) ? null : value
}""",
    "fold": """function fold(text: string): string {
  // Python's str.casefold(): full case folding (ß as ss, final ς as σ).
  return text.toUpperCase().toLowerCase().replaceAll('ς', 'σ')
}""",
    "numberOrNull": f"""function numberOrNull(value: any): number | null {{
  if (typeof value === 'boolean') return value ? 1 : 0
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value !== 'string') return null
  const text = value.replace(/^[{SPACE}]+|[{SPACE}]+$/gu, '').replaceAll(',', '')
  const digits = '\\\\d(?:_?\\\\d)*'
  const mantissa = `(?:${{digits}}(?:\\\\.(?:${{digits}})?)?|\\\\.${{digits}})`
  const shape = `^[+-]?${{mantissa}}(?:[eE][+-]?${{digits}})?$`
  if (!new RegExp(shape).test(text)) return null
  const number = Number(text.replaceAll('_', ''))
  return Number.isFinite(number) ? number : null
}}""",
    "findNumber": f"""function findNumber(text: string, which: string): number | null {{
  const whole = numberOrNull(text)
  if (whole !== null) return whole
  const found = [...text.matchAll(new RegExp({json.dumps(js_regex(_NUMBER.pattern))}, 'gu'))]
  if (found.length === 0) return null
  return numberOrNull(found[which === 'first' ? 0 : found.length - 1][0])
}}""",
    "closeness": """function closeness(diff: number, expected: number, abs: number, rel: number,
  margin: number | null): number {
  const allowed = Math.max(abs, rel * Math.abs(expected))
  if (diff <= allowed + 1e-9 * Math.max(1, Math.abs(expected))) return 1
  if (margin === null) return 0
  return Math.max(0, 1 - (diff - allowed) / margin)
}""",
}

MATCHING_NEEDS: dict[str, tuple[str, ...]] = {
    "findNumber": ("numberOrNull",),
}


def matching_call(
    use: str, params: Mapping[str, Any], path: Callable[[str], str]
) -> tuple[str, set[str]] | None:
    """The expression for one of these checks and the helpers it needs; None for another."""
    values = dict(params)
    if use == "exact_match":
        return _exact(ExactMatchParams.model_validate(values), path)
    if use == "regex_match":
        p = RegexMatchParams.model_validate(values)
        source = js_regex(
            p.pattern, multiline=p.multiline, dot_all=p.dot_all, ignore_case=p.ignore_case
        )
        if p.whole_text:
            source = f"^(?:{source})(?![\\s\\S])"
        text = f"asText({path(p.field)}, {json.dumps(p.field)})"
        code = f"(new RegExp({json.dumps(source)}, 'u').test({text}) ? 1 : 0)"
        return code, {"asText"}
    if use == "keyword_coverage":
        k = KeywordCoverageParams.model_validate(values)
        seen: dict[str, str] = {}
        for keyword in k.keywords:
            seen.setdefault(keyword if k.case_sensitive else keyword.casefold(), keyword)
        terms = term_sources(list(seen.values()), k.case_sensitive, k.whole_words)
        text = f"asText({path(k.field)}, {json.dumps(k.field)})"
        found = f"{terms}.filter((t) => new RegExp(t, 'u').test(text)).length"
        return f"((text: string) => {found} / {len(seen)})({text})", {"asText"}
    if use == "numeric_closeness":
        return _closeness(NumericClosenessParams.model_validate(values), path)
    if use == "clamp":
        c = ClampParams.model_validate(values)
        number = f"toNumber({path(c.field)}, {json.dumps(c.field)})"
        return f"Math.min({c.max}, Math.max({c.min}, {number}))", {"toNumber"}
    return None


def term_sources(terms: list[str], case_sensitive: bool, whole_words: bool) -> str:
    """The JavaScript sources of the searches contains/excludes/keyword_coverage make."""
    wrap = (lambda t: rf"(?<!\w){t}(?!\w)") if whole_words else (lambda t: t)
    sources = [js_regex(wrap(re.escape(t)), ignore_case=not case_sensitive) for t in terms]
    return json.dumps(sources, ensure_ascii=False)


def _exact(p: ExactMatchParams, path: Callable[[str], str]) -> tuple[str, set[str]]:
    space = "words(t).join(' ')" if p.ignore_whitespace else "t"
    normal = f"((t: string) => {space if p.case_sensitive else f'fold({space})'})"
    if p.expected is None:
        where = json.dumps(p.expected_field)
        missing = f"exact_match: there is no {p.expected_field} to compare with"
        expected = (
            f"((e: any) => e === null ? notScorable({json.dumps(missing)}) : e)"
            f"(readOptional(ctx, {where}))"
        )
    else:
        expected = json.dumps(p.expected, ensure_ascii=False)
    text = f"asText({path(p.field)}, {json.dumps(p.field)})"
    field = json.dumps(p.expected_field)
    code = (
        f"((expected: any) => isNotScorable(expected) ? expected : "
        f"([expected].flat().map((e: any) => normal(asText(e, {field}))).includes(normal({text}))"
        " ? 1 : 0))"
        f"({expected})"
    ).replace("normal(", f"{normal}(")
    return code, {"asText", "words", "fold", "readOptional"}


def _closeness(p: NumericClosenessParams, path: Callable[[str], str]) -> tuple[str, set[str]]:
    if p.expected is not None:
        expected = repr(p.expected)
    else:
        where = p.expected_field
        none = f"numeric_closeness: there is no {where} to compare with"
        no_number = f"numeric_closeness: {where} holds no number"
        expected = (
            f"((e: any) => e === null ? notScorable({json.dumps(none)}) : "
            f"findNumber(asText(e, {json.dumps(where)}), 'first') ?? "
            f"notScorable({json.dumps(no_number)}))(readOptional(ctx, {json.dumps(where)}))"
        )
    margin = "null" if p.soft_margin is None else repr(p.soft_margin)
    text = f"asText({path(p.field)}, {json.dumps(p.field)})"
    which = json.dumps(p.number_in_text)
    code = (
        f"((expected: any) => isNotScorable(expected) ? expected : "
        f"((actual: number | null) => actual === null ? 0 : closeness(Math.abs(actual - "
        f"expected), expected, {p.abs_tolerance!r}, {p.rel_tolerance!r}, {margin}))"
        f"(findNumber({text}, {which})))({expected})"
    )
    return code, {"asText", "findNumber", "closeness", "readOptional"}
