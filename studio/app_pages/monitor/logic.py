"""The Monitor page's Streamlit-free parts: the rules table, the alerts and newest scores
tables, and reading the "Add a rule" form into what the run-start service takes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorer_runtime.costs.cap import read_cap
from scorer_runtime.money import format_dollars
from scorer_runtime.runs import rule_status_words
from scorer_runtime.store import AlertInfo, RuleInfo
from scorer_runtime.store.views import RuleLine, RuleScoreLine
from scorer_runtime.traces.rules import RuleFilter, filters_words, parse_filters
from scorer_runtime.trust.drift import AlertSettings, alert_settings

PERIOD_WORDS = {"hour": "Hour", "day": "Day"}
MEASURE_WORDS = {"mean": "Mean score", "pass_rate": "Pass rate"}


def rule_title(rule: RuleInfo, titles: Mapping[int, str]) -> str:
    """The rule as a person names it: "Rule 3 (Support style guide v2)"."""
    return f"Rule {rule.id} ({titles.get(rule.scorer_id, rule.scorer_name)} v{rule.version})"


def rule_rows(lines: Sequence[RuleLine], titles: Mapping[int, str]) -> list[dict[str, Any]]:
    """One row per rule: what it scores, with what, its cap and what it did today."""
    rows = []
    for line in lines:
        rule, today = line.rule, line.today
        share = "every trace" if rule.sample is None else f"{rule.sample:.0%} of traces"
        cap = rule.max_cost_per_day
        rows.append(
            {
                "Rule": rule.id,
                "Scorer": f"{titles.get(rule.scorer_id, rule.scorer_name)} v{rule.version}",
                "Takes": filters_words(rule.filters),
                "Sample": share,
                "Daily cap": "none" if cap is None else format_dollars(cap),
                "Scored today": today.scored,
                "Spent today": format_dollars(today.spent),
                "Alerts": rule_alert_words(rule),
                "Status": rule_status_words(rule, today),
            }
        )
    return rows


def rule_alert_words(rule: RuleInfo) -> str:
    """What a rule's drift alerts watch, in a few words ("none" when it has none)."""
    alerts = rule.alerts
    if alerts is None:
        return "none"
    what = MEASURE_WORDS[alerts.measure].lower()
    words = f"{what} drops by {alerts.drop:g}+ from one {alerts.period} to the next"
    return f"{words}, sent to ${alerts.webhook_env}" if alerts.webhook_env else words


def alert_rows(alerts: Sequence[AlertInfo]) -> list[dict[str, Any]]:
    """One row per alert, newest window first."""
    return [
        {
            "Rule": a.rule_id,
            "Window (UTC)": a.window_start.strftime("%Y-%m-%d %H:%M"),
            "What happened": a.words,
            "Message": a.delivery,
        }
        for a in alerts
    ]


def score_rows(lines: Sequence[RuleScoreLine], titles: Mapping[int, str]) -> list[dict[str, Any]]:
    """One row per score, newest first."""
    return [
        {
            "Rule": s.rule_id,
            "Scorer": titles.get(s.scorer_id, s.scorer_name),
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
    alerts: AlertSettings | None = None


@dataclass(frozen=True, slots=True)
class AlertFields:
    """The "Alerts" part of the form as typed: a drop of 0 asks for no alerts."""

    drop: float = 0.0
    period: str = "hour"
    measure: str = "mean"
    webhook_env: str = ""


def read_rule_form(
    filters_text: str, sample_percent: float, cap_text: str, alerts: AlertFields | None = None
) -> RuleForm:
    """The form's fields: one ``KEY=VALUE`` per line (blank lines ignored), the share of
    traces in percent (100: every trace), the daily cap in dollars (empty: none), the alerts
    (a drop of 0: none). Raises ValueError in words for a field that cannot be read."""
    lines = [line for line in filters_text.splitlines() if line.strip()]
    filters = parse_filters(lines)
    if not 0 < sample_percent <= 100:
        raise ValueError("the share of traces must be above 0 % and at most 100 %")
    sample = None if sample_percent >= 100 else sample_percent / 100
    return RuleForm(filters, sample, read_cap(cap_text), read_alerts(alerts or AlertFields()))


def read_alerts(fields: AlertFields) -> AlertSettings | None:
    """The alerts asked for (None for a drop of 0); ValueError in words."""
    if fields.drop <= 0:
        if fields.webhook_env.strip():
            raise ValueError(
                "a webhook sends alerts: set the drop worth an alert above 0, or leave the "
                "webhook empty"
            )
        return None
    return alert_settings(fields.period, fields.measure, fields.drop, fields.webhook_env)
