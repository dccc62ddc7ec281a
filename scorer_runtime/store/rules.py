"""Scoring rules in the store: made, listed, and the traces each rule takes, once.

A runner takes a trace for a rule with :func:`take_trace`: one transaction that locks the
rule's row (SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's ``SELECT … FOR UPDATE``), checks the
rule's daily cap against what it spent today plus what is set aside, and inserts the
``(rule, trace)`` row. A trace already taken (by this runner or another) is never taken
again, so no rule scores a trace twice. :func:`store_rule_scores` stores the scores and, in
the same commit, replaces what each trace set aside by what it cost.

A trace taken by a runner that died before storing its score is **lost**
(:func:`lost_rule_traces`): its runner's row stopped beating, or its process on this host
ended. Another runner takes it over (:func:`retake_trace`, an ``UPDATE`` that names the dead
runner, so only one runner wins it) and scores it. What the dead runner set aside keeps
counting, moved into the trace's cost (its answers may have been paid for), as a run's lost
reservations do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Literal

from sqlalchemy import case, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col

from scorer_runtime.process import runner_is_gone
from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.queue import RUNNER_GONE_AFTER
from scorer_runtime.store.rule_tables import RuleTraceRecord, ScoringRuleRecord
from scorer_runtime.store.scores import add_scores
from scorer_runtime.store.tables import (
    RunnerRecord,
    ScorerRecord,
    ScorerVersionRecord,
    TraceRecord,
    as_utc,
)
from scorer_runtime.traces.model import Span, Trace
from scorer_runtime.traces.rules import RuleFilter, filters_data, filters_of
from scorer_runtime.trust.drift import AlertSettings, alert_settings

_ROUNDING = 1e-12
"""Dollars a sum of floats may lie above the cap and still fit (0.1 + 0.2 > 0.3)."""

Taken = Literal["taken", "already", "cap"]
"""What taking a trace gave: it is this runner's now; a runner took it before; the rule's cap
for today has no room for it."""


def utc_day(when: datetime | None = None) -> str:
    """The UTC day of ``when`` (default: now), as ``YYYY-MM-DD``: the day a cap counts."""
    return (when or datetime.now(UTC)).astimezone(UTC).date().isoformat()


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """A stored rule, with its scorer's name and version number."""

    id: int
    scorer_id: int
    scorer_version_id: int
    scorer_name: str
    version: int
    filters: list[RuleFilter]
    sample: float | None
    max_cost_per_day: float | None
    allow_unpriced: bool
    enabled: bool
    seen_up_to: int
    capped_on: str | None
    created_at: datetime
    alerts: AlertSettings | None = None
    """What its drift alerts watch (None: it has none)."""

    @property
    def label(self) -> str:
        """The rule as a person names it: ``rule 3 (tone v2)``."""
        return f"rule {self.id} ({self.scorer_name} v{self.version})"

    def paused(self, day: str | None = None) -> bool:
        """Whether the rule found its cap reached on ``day`` (default: today)."""
        return self.capped_on is not None and self.capped_on == (day or utc_day())


def _rule_query() -> Any:
    return (
        select(ScoringRuleRecord, col(ScorerRecord.name), col(ScorerVersionRecord.version))
        .join(ScorerRecord, col(ScorerRecord.id) == col(ScoringRuleRecord.scorer_id))
        .join(
            ScorerVersionRecord,
            col(ScorerVersionRecord.id) == col(ScoringRuleRecord.scorer_version_id),
        )
    )


def _info(record: ScoringRuleRecord, name: str, version: int) -> RuleInfo:
    assert record.id is not None
    return RuleInfo(
        id=record.id,
        scorer_id=record.scorer_id,
        scorer_version_id=record.scorer_version_id,
        scorer_name=name,
        version=version,
        filters=filters_of(record.filters),
        sample=record.sample,
        max_cost_per_day=record.max_cost_per_day,
        allow_unpriced=record.allow_unpriced,
        enabled=record.enabled,
        seen_up_to=int(record.seen_up_to),
        capped_on=record.capped_on,
        created_at=record.created_at,
        alerts=_alerts_of(record),
    )


