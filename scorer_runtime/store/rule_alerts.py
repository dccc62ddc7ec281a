"""Drift alerts of scoring rules in the store: the scores a rule's alerts read, the alerts
found (each stored once per rule and window), and sending each one once.

A rule's scores are read by when their trace ran (its first span's start, ``traces.started_at``),
not by when a runner scored it: a backlog scored late still falls in the window its traffic
belongs to. An alert row is unique by (rule, period, measure, window), so a drop found again by
the next check, or by a second runner, is never a second alert. Sending takes the row first
(:func:`take_unsent`: an ``UPDATE`` that only one runner wins), so two runners never POST one
alert twice; a failed send is tried again after :data:`RESEND_AFTER_S`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col

from scorer_runtime.store.rule_tables import RuleAlertRecord, RuleTraceRecord, ScoringRuleRecord
from scorer_runtime.store.rules import RuleInfo
from scorer_runtime.store.tables import ScoreRecord, TraceRecord, as_utc
from scorer_runtime.trust.drift import DriftReading, ScorePoint

RESEND_AFTER_S = 60.0
"""How long a taken alert that was not sent waits before a runner tries it again."""


@dataclass(frozen=True, slots=True)
class AlertInfo:
    """A stored drift alert of a rule."""

    id: int
    rule_id: int
    period: str
    measure: str
    window_start: datetime
    n: int
    value: float
    baseline_n: int
    baseline_value: float
    difference: float
    ci_low: float | None
    ci_high: float | None
    words: str
    created_at: datetime
    sent_at: datetime | None
    send_error: str | None
    webhook_env: str | None = None
    """The variable naming the webhook its rule POSTs alerts to (None: shown only)."""

    @property
    def delivery(self) -> str:
        """Whether its message went, in words."""
        if self.sent_at is not None:
            return f"sent {self.sent_at:%Y-%m-%d %H:%M} UTC"
        if self.webhook_env is None:
            return "shown here only (the rule names no webhook)"
        if self.send_error:
            return f"not sent yet: {self.send_error}"
        return "waiting for a runner to send it"

    def reading(self) -> DriftReading:
        """The reading the alert was found in."""
        return DriftReading(
            window=as_utc(self.window_start),
            n=self.n,
            value=self.value,
            baseline_n=self.baseline_n,
            baseline_value=self.baseline_value,
            difference=self.difference,
            ci_low=self.ci_low,
            ci_high=self.ci_high,
            alert=True,
            words=self.words,
        )


def _info(record: RuleAlertRecord, webhook_env: str | None = None) -> AlertInfo:
    assert record.id is not None
    return AlertInfo(
        id=record.id,
        rule_id=record.rule_id,
        period=record.period,
        measure=record.measure,
        window_start=as_utc(record.window_start),
        n=record.n,
        value=record.value,
        baseline_n=record.baseline_n,
        baseline_value=record.baseline_value,
        difference=record.difference,
        ci_low=record.ci_low,
        ci_high=record.ci_high,
        words=record.words,
        created_at=as_utc(record.created_at),
        sent_at=None if record.sent_at is None else as_utc(record.sent_at),
        send_error=record.send_error,
        webhook_env=webhook_env,
    )


def rule_score_points(session: Session, *, rule: RuleInfo, since: datetime) -> list[ScorePoint]:
    """The scores the rule stored on traces that ran at ``since`` or later, each at the time
    its trace ran, oldest first (scores that are no number, a failure, are left out)."""
    query = (
        select(col(TraceRecord.started_at), col(ScoreRecord.score))
        .join(RuleTraceRecord, col(RuleTraceRecord.trace_id) == col(TraceRecord.trace_id))
        .join(
            ScoreRecord,
            and_(
                col(ScoreRecord.trace_id) == col(RuleTraceRecord.trace_id),
                col(ScoreRecord.scorer_version_id) == rule.scorer_version_id,
            ),
        )
        .where(
            col(RuleTraceRecord.rule_id) == rule.id,
            col(RuleTraceRecord.done),
            col(ScoreRecord.score).is_not(None),
            col(TraceRecord.started_at) >= since,
        )
        .order_by(col(TraceRecord.started_at))
    )
    return [ScorePoint(as_utc(at), float(score)) for at, score in session.execute(query).all()]


def add_alerts(
    session: Session, *, rule: RuleInfo, readings: Sequence[DriftReading]
) -> list[AlertInfo]:
    """Store each alerting reading of ``readings`` as an alert of the rule, unless that window
    has one already; the alerts that are new."""
    assert rule.alerts is not None
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    new: list[AlertInfo] = []
    for reading in readings:
        if not reading.alert:
            continue
        values = dict(
            rule_id=rule.id,
            period=rule.alerts.period,
            measure=rule.alerts.measure,
            window_start=reading.window,
            n=reading.n,
            value=reading.value,
            baseline_n=reading.baseline_n,
            baseline_value=reading.baseline_value,
            difference=reading.difference,
            ci_low=reading.ci_low,
            ci_high=reading.ci_high,
            words=reading.words,
            created_at=datetime.now(UTC),
        )
        statement = insert(RuleAlertRecord).values(**values).on_conflict_do_nothing()
        made = session.execute(statement.returning(col(RuleAlertRecord.id))).scalar_one_or_none()
        if made is not None:
            record = session.get(RuleAlertRecord, made)
            assert record is not None
            new.append(_info(record))
    return new


def list_alerts(
    session: Session, *, rule_id: int | None = None, limit: int = 50
) -> list[AlertInfo]:
    """The newest alerts (of one rule, or of all), newest window first."""
    query = (
        select(RuleAlertRecord, col(ScoringRuleRecord.webhook_env))
        .join(ScoringRuleRecord, col(ScoringRuleRecord.id) == col(RuleAlertRecord.rule_id))
        .order_by(col(RuleAlertRecord.window_start).desc(), col(RuleAlertRecord.id).desc())
    )
    if rule_id is not None:
        query = query.where(col(RuleAlertRecord.rule_id) == rule_id)
    return [_info(r, env) for r, env in session.execute(query.limit(limit)).all()]


def take_unsent(
    session: Session, *, runner: str, limit: int = 20, resend_after_s: float = RESEND_AFTER_S
) -> list[tuple[AlertInfo, str]]:
    """Alerts to send now, each with the name of the variable holding its webhook's address:
    of rules that name one, not sent, and not being sent by a runner (or its try is older
    than ``resend_after_s``). Each is marked as this runner's in the same transaction."""
    now = datetime.now(UTC)
    stale = now - timedelta(seconds=resend_after_s)
    taken: list[tuple[AlertInfo, str]] = []
    for alert_id, env in session.execute(_unsent(stale).limit(limit)).all():
        won = session.execute(
            update(RuleAlertRecord)
            .where(
                col(RuleAlertRecord.id) == alert_id,
                col(RuleAlertRecord.sent_at).is_(None),
                or_(
                    col(RuleAlertRecord.sending_at).is_(None),
                    col(RuleAlertRecord.sending_at) < stale,
                ),
            )
            .values(sending_by=runner, sending_at=now)
        )
        if won.rowcount == 1:  # type: ignore[attr-defined]  # a CursorResult's count
            record = session.get(RuleAlertRecord, alert_id)
            assert record is not None
            taken.append((_info(record, str(env)), str(env)))
    return taken


