"""The tables of scoring rules (kept beside ``tables``, which imports this module so that one
schema holds every table): the rules, and the traces each rule has taken.

A rule's taken trace is a row of ``rule_traces`` keyed by (rule, trace): a runner takes a trace
by inserting that row, so of two runners racing for one trace exactly one gets it, and a rule
never scores a trace twice. The same row sets aside what the trace's judge calls may cost at
worst (as ``spend_reservations`` does for a run's example), in the transaction that checks the
rule's daily cap, and its actual cost replaces it in the commit that stores the score.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from scorer_runtime.store.tables import JSON_TYPE, utc_now


class ScoringRuleRecord(SQLModel, table=True):
    """A scoring rule: a scorer version, the traces it takes (filters, sample) and a daily
    spend cap; runners score each new trace it takes as it is stored."""

    __tablename__ = "scoring_rules"

    id: int | None = Field(default=None, primary_key=True)
    scorer_id: int = Field(foreign_key="scorers.id", nullable=False)
    scorer_version_id: int = Field(foreign_key="scorer_versions.id", nullable=False)
    filters: list[dict[str, Any]] = Field(default_factory=list, sa_type=JSON_TYPE, nullable=False)
    """Each ``{"key": ..., "value": ...}`` (see ``scorer_runtime.traces.rules``)."""
    sample: float | None = None
    """The share of traces taken, by a hash of the trace id (None: every trace)."""
    max_cost_per_day: float | None = None
    """Dollars the rule may spend in one UTC day (None: no cap)."""
    allow_unpriced: bool = False
    """Whether a judge model without a price may run under the cap."""
    enabled: bool = True
    seen_up_to: int = Field(default=0, sa_type=sa.BigInteger)
    """The highest ``traces.id`` runners have looked at for this rule (its high-water mark)."""
    capped_on: str | None = Field(default=None, max_length=10)
    """The UTC day (``YYYY-MM-DD``) the rule last found its cap reached: paused that day."""
    alert_period: str | None = Field(default=None, max_length=4)
    """Drift alerts compare each ``hour`` or ``day`` with the one before (None: no alerts)."""
    alert_measure: str | None = Field(default=None, max_length=10)
    """What drift alerts watch: the ``mean`` score or the ``pass_rate``."""
    alert_drop: float | None = None
    """The smallest drop worth an alert (in score, or in pass rate from 0 to 1)."""
    webhook_env: str | None = Field(default=None, max_length=200)
    """The name of the environment variable holding the webhook address alerts are POSTed
    to (the address itself is a secret, and is never stored)."""
    changed_at: datetime | None = None
    """When its settings were last changed after it was added (None: never)."""
    created_at: datetime = Field(default_factory=utc_now, nullable=False)


class RuleAlertRecord(SQLModel, table=True):
    """A drift alert of a rule: one window's drop against the window before it, stored once
    per rule and window, and whether its webhook message was sent."""

    __tablename__ = "rule_alerts"
    __table_args__ = (
        sa.UniqueConstraint(
            "rule_id", "period", "measure", "window_start", name="uq_rule_alerts_window"
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    rule_id: int = Field(foreign_key="scoring_rules.id", nullable=False)
    period: str = Field(max_length=4)
    measure: str = Field(max_length=10)
    window_start: datetime = Field(nullable=False)
    n: int
    value: float
    baseline_n: int
    baseline_value: float
    difference: float
    ci_low: float | None = None
    ci_high: float | None = None
    words: str = Field(sa_type=sa.Text)
    created_at: datetime = Field(default_factory=utc_now, nullable=False)
    sent_at: datetime | None = None
    """When the webhook took its message (None: not sent, or no webhook)."""
    sending_by: str | None = Field(default=None, max_length=200)
    """The runner sending it now (so two runners never send one alert twice)."""
    sending_at: datetime | None = None
    send_error: str | None = Field(default=None, sa_type=sa.Text)
    """Why the last try to send it failed, in words."""


class RuleTraceRecord(SQLModel, table=True):
    """A trace a rule took: claimed by one runner, then scored (``done``)."""

    __tablename__ = "rule_traces"
    __table_args__ = (sa.Index("ix_rule_traces_rule_day", "rule_id", "day"),)

    rule_id: int = Field(foreign_key="scoring_rules.id", primary_key=True)
    trace_id: str = Field(primary_key=True, max_length=100)
    day: str = Field(max_length=10)
    """The UTC day it was taken (``YYYY-MM-DD``): whose cap its cost counts in."""
    runner: str = Field(max_length=200)
    reserved: float = 0.0
    """Dollars set aside: what its judge calls could cost at worst."""
    cost: float | None = None
    """What scoring it cost, once stored (None until then)."""
    done: bool = False
    """Its score is stored."""
    taken_at: datetime = Field(default_factory=utc_now, nullable=False)