def _alerts_of(record: ScoringRuleRecord) -> AlertSettings | None:
    if record.alert_period is None or record.alert_measure is None or record.alert_drop is None:
        return None
    return alert_settings(
        record.alert_period, record.alert_measure, record.alert_drop, record.webhook_env
    )


def add_rule(
    session: Session,
    *,
    scorer_version_id: int,
    filters: Sequence[RuleFilter] = (),
    sample: float | None = None,
    max_cost_per_day: float | None = None,
    allow_unpriced: bool = False,
    alerts: AlertSettings | None = None,
) -> RuleInfo:
    """Store a rule of scorer version ``scorer_version_id``, with its drift ``alerts`` if
    any. It takes the traces stored from now on (a backfill scores those stored before)."""
    version = session.get(ScorerVersionRecord, scorer_version_id)
    if version is None:
        raise not_found("scorer version", scorer_version_id)
    if max_cost_per_day is not None and not max_cost_per_day > 0:
        raise ConflictError("the daily spend cap must be an amount above $0")
    record = ScoringRuleRecord(
        scorer_id=version.scorer_id,
        scorer_version_id=scorer_version_id,
        filters=filters_data(filters),
        sample=sample,
        max_cost_per_day=max_cost_per_day,
        allow_unpriced=allow_unpriced and max_cost_per_day is not None,
        seen_up_to=latest_trace_row(session),
    )
    set_alerts(record, alerts)
    session.add(record)
    session.flush()
    assert record.id is not None
    return get_rule(session, rule_id=record.id)


def set_alerts(record: ScoringRuleRecord, alerts: AlertSettings | None) -> None:
    """Write ``alerts`` into the rule's row (None: the rule alerts no more)."""
    record.alert_period = alerts.period if alerts else None
    record.alert_measure = alerts.measure if alerts else None
    record.alert_drop = alerts.drop if alerts else None
    record.webhook_env = alerts.webhook_env if alerts else None


def change_alerts(session: Session, *, rule_id: int, alerts: AlertSettings | None) -> RuleInfo:
    """Change (or, with None, end) the drift alerts of rule ``rule_id``."""
    record = session.get(ScoringRuleRecord, rule_id)
    if record is None:
        raise not_found("rule", rule_id)
    set_alerts(record, alerts)
    record.changed_at = datetime.now(UTC)
    session.add(record)
    session.flush()
    return get_rule(session, rule_id=rule_id)


def get_rule(session: Session, *, rule_id: int) -> RuleInfo:
    """One rule; raises NotFoundError."""
    row = session.execute(_rule_query().where(col(ScoringRuleRecord.id) == rule_id)).first()
    if row is None:
        raise not_found("rule", rule_id)
    return _info(*row)


def list_rules(session: Session, *, enabled_only: bool = False) -> list[RuleInfo]:
    """Every rule, oldest first (only those switched on, with ``enabled_only``)."""
    query = _rule_query().order_by(col(ScoringRuleRecord.id))
    if enabled_only:
        query = query.where(col(ScoringRuleRecord.enabled))
    return [_info(*row) for row in session.execute(query).all()]


def latest_trace_row(session: Session) -> int:
    """The highest ``traces.id`` stored (0 when none is)."""
    found = session.execute(select(func.max(TraceRecord.id))).scalar_one_or_none()
    return int(found or 0)


@dataclass(frozen=True, slots=True)
class StoredTrace:
    """A stored trace with its row id (the order traces were stored in) and when it was
    first stored."""

    row: int
    trace: Trace
    imported_at: datetime
    updated_at: datetime
    """When spans of it were last stored (a trace that arrives in pieces is merged)."""


