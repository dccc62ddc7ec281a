"""The built-in steps as the studio lists them: plain-language titles, descriptions, uses.

An immutable tuple, not a registry: :func:`scorer_runtime.spec.registry.default_registry`
puts these entries into a fresh registry each time it is called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel

from scorer_runtime.spec.builtins import (
    agent_checks,
    combine,
    json_checks,
    labels,
    matching,
    measures,
    similarity,
)
from scorer_runtime.spec.registry import StepEntry, StepUse

_CHECK: frozenset[StepUse] = frozenset({"analyze", "generate_score"})
_DATA: frozenset[StepUse] = frozenset({"preprocess", "analyze"})
_COMBINE: frozenset[StepUse] = frozenset({"generate_score", "calculate_score"})
_LABEL: frozenset[StepUse] = frozenset({"analyze", "generate_score", "calculate_score"})
_LABEL_OR_REASON: frozenset[StepUse] = _COMBINE | {"generate_reason"}


def _entry(
    factory: Callable[..., Any],
    model: type[BaseModel],
    *,
    title: str,
    description: str,
    suits: frozenset[StepUse],
    category: str,
    sample: dict[str, Any],
    typescript: bool,
    verdict: Literal["pass_fail", "number"] = "number",
    expected: Literal["text", "tools"] = "text",
) -> StepEntry:
    """A built-in's entry: every fact about it (see :class:`StepEntry`) in one place; a
    built-in has a sample and says whether it has a TypeScript form."""
    return StepEntry(
        factory.__name__,
        title,
        description,
        suits,
        model,
        factory,
        category,
        verdict=verdict,
        expected=expected,
        typescript=typescript,
        sample=sample,
    )


BUILTIN_ENTRIES: tuple[StepEntry, ...] = (
    # -- Text ------------------------------------------------------------------------------
    _entry(
        matching.contains,
        matching.ContainsParams,
        title="Check the answer contains certain words",
        description="Gives 1 when the answer mentions any (or all) of the words you list, "
        "else 0. Example: the answer must mention 'refund'.",
        suits=_CHECK,
        category="Text",
        sample={"values": ["refund", "30 days"], "mode": "all"},
        verdict="pass_fail",
        typescript=True,
    ),
    _entry(
        matching.excludes,
        matching.ExcludesParams,
        title="Check the answer avoids certain words",
        description="Gives 1 when none of the words you list appear in the answer, else 0. "
        "Example: the answer must not say 'calm down' or 'obviously'.",
        suits=_CHECK,
        category="Text",
        sample={"values": ["calm down"]},
        verdict="pass_fail",
        typescript=True,
    ),
    _entry(
        matching.keyword_coverage,
        matching.KeywordCoverageParams,
        title="Check the answer mentions keywords",
        description="Gives the share of your keywords that the answer mentions, from 0 to 1. "
        "Example: keywords 'refund', '14 days', 'receipt' and an answer naming two gives 0.67.",
        suits=_CHECK,
        category="Text",
        sample={"keywords": ["refund", "days"], "whole_words": True},
        typescript=True,
    ),
    _entry(
        matching.regex_match,
        matching.RegexMatchParams,
        title="Check the answer matches a pattern",
        description="Gives 1 when the answer matches a regular expression, else 0. Example: "
        r"'\d+ (business )?days' checks that a delay is stated.",
        suits=_CHECK,
        category="Text",
        sample={"pattern": "\\d+ days", "ignore_case": True},
        verdict="pass_fail",
        typescript=True,
    ),
    _entry(
        measures.length_bounds,
        measures.LengthBoundsParams,
        title="Check the answer's length",
        description="Gives 1 when the answer is between a minimum and a maximum number of "
        "words (or characters), else 0, or partial credit with soft scoring. Example: "
        "between 20 and 150 words.",
        suits=_CHECK,
        category="Text",
        sample={"min": 20, "max": 150, "scoring": "soft"},
        verdict="pass_fail",
        typescript=True,
    ),
    # -- Compare with the expected answer ----------------------------------------------------
    _entry(
        matching.exact_match,
        matching.ExactMatchParams,
        title="Compare with the expected answer exactly",
        description="Gives 1 when the answer is exactly the expected answer (spaces at the "
        "ends ignored), else 0. Example: the expected category 'billing'.",
        suits=_CHECK,
        category="Compare",
        sample={"expected": ["yes", "y"], "case_sensitive": False},
        verdict="pass_fail",
        typescript=True,
    ),
    _entry(
        similarity.text_similarity,
        similarity.TextSimilarityParams,
        title="Measure how similar the answer is to the expected one",
        description="Gives a likeness from 0 to 1 between the answer and the expected answer, "
        "forgiving small wording changes. Example: 'Paris is the capital' vs 'The capital "
        "is Paris' scores high with word-order-free comparison.",
        suits=_CHECK,
        category="Compare",
        sample={"method": "token_set_ratio"},
        typescript=False,
    ),
    _entry(
        similarity.text_difference,
        similarity.TextDifferenceParams,
        title="List the differences from the expected answer",
        description="Gives the changed, added and removed words between the expected answer "
        "and the answer, and a distance from 0 (same) to 1, for a later step or a prompt "
        "to use. Example: '14 days' expected, '30 days' written: one replaced word.",
        suits=_DATA,
        category="Compare",
        sample={"unit": "characters", "max_changes": 10},
        typescript=False,
    ),
    _entry(
        measures.numeric_closeness,
        measures.NumericClosenessParams,
        title="Check a number is close to the expected one",
        description="Reads the number in the answer and gives 1 when it is within your "
        "tolerance of the expected number, else 0 or partial credit. Example: expected 42, "
        "tolerance 5%: 'about 41 days' scores 1.",
        suits=_CHECK,
        category="Compare",
        sample={"rel_tolerance": 0.05, "soft_margin": 2.5},
        typescript=True,
    ),
    # -- JSON --------------------------------------------------------------------------------
    _entry(
        json_checks.json_valid,
        json_checks.JsonValidParams,
        title="Check the answer is valid JSON",
        description="Gives 1 when the answer is well-formed JSON (optionally an object or a "
        'list), else 0. Example: {"status": "ok"} passes, {status: ok} does not.',
        suits=_CHECK,
        category="JSON",
        sample={"expect": "object"},
        verdict="pass_fail",
        typescript=True,
    ),
    _entry(
        json_checks.json_schema_valid,
        json_checks.JsonSchemaValidParams,
        title="Check the answer's JSON has the right shape",
        description="Gives 1 when the answer is JSON matching a JSON Schema, else 0. "
        "Example: an object that must have a text 'answer' and a number 'confidence'.",
        suits=_CHECK,
        category="JSON",
        sample={"json_schema": {"type": "object", "required": ["answer"]}},
        verdict="pass_fail",
        typescript=True,
    ),
    # -- Agent -------------------------------------------------------------------------------
    _entry(
        agent_checks.tool_called,
        agent_checks.ToolCalledParams,
        title="Check the agent used a tool",
        description="Gives 1 when the agent called the tool you name, else 0. Example: it "
        "must call 'lookup_order' before answering about an order.",
        suits=_CHECK,
        category="Agent",
        sample={"tool": "lookup_order", "min_times": 2},
        typescript=True,
    ),
    _entry(
        agent_checks.tool_not_called,
        agent_checks.ToolNotCalledParams,
        title="Check the agent avoided tools",
        description="Gives 1 when the agent called none of the tools you list, else 0. "
        "Example: it must never call 'delete_account'.",
        suits=_CHECK,
        category="Agent",
        sample={"tools": ["delete_account"]},
        typescript=True,
    ),
    _entry(
        agent_checks.tool_order,
        agent_checks.ToolOrderParams,
        title="Check the agent used tools in the right order",
        description="Gives 1 when the agent called the expected tools in order (exactly, or "
        "with other calls in between), else 0. Example: 'lookup_order' then 'issue_refund'.",
        suits=_CHECK,
        category="Agent",
        sample={"expected": ["lookup_order", "issue_refund"], "mode": "strict"},
        expected="tools",
        typescript=True,
    ),
    _entry(
        agent_checks.max_tool_calls,
        agent_checks.MaxToolCallsParams,
        title="Limit the number of tool calls",
        description="Gives 1 when the agent made no more tool calls than allowed, else 0. "
        "Example: at most 3 calls of 'search_docs'.",
        suits=_CHECK,
        category="Agent",
        sample={"max_calls": 3, "tool": "search_docs"},
        typescript=True,
    ),
    _entry(
        agent_checks.no_tool_errors,
        agent_checks.NoToolErrorsParams,
        title="Check no tool call failed",
        description="Gives 1 when no tool came back with an error, else 0 (or the share of "
        "tool calls that worked). Example: a tool answering {'error': 'timeout'} fails it.",
        suits=_CHECK,
        category="Agent",
        sample={"scoring": "fraction"},
        typescript=True,
    ),
    # -- Combine -----------------------------------------------------------------------------
    _entry(
        combine.weighted_average,
        combine.WeightedAverageParams,
        title="Combine several scores with weights",
        description="Gives the weighted average of numbers an earlier step produced. "
        "Example: relevance counts 70% and tone 30%.",
        suits=_COMBINE,
        category="Combine",
        sample={"weights": {"relevance": 0.7, "tone": 0.3}},
        typescript=True,
    ),
    _entry(
        combine.threshold,
        combine.ThresholdParams,
        title="Turn a score into pass or fail",
        description="Gives 1 (or a label like 'pass') when a number reaches your threshold, "
        "else 0 (or 'fail'). Example: a similarity of 0.8 or more passes.",
        suits=_LABEL_OR_REASON,
        category="Combine",
        sample={"field": "score", "threshold": 0.7, "pass_value": "pass", "fail_value": "fail"},
        verdict="pass_fail",
        typescript=True,
    ),
    _entry(
        combine.clamp,
        combine.ClampParams,
        title="Keep a score within limits",
        description="Gives the number, but never below the minimum or above the maximum. "
        "Example: a judge's 1.2 becomes 1.0.",
        suits=_COMBINE,
        category="Combine",
        sample={"field": "judge_output.score", "min": 0.0, "max": 5.0},
        typescript=True,
    ),
    # -- Judge labels ------------------------------------------------------------------------
    _entry(
        labels.label_to_score,
        labels.LabelToScoreParams,
        title="Turn the judge's label into a score",
        description="Gives the score you set for each label the judge may answer. Example: "
        "yes → 1, partly → 0.5, no → 0.",
        suits=_LABEL,
        category="Judge labels",
        sample={"mapping": {"yes": 1.0, "partial": 0.5, "no": 0.0}, "default": 0.0},
        typescript=True,
    ),
    _entry(
        labels.proportion,
        labels.ProportionParams,
        title="Share of the judge's verdicts that agree",
        description="Gives the fraction of items in a list with a given value. Example: the "
        "judge gave a verdict per statement; 3 of 4 verdicts 'yes' gives 0.75.",
        suits=_LABEL,
        category="Judge labels",
        sample={"equals": ["yes", "partly"], "if_empty": 1.0},
        typescript=True,
    ),
)
"""Every built-in step, grouped by category in the order the studio shows them."""


def builtin_names(*, verdict: str | None = None, expected: str | None = None) -> frozenset[str]:
    """The names of the built-ins with a given ``verdict`` scale or ``expected`` kind."""
    return frozenset(
        entry.name
        for entry in BUILTIN_ENTRIES
        if (verdict is None or entry.verdict == verdict)
        and (expected is None or entry.expected == expected)
    )
