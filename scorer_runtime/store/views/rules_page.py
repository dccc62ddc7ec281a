"""The Monitor page's reads: each scoring rule with what it scored and spent today, the
newest scores the rules stored, the newest drift alerts, and a rule's scores by window."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, select
from sqlmodel import Session, col

from scorer_runtime.store.rule_alerts import AlertInfo, list_alerts, rule_score_points
from scorer_runtime.store.rule_tables import RuleTraceRecord, ScoringRuleRecord
from scorer_runtime.store.rules import DaySpend, RuleInfo, day_spend, get_rule, list_rules
from scorer_runtime.store.tables import ScoreRecord, ScorerRecord
from scorer_runtime.store.trust import graded_scale
from scorer_runtime.trust.drift import Measure, Period, by_window


@dataclass(frozen=True, slots=True)
class RuleLine:
    """A rule and what it did today (UTC)."""

    rule: RuleInfo
    today: DaySpend


def rule_lines(session: Session) -> list[RuleLine]:
    """Every rule, oldest first, with today's counts."""
    return [RuleLine(r, day_spend(session, rule_id=r.id)) for r in list_rules(session)]


@dataclass(frozen=True, slots=True)
class RuleScoreLine:
    """One score a rule stored."""

    rule_id: int
    scorer_id: int
    scorer_name: str
    trace_id: str
    score: float | None
    outcome: str
    reason: str | None
    created_at: datetime


def newest_rule_scores(session: Session, *, limit: int = 20) -> list[RuleScoreLine]:
    """The newest scores the rules stored, newest first."""
    query = (
        select(
            col(RuleTraceRecord.rule_id),
            col(ScorerRecord.id),
            col(ScorerRecord.name),
            col(ScoreRecord.trace_id),
            col(ScoreRecord.score),
            col(ScoreRecord.outcome),
            col(ScoreRecord.reason),
            col(ScoreRecord.created_at),
        )
        .join(ScoringRuleRecord, col(ScoringRuleRecord.id) == col(RuleTraceRecord.rule_id))
        .join(
            ScoreRecord,
            and_(
                col(ScoreRecord.trace_id) == col(RuleTraceRecord.trace_id),
                col(ScoreRecord.scorer_version_id) == col(ScoringRuleRecord.scorer_version_id),
            ),
        )
        .join(ScorerRecord, col(ScorerRecord.id) == col(ScoringRuleRecord.scorer_id))
        .where(col(RuleTraceRecord.done))
        .order_by(col(ScoreRecord.id).desc())
        .limit(limit)
    )
    return [RuleScoreLine(*row) for row in session.execute(query).all()]


def newest_alerts(session: Session, *, limit: int = 20) -> list[AlertInfo]:
    """The newest drift alerts of every rule, newest window first."""
    return list_alerts(session, limit=limit)


@dataclass(frozen=True, slots=True)
class RuleWindow:
    """One window of a rule's scores, by when their traces ran."""

    start: datetime
    n: int
    value: float
    """The window's mean score, or its pass rate (see :attr:`RuleWindows.measure`)."""
    alert: bool
    """An alert was raised in this window."""


@dataclass(frozen=True, slots=True)
class RuleWindows:
    """A rule's recent windows: what they measure and each window's value."""

    rule: RuleInfo
    period: Period
    measure: Measure
    pass_mark: float
    windows: list[RuleWindow]


def rule_windows(
    session: Session, *, rule_id: int, count: int = 24, now: datetime | None = None
) -> RuleWindows:
    """The rule's last ``count`` windows that hold scores: by its alerts' period and measure,
    else by the hour and the mean score."""
    rule = get_rule(session, rule_id=rule_id)
    period: Period = rule.alerts.period if rule.alerts else "hour"
    measure: Measure = rule.alerts.measure if rule.alerts else "mean"
    pass_mark = graded_scale(session, scorer_version_id=rule.scorer_version_id).pass_mark
    length = timedelta(hours=1) if period == "hour" else timedelta(days=1)
    since = (now or datetime.now(UTC)) - count * length
    points = rule_score_points(session, rule=rule, since=since)
    alerted = {
        a.window_start
        for a in list_alerts(session, rule_id=rule_id, limit=count * 2)
        if a.period == period and a.measure == measure
    }
    windows = [
        RuleWindow(
            start,
            len(scores),
            _measured(scores, measure, pass_mark),
            start in alerted,
        )
        for start, scores in by_window(points, period).items()
    ]
    return RuleWindows(rule, period, measure, pass_mark, windows)


def _measured(scores: list[float], measure: Measure, pass_mark: float) -> float:
    if measure == "pass_rate":
        return sum(s >= pass_mark for s in scores) / len(scores)
    return sum(scores) / len(scores)
