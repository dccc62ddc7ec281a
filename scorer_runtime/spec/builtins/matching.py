"""Text checks: exact match, contains / excludes, regex match, keyword coverage."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, field_validator

from scorer_runtime.results import NotScorable, not_scorable
from scorer_runtime.spec.builtins.base import BuiltinStep, FieldPath, StepParams, make_params
from scorer_runtime.spec.builtins.context_values import as_text, read_optional, read_text

MAX_PATTERN_LENGTH = 500
"""Longest regular expression accepted (long patterns are where catastrophic ones hide)."""

Term = Annotated[str, StringConstraints(min_length=1, max_length=500)]

_FIELD = Field("output", description="The text to check: usually the answer.")
_CASE = Field(False, description="Tell upper and lower case apart ('Refund' ≠ 'refund').")
_WORDS = Field(False, description="Match whole words only ('art' does not match inside 'party').")


def _patterns(terms: list[str], case_sensitive: bool, whole_words: bool) -> list[re.Pattern[str]]:
    """One compiled search per term (compiled once, when the step is built)."""
    flags = 0 if case_sensitive else re.IGNORECASE
    # (?<!\w) / (?!\w) rather than \b: also right for terms that start or end in punctuation.
    wrap = (lambda t: rf"(?<!\w){t}(?!\w)") if whole_words else (lambda t: t)
    return [re.compile(wrap(re.escape(t)), flags) for t in terms]


def _present(patterns: list[re.Pattern[str]], text: str) -> list[bool]:
    return [pattern.search(text) is not None for pattern in patterns]


# -- exact match ----------------------------------------------------------------------------


class ExactMatchParams(StepParams):
    """Parameters of :func:`exact_match`."""

    field: FieldPath = _FIELD
    expected: str | list[str] | None = Field(
        None,
        description="The expected text (or a list of accepted texts); when empty, the "
        "expected_field is read instead.",
    )
    expected_field: FieldPath = Field(
        "ground_truth", description="Where the expected text is when 'expected' is not given."
    )
    case_sensitive: bool = Field(True, description="Tell upper and lower case apart.")
    ignore_whitespace: bool = Field(
        True, description="Ignore spaces at the ends and treat runs of spaces as one."
    )


def _normal(text: str, p: ExactMatchParams) -> str:
    if p.ignore_whitespace:
        text = " ".join(text.split())
    return text if p.case_sensitive else text.casefold()


def exact_match(**params: Any) -> BuiltinStep:
    """1 when the text equals the expected text (or one of them), else 0.

    With no expected text on the run (e.g. no ground truth) the run is not scorable.
    """
    p = make_params(ExactMatchParams, params, "exact_match")

    def apply(ctx: dict[str, Any]) -> float | NotScorable:
        expected = p.expected
        if expected is None:
            expected = read_optional(ctx, p.expected_field, "exact_match")
        if expected is None:
            return not_scorable(f"exact_match: there is no {p.expected_field} to compare with")
        accepted = expected if isinstance(expected, list) else [expected]
        wanted = {_normal(as_text(e, "exact_match", p.expected_field), p) for e in accepted}
        return 1.0 if _normal(read_text(ctx, p.field, "exact_match"), p) in wanted else 0.0

    return BuiltinStep("exact_match", p, apply)


# -- contains / excludes --------------------------------------------------------------------


class ContainsParams(StepParams):
    """Parameters of :func:`contains`."""

    values: list[Term] = Field(
        min_length=1, max_length=200, description="The texts to look for, e.g. ['refund']."
    )
    mode: Literal["any", "all"] = Field(
        "any", description="'any': one of them is enough; 'all': every one must appear."
    )
    field: FieldPath = _FIELD
    case_sensitive: bool = _CASE
    whole_words: bool = _WORDS


class ExcludesParams(ContainsParams):
    """Parameters of :func:`excludes`."""

    values: list[Term] = Field(
        min_length=1,
        max_length=200,
        description="The texts that must not appear, e.g. ['stupid', 'calm down'].",
    )
    mode: Literal["any", "all"] = Field(
        "all",
        description="'all': none of them may appear; 'any': passes when at least one is absent.",
    )


def contains(**params: Any) -> BuiltinStep:
    """1 when the text contains any (or all) of the values, else 0."""
    p = make_params(ContainsParams, params, "contains")
    patterns = _patterns(p.values, p.case_sensitive, p.whole_words)

    def apply(ctx: dict[str, Any]) -> float:
        found = _present(patterns, read_text(ctx, p.field, "contains"))
        return 1.0 if (any(found) if p.mode == "any" else all(found)) else 0.0

    return BuiltinStep("contains", p, apply)


def excludes(**params: Any) -> BuiltinStep:
    """1 when the text contains none of the values (``mode="all"``), else 0."""
    p = make_params(ExcludesParams, params, "excludes")
    patterns = _patterns(p.values, p.case_sensitive, p.whole_words)

    def apply(ctx: dict[str, Any]) -> float:
        found = _present(patterns, read_text(ctx, p.field, "excludes"))
        absent = [not f for f in found]
        return 1.0 if (all(absent) if p.mode == "all" else any(absent)) else 0.0

    return BuiltinStep("excludes", p, apply)


# -- regex ----------------------------------------------------------------------------------


class RegexMatchParams(StepParams):
    """Parameters of :func:`regex_match`."""

    pattern: str = Field(
        min_length=1,
        max_length=MAX_PATTERN_LENGTH,
        description=r"A regular expression, e.g. '\d+ days' or '^Dear '.",
    )
    field: FieldPath = _FIELD
    whole_text: bool = Field(
        False, description="The pattern must match the whole text, not just a part of it."
    )
    ignore_case: bool = Field(False, description="Tell no difference between upper and lower case.")
    multiline: bool = Field(False, description="'^' and '$' match at the start and end of lines.")
    dot_all: bool = Field(False, description="'.' matches line breaks too.")

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        try:
            re.compile(pattern)
        except re.error as error:
            raise ValueError(f"not a valid regular expression: {error}") from None
        return pattern


def regex_match(**params: Any) -> BuiltinStep:
    """1 when the regular expression matches the text, else 0 (compiled once)."""
    p = make_params(RegexMatchParams, params, "regex_match")
    flags = (
        (re.IGNORECASE if p.ignore_case else 0)
        | (re.MULTILINE if p.multiline else 0)
        | (re.DOTALL if p.dot_all else 0)
    )
    compiled = re.compile(p.pattern, flags)
    match = compiled.fullmatch if p.whole_text else compiled.search

    def apply(ctx: dict[str, Any]) -> float:
        return 1.0 if match(read_text(ctx, p.field, "regex_match")) else 0.0

    return BuiltinStep("regex_match", p, apply)


# -- keyword coverage -----------------------------------------------------------------------


class KeywordCoverageParams(StepParams):
    """Parameters of :func:`keyword_coverage`."""

    keywords: list[Term] = Field(
        min_length=1,
        max_length=200,
        description="The words or phrases the text should mention, e.g. ['refund', '14 days'].",
    )
    field: FieldPath = _FIELD
    case_sensitive: bool = _CASE
    whole_words: bool = _WORDS


def keyword_coverage(**params: Any) -> BuiltinStep:
    """The fraction of the keywords the text mentions (0..1); repeated keywords count once."""
    p = make_params(KeywordCoverageParams, params, "keyword_coverage")
    seen: dict[str, str] = {}
    for keyword in p.keywords:
        seen.setdefault(keyword if p.case_sensitive else keyword.casefold(), keyword)
    patterns = _patterns(list(seen.values()), p.case_sensitive, p.whole_words)

    def apply(ctx: dict[str, Any]) -> float:
        found = _present(patterns, read_text(ctx, p.field, "keyword_coverage"))
        return sum(found) / len(found)

    return BuiltinStep("keyword_coverage", p, apply)