def traces_after(session: Session, *, after: int, limit: int = 200) -> list[StoredTrace]:
    """Stored traces whose row id is above ``after``, in row order."""
    query = (
        select(
            col(TraceRecord.id),
            col(TraceRecord.trace_id),
            col(TraceRecord.spans),
            col(TraceRecord.expected),
            col(TraceRecord.imported_at),
            col(TraceRecord.updated_at),
        )
        .where(col(TraceRecord.id) > after)
        .order_by(col(TraceRecord.id))
        .limit(limit)
    )
    return [
        StoredTrace(
            int(row_id),
            Trace(trace_id, tuple(Span.from_dict(s) for s in spans), expected),
            as_utc(at),
            as_utc(updated),
        )
        for row_id, trace_id, spans, expected, at, updated in session.execute(query).all()
    ]


def advance_seen(session: Session, *, rule_id: int, up_to: int) -> None:
    """Runners have looked at every trace up to row ``up_to`` for the rule (never lowered)."""
    session.execute(
        update(ScoringRuleRecord)
        .where(col(ScoringRuleRecord.id) == rule_id, col(ScoringRuleRecord.seen_up_to) < up_to)
        .values(seen_up_to=up_to)
    )


def taken_trace_ids(session: Session, *, rule_id: int) -> set[str]:
    """Every trace the rule took (scored, or on its way)."""
    query = select(col(RuleTraceRecord.trace_id)).where(col(RuleTraceRecord.rule_id) == rule_id)
    return {str(t) for t in session.execute(query).scalars().all()}


def taken_among(session: Session, *, rule_id: int, trace_ids: Sequence[str]) -> set[str]:
    """Which of ``trace_ids`` the rule took."""
    if not trace_ids:
        return set()
    query = select(col(RuleTraceRecord.trace_id)).where(
        col(RuleTraceRecord.rule_id) == rule_id, col(RuleTraceRecord.trace_id).in_(trace_ids)
    )
    return {str(t) for t in session.execute(query).scalars().all()}


@dataclass(frozen=True, slots=True)
class DaySpend:
    """What a rule did on one UTC day: traces scored, dollars spent (stored scores' cost and,
    for traces taken and not stored, what was set aside), and traces on their way."""

    scored: int = 0
    spent: float = 0.0
    pending: int = 0


def day_spend(session: Session, *, rule_id: int, day: str | None = None) -> DaySpend:
    """The rule's :class:`DaySpend` of ``day`` (default: today, UTC)."""
    paid = func.coalesce(col(RuleTraceRecord.cost), 0.0)  # a lost runner's share, till done
    counted = case((col(RuleTraceRecord.done), paid), else_=paid + col(RuleTraceRecord.reserved))
    done = case((col(RuleTraceRecord.done), 1), else_=0)
    query = select(
        func.coalesce(func.sum(done), 0), func.coalesce(func.sum(counted), 0.0), func.count()
    ).where(col(RuleTraceRecord.rule_id) == rule_id, col(RuleTraceRecord.day) == (day or utc_day()))
    scored, spent, taken = session.execute(query).one()
    return DaySpend(int(scored), float(spent), int(taken) - int(scored))


def take_trace(
    session: Session, *, rule_id: int, trace_id: str, runner: str, amount: float = 0.0
) -> Taken:
    """Take ``trace_id`` for the rule, setting ``amount`` dollars aside, when no runner took it
    before and today's cap has room for it (see the module). On ``"cap"`` the rule is marked
    paused for the rest of the UTC day."""
    query = select(col(ScoringRuleRecord.max_cost_per_day)).where(
        col(ScoringRuleRecord.id) == rule_id
    )
    found = session.execute(query.with_for_update()).one_or_none()
    if found is None:
        raise not_found("rule", rule_id)
    if session.get(RuleTraceRecord, (rule_id, trace_id)) is not None:
        return "already"
    day = utc_day()
    cap = found[0]
    if cap is not None:
        spent = day_spend(session, rule_id=rule_id, day=day).spent
        if spent + amount > cap + _ROUNDING:
            session.execute(
                update(ScoringRuleRecord)
                .where(col(ScoringRuleRecord.id) == rule_id)
                .values(capped_on=day)
            )
            return "cap"
    values = dict(rule_id=rule_id, trace_id=trace_id, day=day, runner=runner, reserved=amount)
    values.update(done=False, taken_at=datetime.now(UTC))
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    statement = insert(RuleTraceRecord).values(**values).on_conflict_do_nothing()
    inserted = session.execute(statement.returning(col(RuleTraceRecord.trace_id)))
    return "taken" if inserted.scalar_one_or_none() is not None else "already"


