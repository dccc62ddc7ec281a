"""The judge's processors in an exported Mastra module: masking, shortening, blocked answers.

The studio masks personal data (``redact_pii``) in the instructions and the prompt, then
shortens the prompt (``truncate``), before the judge sees them; it rejects an answer matching
a blocked pattern (``output_guard``). The module does the same: the instructions are masked
here, once, as they never change; the prompt is masked and shortened by TypeScript functions
inside ``createPrompt``; the answer is checked by an output processor of the Mastra judge.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from scorer_runtime.processors.builtin import _DEFAULT_RULES, RedactPII
from scorer_runtime.secrets import KEY_SHAPES
from scorer_runtime.spec.mastra.regex_ts import js_regex
from scorer_runtime.spec.models import JudgeSpec, OutputGuardSpec, RedactPIISpec, TruncateSpec

PROCESSOR_HELPERS: dict[str, str] = {
    "redactText": """function redactText(text: string, rules: string[][], replacement: string) {
  for (const [name, source, groups, accept] of rules) {
    const label = replacement.replaceAll('{name}', name)
    let [out, last] = ['', 0]
    for (const match of text.matchAll(new RegExp(source, 'dgu'))) {
      out += text.slice(last, match.index)
      last = match.index + match[0].length
      out += redactMatch(match, label, groups.split(',').filter(Boolean), accept)
    }
    text = out + text.slice(last)
  }
  return text
}""",
    "redactMatch": """function redactMatch(match: any, label: string, groups: string[],
  accept: string): string {
  const text: string = match[0]
  if (accept === 'card' && !isCard(text)) return text
  if (accept === 'phone' && !isPhone(text)) return text
  for (const name of groups) {
    const span = match.indices.groups?.[name]
    if (!span) continue
    const [start, end] = [span[0] - match.index, span[1] - match.index]
    return text.slice(0, start) + label + text.slice(end)
  }
  return label
}""",
    "digitsOf": """function digitsOf(text: string): number[] {
  // Each decimal digit of any script, as its value (Unicode keeps 0-9 in runs of ten).
  const digit = /\\p{Nd}/u
  return [...text].filter((c) => digit.test(c)).map((c) => {
    let start = c.codePointAt(0)!
    while (start > 0 && digit.test(String.fromCodePoint(start - 1))) start--
    return (c.codePointAt(0)! - start) % 10
  })
}""",
    "isCard": """function isCard(text: string): boolean {
  const digits = digitsOf(text)
  const first = [...text].find((c) => /\\p{Nd}/u.test(c)) ?? ''
  if (digits.length < 13 || digits.length > 19 || !'23456'.includes(first)) return false
  const total = digits.reverse().reduce((sum, value, position) =>
    sum + (position % 2 === 1 ? (value > 4 ? value * 2 - 9 : value * 2) : value), 0)
  return total % 10 === 0
}""",
    "isPhone": """function isPhone(text: string): boolean {
  const count = digitsOf(text).length
  return count >= 8 && count <= 15
}""",
    "truncateText": """function truncateText(text: string, budget: number, tokens: boolean,
  marker: string, keep: string): string {
  const chars = [...text]
  const mark = [...marker]
  const fits = (t: string[]) => (tokens ? Math.ceil(t.length / 4) : t.length) <= budget
  if (fits(chars)) return text
  const end = chars.length
  const cut = (kept: number): string[] => {
    if (keep === 'head') return [...chars.slice(0, kept), ...mark]
    if (keep === 'tail') return [...mark, ...chars.slice(end - kept)]
    const head = Math.floor((kept + 1) / 2)
    return [...chars.slice(0, head), ...mark, ...chars.slice(end - (kept - head))]
  }
  let [low, high] = [0, end - 1]
  while (low < high) {
    const middle = Math.floor((low + high + 1) / 2)
    if (fits(cut(middle))) low = middle
    else high = middle - 1
  }
  return cut(low).join('')
}""",
}

PROCESSOR_NEEDS: dict[str, tuple[str, ...]] = {
    "redactText": ("redactMatch",),
    "redactMatch": ("isCard", "isPhone"),
    "isCard": ("digitsOf",),
    "isPhone": ("digitsOf",),
}


@dataclass(frozen=True)
class InputProcessors:
    """What a step's judge does to its messages before sending them."""

    redact: RedactPIISpec | None
    truncate: TruncateSpec | None

    def instructions(self, text: str | None) -> str | None:
        """The instructions as the judge receives them (masked; never shortened)."""
        if self.redact is None or not text:
            return text
        r = self.redact
        return RedactPII(
            r.patterns,
            replacement=r.replacement,
            include_defaults=r.include_defaults,
            kinds=r.kinds,
        ).redact(text)

    def prompt(self, code: str) -> tuple[str, set[str]]:
        """``code`` (the prompt's TypeScript) wrapped as the judge receives it, and helpers."""
        used: set[str] = set()
        if self.redact is not None:
            rules = json.dumps(_rules(self.redact), ensure_ascii=False)
            replacement = json.dumps(self.redact.replacement, ensure_ascii=False)
            code = f"redactText({code}, {rules}, {replacement})"
            used.add("redactText")
        t = self.truncate
        if t is not None:
            budget, tokens = (t.max_chars, "false") if t.max_chars else (t.max_tokens, "true")
            marker = json.dumps(t.marker, ensure_ascii=False)
            code = f"truncateText({code}, {budget}, {tokens}, {marker}, {json.dumps(t.keep)})"
            used.add("truncateText")
        return code, used


