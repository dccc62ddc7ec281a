"""exact_match, regex_match, keyword_coverage, numeric_closeness and clamp agree in Mastra."""

from __future__ import annotations

import re
from typing import Any

import pytest

from scorer_runtime.spec import compile_spec, load_spec
from scorer_runtime.spec.mastra import MastraExportError, export_mastra
from scorer_runtime.spec.mastra.formula_ts import Untranslatable
from scorer_runtime.spec.mastra.regex_ts import js_regex

REASON = "str(step1) + ' ' + str(step2) + ' ' + str(step3)"

MATCHING = {
    "id": "matching-edges",
    "description": "Exact, keyword and number checks on awkward text.",
    "steps": [
        {"step": "preprocess", "use": "exact_match", "with": {"case_sensitive": False}},
        {
            "step": "analyze",
            "use": "keyword_coverage",
            "with": {
                "keywords": ["Refund", "refund", "14 days", "café", "sk"],
                "whole_words": True,
            },
        },
        {
            "step": "generate_score",
            "use": "numeric_closeness",
            "with": {"rel_tolerance": 0.05, "soft_margin": 10, "number_in_text": "last"},
        },
        {
            "step": "generate_reason",
            "formula": REASON + " + ' ' + str(words(output)) + ' ' + lower(strip(output)) + ' '"
            " + str(output.strip().upper().startswith('REFUND'))"
            " + ('x' if output.endswith('.') else 'y')"
            " + str(abs(-step3)) + str(abs(-2))",
        },
    ],
}

REGEX = {
    "id": "regex-edges",
    "description": "A Python regular expression and a clamp.",
    "steps": [
        {
            "step": "preprocess",
            "use": "regex_match",
            "with": {"pattern": r"^\w+ (?P<n>\d{1,3})\b.$", "multiline": True},
        },
        {
            "step": "analyze",
            "use": "regex_match",
            "with": {
                "pattern": r"a.c|x{,2}y|\bé\B.|[h-j]+",
                "whole_text": True,
                "ignore_case": True,
            },
        },
        {
            "step": "generate_score",
            "use": "clamp",
            "with": {"field": "ground_truth", "min": 0.25, "max": 0.75},
        },
        {"step": "generate_reason", "formula": REASON},
    ],
}

MATCHING_EXAMPLES: list[dict[str, Any]] = [
    {"output": "  The  Strasse costs 12.", "ground_truth": "the straße COSTS 12."},
    {"output": "Refund in 14 days, 1,234.5", "ground_truth": "It is 1,200"},
    {"output": "refunds in 14 days: 100", "ground_truth": "105"},
    {"output": "café? cafe\u0301 no number", "ground_truth": 7},
    {"output": "the answer", "ground_truth": None},  # not scorable
    {"output": "1000 REFİND, ſK", "ground_truth": "1_000"},
    {"output": "It costs 112", "ground_truth": "100"},
    {"output": "-3e2 and .5", "ground_truth": "no digits here"},  # not scorable
]

REGEX_EXAMPLES: list[dict[str, Any]] = [
    {"output": "x\nhello 42!\n", "ground_truth": 0.9},
    {"output": "ABC", "ground_truth": "0.1"},
    {"output": "a\nc", "ground_truth": True},
    {"output": "xxy\n", "ground_truth": -2},
    {"output": "é1", "ground_truth": 0.5},
    {"output": "ÉÉ", "ground_truth": "1,5"},
    {"output": "word ٣٤!\n", "ground_truth": 0},
    {"output": "a\u2028c", "ground_truth": 0.3},
    {"output": "İıI", "ground_truth": 0.6},
]


def _python(spec: Any, examples: list[dict[str, Any]]) -> list[Any]:
    scorer = compile_spec(spec)
    out = []
    for example in examples:
        result = scorer.run_sync(**example)
        reason = result.not_scorable.reason if result.not_scorable else None
        out.append((result.score, result.reason, reason))
    return out


def test_matching_checks_agree_in_one_node_run(mastra_node: Any) -> None:
    specs = [load_spec(MATCHING), load_spec(REGEX)]
    runs = [(specs[0], MATCHING_EXAMPLES), (specs[1], REGEX_EXAMPLES)]
    got = mastra_node.score_many(
        [(export_mastra(spec).text, spec.id, examples) for spec, examples in runs]
    )
    for (spec, examples), results in zip(runs, got, strict=True):
        expected = _python(spec, examples)
        mine = [(g.get("score"), g.get("reason"), g.get("notScorable")) for g in results]
        assert [g.get("error") for g in results] == [None] * len(examples), results
        assert [m[1:] for m in mine] == [e[1:] for e in expected]
        scores = [m[0] for m in mine]
        assert scores == pytest.approx([e[0] for e in expected], abs=1e-9)
    reasons = {e[1] for e in _python(specs[1], REGEX_EXAMPLES)}
    assert len(reasons) >= 4  # the examples tell the patterns apart


@pytest.mark.parametrize(
    "pattern",
    [r"(?i)refund", r"(?>a+)b", r"a++", r"a\0", r"[\D]", r"(a)?(?(1)b|c)", r"(?#note)x"],
)
def test_a_pattern_read_differently_in_javascript_is_refused_by_name(pattern: str) -> None:
    with pytest.raises(Untranslatable, match=re.escape(repr(pattern))):
        js_regex(pattern)
    spec = {
        "id": "odd-regex",
        "description": "d",
        "steps": [{"step": "generate_score", "use": "regex_match", "with": {"pattern": pattern}}],
    }
    with pytest.raises(MastraExportError, match=re.escape(repr(pattern))):
        export_mastra(load_spec(spec))