def store_rule_scores(session: Session, *, rule_id: int, rows: Sequence[dict[str, Any]]) -> None:
    """Store score rows of traces the rule took (each row names its ``trace_id``) and mark
    those traces done with their cost, in the caller's transaction."""
    add_scores(session, rows=rows)
    for row in rows:
        cost = row.get("cost")
        before = col(RuleTraceRecord.cost)  # what a lost runner set aside, when it was retaken
        session.execute(
            update(RuleTraceRecord)
            .where(
                col(RuleTraceRecord.rule_id) == rule_id,
                col(RuleTraceRecord.trace_id) == row["trace_id"],
            )
            .values(
                done=True,
                cost=before if cost is None else func.coalesce(before, 0.0) + float(cost),
                reserved=0.0,
            )
        )


@dataclass(frozen=True, slots=True)
class LostTrace:
    """A trace a rule took whose runner is gone before storing its score."""

    rule_id: int
    trace_id: str
    runner: str


def lost_rule_traces(
    session: Session, *, now: datetime | None = None, limit: int = 50
) -> list[LostTrace]:
    """Traces taken and not scored, for longer than a runner may go without beating, whose
    runner is gone: its row in ``runners`` stopped beating, or (on this host) its process
    ended. A taker with no row on another host (a backfill there) is never taken as gone."""
    since = (now or datetime.now(UTC)) - RUNNER_GONE_AFTER
    query = (
        select(
            col(RuleTraceRecord.rule_id),
            col(RuleTraceRecord.trace_id),
            col(RuleTraceRecord.runner),
            col(RunnerRecord.heartbeat_at),
        )
        .outerjoin(RunnerRecord, col(RunnerRecord.name) == col(RuleTraceRecord.runner))
        .where(~col(RuleTraceRecord.done), col(RuleTraceRecord.taken_at) < since)
        .order_by(col(RuleTraceRecord.taken_at))
        .limit(limit)
    )
    return [
        LostTrace(int(rule_id), str(trace_id), str(runner))
        for rule_id, trace_id, runner, beat in session.execute(query).all()
        if (beat is not None and as_utc(beat) < since) or runner_is_gone(runner)
    ]


def retake_trace(session: Session, *, lost: LostTrace, runner: str, amount: float = 0.0) -> Taken:
    """Take over a lost trace for ``runner``, setting ``amount`` aside within today's cap (the
    rule's row locked, as :func:`take_trace`); what the lost runner set aside moves into the
    trace's cost. ``"already"`` when another runner took it over first (or it was scored)."""
    query = select(col(ScoringRuleRecord.max_cost_per_day)).where(
        col(ScoringRuleRecord.id) == lost.rule_id
    )
    found = session.execute(query.with_for_update()).one_or_none()
    if found is None:
        raise not_found("rule", lost.rule_id)
    cap = found[0]
    if (
        cap is not None
        and day_spend(session, rule_id=lost.rule_id).spent + amount > cap + _ROUNDING
    ):
        return "cap"
    moved = session.execute(
        update(RuleTraceRecord)
        .where(
            col(RuleTraceRecord.rule_id) == lost.rule_id,
            col(RuleTraceRecord.trace_id) == lost.trace_id,
            col(RuleTraceRecord.runner) == lost.runner,
            ~col(RuleTraceRecord.done),
        )
        .values(
            runner=runner,
            taken_at=datetime.now(UTC),
            cost=func.coalesce(col(RuleTraceRecord.cost), 0.0) + col(RuleTraceRecord.reserved),
            reserved=amount,
        )
    )
    return "taken" if moved.rowcount == 1 else "already"  # type: ignore[attr-defined]


def next_day(day: str) -> str:
    """The UTC day after ``day``."""
    return date.fromordinal(date.fromisoformat(day).toordinal() + 1).isoformat()