def input_processors(scorer: JudgeSpec | None, step: JudgeSpec | None) -> InputProcessors:
    """A step that sets ``redact_pii`` or ``truncate`` runs only its own; else the scorer's."""
    for judge in (step, scorer):
        if judge is not None and (judge.redact_pii is not None or judge.truncate is not None):
            return InputProcessors(judge.redact_pii, judge.truncate)
    return InputProcessors(None, None)


def _rules(redact: RedactPIISpec) -> list[list[str]]:
    """[name, JavaScript source, groups kept, check] for each rule, in the order Python applies."""
    chosen = set(redact.kinds or ("email", "phone", "card", "api_key"))
    custom = {name: re.compile(regex) for name, regex in redact.patterns.items()}
    rules: list[list[str]] = []
    for rule in _DEFAULT_RULES:
        if not redact.include_defaults or rule.name not in chosen:
            continue
        if rule.name in custom:
            rules.append(_custom(rule.name, custom.pop(rule.name)))
        else:
            groups = "redact,redact_value" if rule.pattern is KEY_SHAPES else ""
            check = rule.name if rule.accept is not None else ""
            rules.append([rule.name, js_regex(rule.pattern.pattern), groups, check])
    rules.extend(_custom(name, pattern) for name, pattern in custom.items())
    return rules


def _custom(name: str, pattern: re.Pattern[str]) -> list[str]:
    groups = "redact" if "redact" in pattern.groupindex else ""
    return [name, js_regex(pattern.pattern), groups, ""]


def output_guard(guard: OutputGuardSpec, scorer_id: str, step: str) -> str:
    """A Mastra output processor throwing the studio's message when an answer is blocked."""
    checks = []
    for pattern in guard.patterns:
        source = json.dumps(js_regex(pattern, ignore_case=True), ensure_ascii=False)
        checks.append(f"[{source}, {json.dumps(_explain(guard, pattern, scorer_id, step))}]")
    return (
        "[{ id: 'output-guard', processOutputStep: ({ text, messages }: any) => {\n"
        f"    for (const [source, message] of [{', '.join(checks)}]) {{\n"
        "      if (new RegExp(source, 'u').test(text ?? '')) throw new Error(message)\n"
        "    }\n"
        "    return messages\n"
        "  } }]"
    )


def _explain(guard: OutputGuardSpec, pattern: str, scorer_id: str, step: str) -> str:
    if guard.message is None:
        return (
            f"OutputGuard rejected the judge's answer for scorer {scorer_id!r} "
            f"(step {step}): it matches the blocked pattern {pattern!r}. Adjust "
            "the judge instructions so answers avoid this content, or remove the pattern "
            "from OutputGuard if it is too broad."
        )
    if "{pattern}" in guard.message:
        return guard.message.replace("{pattern}", repr(pattern))
    return f"{guard.message} (blocked pattern: {pattern!r})"
