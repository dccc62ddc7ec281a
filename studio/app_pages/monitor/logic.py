"""The Monitor page's Streamlit-free parts: the rules table, the newest scores table, and
reading the "Add a rule" form into what the run-start service takes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scorer_runtime.costs.cap import read_cap
from scorer_runtime.money import format_dollars
from scorer_runtime.runs import rule_status_words
from scorer_runtime.store.views import RuleLine, RuleScoreLine
from scorer_runtime.traces.rules import RuleFilter, filters_words, parse_filters


def rule_rows(lines: Sequence[RuleLine]) -> list[dict[str, Any]]:
    """One row per rule: what it scores, with what, its cap and what it did today."""
    rows = []
    for line in lines:
        rule, today = line.rule, line.today
        share = "every trace" if rule.sample is None else f"{rule.sample:.0%} of traces"
        cap = rule.max_cost_per_day
        rows.append(
            {
                "Rule": rule.id,
                "Scorer": f"{rule.scorer_name} v{rule.version}",
                "Takes": filters_words(rule.filters),
                "Sample": share,
                "Daily cap": "none" if cap is None else format_dollars(cap),
                "Scored today": today.scored,
                "Spent today": format_dollars(today.spent),
                "Status": rule_status_words(rule, today),
            }
        )
    return rows


def score_rows(lines: Sequence[RuleScoreLine]) -> list[dict[str, Any]]:
    """One row per score, newest first."""
    return [
        {
            "Rule": s.rule_id,
            "Scorer": s.scorer_name,
            "Trace": s.trace_id,
            "Score": s.score,
            "Outcome": s.outcome.replace("_", " "),
            "Why": s.reason or "",
            "When (UTC)": s.created_at.strftime("%Y-%m-%d %H:%M:%S"),
        }
        for s in lines
    ]


@dataclass(frozen=True, slots=True)
class RuleForm:
    """What the "Add a rule" form asks for, read and checked."""

    filters: list[RuleFilter]
    sample: float | None
    max_cost_per_day: float | None


def read_rule_form(filters_text: str, sample_percent: float, cap_text: str) -> RuleForm:
    """The form's fields: one ``KEY=VALUE`` per line (blank lines ignored), the share of
    traces in percent (100: every trace), the daily cap in dollars (empty: none). Raises
    ValueError in words for a filter or a cap that cannot be read."""
    lines = [line for line in filters_text.splitlines() if line.strip()]
    filters = parse_filters(lines)
    if not 0 < sample_percent <= 100:
        raise ValueError("the share of traces must be above 0 % and at most 100 %")
    sample = None if sample_percent >= 100 else sample_percent / 100
    return RuleForm(filters, sample, read_cap(cap_text))
