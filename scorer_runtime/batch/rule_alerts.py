"""Drift alerts of the scoring rules, watched by a runner beside the rules' scoring.

After a rule stores scores (and now and then even when it does not), :class:`RuleAlerts`
reads the rule's recent scores by the window their traces ran in
(:func:`~scorer_runtime.store.rule_alerts.rule_score_points`), compares each window with the
one before (:func:`~scorer_runtime.trust.drift.drift_readings`: Welch's t for a mean, Newcombe's
interval for a pass rate, with the rule's threshold and its scorer's pass mark), and stores each
alert once. Alerts of rules that name a webhook's variable are then POSTed, each once, by
whichever runner takes it (:func:`~scorer_runtime.store.rule_alerts.take_unsent`); a webhook
that is down is tried again later, and says why on the Monitor page meanwhile.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import cast

from sqlalchemy import Engine

from scorer_runtime.store.engine import read_session, session_scope
from scorer_runtime.store.rule_alerts import (
    RESEND_AFTER_S,
    AlertInfo,
    add_alerts,
    any_unsent,
    mark_sent,
    rule_score_points,
    take_unsent,
)
from scorer_runtime.store.rules import RuleInfo, get_rule
from scorer_runtime.store.trust import graded_scale
from scorer_runtime.traces.webhooks import DriftAlert, WebhookError, post_alert
from scorer_runtime.trust.drift import Measure, Period, drift_readings

CHECK_EVERY_S = 2.0
"""How often a rule's windows are read again while it stores scores."""
IDLE_CHECK_S = 60.0
"""How often they are read when it stores none (a window that closed, a backfill elsewhere)."""
SEND_EVERY_S = 5.0
"""How often a runner looks for alerts to send."""
WINDOWS_READ = 24
"""Windows read back from now: 24 hours, or 24 days."""


@dataclass
class RuleAlerts:
    """Finds and sends the drift alerts of the rules, for runner ``runner``."""

    engine: Engine
    runner: str
    say: Callable[[str], None]
    check_every_s: float = CHECK_EVERY_S
    idle_check_s: float = IDLE_CHECK_S
    send_every_s: float = SEND_EVERY_S
    _checked: dict[int, float] = field(default_factory=dict)
    _unread: set[int] = field(default_factory=set)
    """Rules that stored scores since their windows were last read."""
    _sent_look: float = field(default=float("-inf"))

    def due(self, rule: RuleInfo, *, scored: bool) -> bool:
        """Whether the rule's windows should be read now: it stored scores since they were
        last read (at most every :attr:`check_every_s`), or :attr:`idle_check_s` passed."""
        if rule.alerts is None:
            return False
        if scored:
            self._unread.add(rule.id)
        wait = self.check_every_s if rule.id in self._unread else self.idle_check_s
        return time.monotonic() - self._checked.get(rule.id, float("-inf")) >= wait

    async def check(self, rule: RuleInfo) -> list[AlertInfo]:
        """Read the rule's windows and store the alerts that are new (said in the log)."""
        self._checked[rule.id] = time.monotonic()
        self._unread.discard(rule.id)
        new = await asyncio.to_thread(find_alerts, self.engine, rule.id)
        for alert in new:
            self.say(f"Alert, {rule.label}: {alert.words}")
        return new

    async def send_due(self) -> int:
        """Send the alerts waiting for a webhook (each once, whichever runner takes it); how
        many were sent. Looks at most every :attr:`send_every_s`."""
        if time.monotonic() - self._sent_look < self.send_every_s:
            return 0
        self._sent_look = time.monotonic()
        return await asyncio.to_thread(send_alerts, self.engine, self.runner)


def find_alerts(engine: Engine, rule_id: int, *, now: datetime | None = None) -> list[AlertInfo]:
    """Compare each of the rule's recent windows with the one before; store and return the
    alerts not stored before (none for a rule without alerts)."""
    with read_session(engine) as session:
        rule = get_rule(session, rule_id=rule_id)
        if rule.alerts is None:
            return []
        length = timedelta(hours=1) if rule.alerts.period == "hour" else timedelta(days=1)
        since = (now or datetime.now(UTC)) - WINDOWS_READ * length
        points = rule_score_points(session, rule=rule, since=since)
        pass_mark = graded_scale(session, scorer_version_id=rule.scorer_version_id).pass_mark
    readings = drift_readings(
        points,
        period=rule.alerts.period,
        measure=rule.alerts.measure,
        drop_threshold=rule.alerts.drop,
        pass_mark=pass_mark,
    )
    if not any(r.alert for r in readings):
        return []
    with session_scope(engine) as session:
        return add_alerts(session, rule=rule, readings=readings)


def send_alerts(engine: Engine, runner: str, *, resend_after_s: float = RESEND_AFTER_S) -> int:
    """POST every alert waiting for its webhook (see the module); how many the webhooks took."""
    with read_session(engine) as session:
        if not any_unsent(session, resend_after_s=resend_after_s):
            return 0
    with session_scope(engine) as session:
        taken = take_unsent(session, runner=runner, resend_after_s=resend_after_s)
    sent = 0
    for alert, env in taken:
        error = _send(engine, alert, env)
        with session_scope(engine) as session:
            mark_sent(session, alert_id=alert.id, error=error)
        sent += error is None
    return sent


def _send(engine: Engine, alert: AlertInfo, env: str) -> str | None:
    """POST one alert to the address in variable ``env``; None, or why it was not sent."""
    url = os.environ.get(env, "").strip()
    if not url:
        return (
            f"the variable {env} that should hold the webhook's address is not set where the "
            "runner runs: set it there (or in .env) and restart the runner"
        )
    with read_session(engine) as session:
        rule = get_rule(session, rule_id=alert.rule_id)
    drift = DriftAlert(
        rule=f"rule {rule.id}",
        scorer=rule.scorer_name,
        version=rule.version,
        measure=cast(Measure, alert.measure),
        period=cast(Period, alert.period),
        reading=alert.reading(),
    )
    try:
        post_alert(url, drift)
    except (WebhookError, ValueError) as error:
        return str(error)
    return None