def any_unsent(session: Session, *, resend_after_s: float = RESEND_AFTER_S) -> bool:
    """Whether an alert waits to be sent (a read: the writes of :func:`take_unsent` are only
    worth a write lock when one does)."""
    stale = datetime.now(UTC) - timedelta(seconds=resend_after_s)
    return session.execute(_unsent(stale).limit(1)).first() is not None


def _unsent(stale: datetime) -> Any:
    """Alerts of rules naming a webhook, not sent, not being sent since ``stale``."""
    return (
        select(col(RuleAlertRecord.id), col(ScoringRuleRecord.webhook_env))
        .join(ScoringRuleRecord, col(ScoringRuleRecord.id) == col(RuleAlertRecord.rule_id))
        .where(
            col(ScoringRuleRecord.webhook_env).is_not(None),
            col(RuleAlertRecord.sent_at).is_(None),
            or_(col(RuleAlertRecord.sending_at).is_(None), col(RuleAlertRecord.sending_at) < stale),
        )
        .order_by(col(RuleAlertRecord.id))
    )


def mark_sent(session: Session, *, alert_id: int, error: str | None = None) -> None:
    """The alert's message was sent (``error`` None), or why it was not (tried again later)."""
    values: dict[str, object] = {"send_error": error}
    if error is None:
        values["sent_at"] = datetime.now(UTC)
    session.execute(
        update(RuleAlertRecord).where(col(RuleAlertRecord.id) == alert_id).values(**values)
    )
