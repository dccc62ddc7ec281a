"""The Monitor page's reads: each scoring rule with what it scored and spent today, and the
newest scores the rules stored."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, select
from sqlmodel import Session, col

from scorer_runtime.store.rule_tables import RuleTraceRecord, ScoringRuleRecord
from scorer_runtime.store.rules import DaySpend, RuleInfo, day_spend, list_rules
from scorer_runtime.store.tables import ScoreRecord, ScorerRecord


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
