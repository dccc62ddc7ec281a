"""Drift alerts of scoring rules, end to end through the store: a runner scores the traces a
rule takes, reads its windows, stores an alert once for a planted drop (never for a steady
stream), and POSTs each alert once to the webhook named by a variable, whichever runner sends.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from sqlalchemy import Engine

from scorer_runtime.batch.rule_alerts import RuleAlerts, find_alerts, send_alerts
from scorer_runtime.batch.rule_scoring import RuleScoring
from scorer_runtime.runs import plan_rule, start_rule
from scorer_runtime.spec import load_spec
from scorer_runtime.store import read_session, save_scorer_version, session_scope
from scorer_runtime.store.rule_alerts import list_alerts
from scorer_runtime.store.rules import RuleInfo
from scorer_runtime.traces.model import Trace
from scorer_runtime.trust.drift import AlertSettings, alert_settings, window_start
from tests.batch.rule_fixtures import store_traces
from tests.traces.rule_traces import agent_trace, trace_ids

GOOD = "Your refund is on its way."
RUDE = "Your refund? Not my problem."


def polite_version(engine: Engine) -> int:
    """A judge-free scorer: 1 when the answer does not say "not my problem", else 0."""
    spec = load_spec(
        {
            "id": "polite",
            "description": "no rude phrase",
            "steps": [
                {
                    "step": "generate_score",
                    "formula": "0 if contains(output, 'not my problem', ignore_case=True) else 1",
                }
            ],
        }
    )
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=spec)
        assert version.id is not None
        return version.id


def alerting_rule(engine: Engine, alerts: AlertSettings) -> RuleInfo:
    plan = plan_rule(engine, scorer_version_id=polite_version(engine), alerts=alerts)
    return start_rule(engine, plan)


def timed(ids: Sequence[str], at: datetime, answers: Sequence[str]) -> list[Trace]:
    """Traces whose agent ran at ``at`` (plus a minute each), answering ``answers`` in turn."""
    traces = []
    for n, trace_id in enumerate(ids):
        trace = agent_trace(trace_id, answer=answers[n % len(answers)])
        start = at + timedelta(minutes=n % 50)
        span = replace(trace.spans[0], start_time=start, end_time=start + timedelta(seconds=1))
        traces.append(Trace(trace_id, (span,)))
    return traces


def last_hour() -> datetime:
    """The start of the UTC hour before this one: its traffic is the baseline."""
    return window_start(datetime.now(UTC) - timedelta(hours=1), "hour")


def score_new(engine: Engine, alerts: RuleAlerts | None = None) -> int:
    scoring = RuleScoring(engine, "runner-a", alerts=alerts, say=lambda _text: None)
    return asyncio.run(scoring.poll())


def test_a_planted_drop_alerts_once_in_its_window(engine: Engine) -> None:
    rule = alerting_rule(engine, alert_settings("hour", "mean", 0.2))
    before = last_hour()
    ids = trace_ids(60)
    store_traces(engine, timed(ids[:30], before, [GOOD]))
    store_traces(engine, timed(ids[30:], before + timedelta(hours=1), [GOOD, RUDE]))
    seen: list[str] = []
    alerts = RuleAlerts(engine, "runner-a", say=seen.append)

    assert score_new(engine, alerts) == 60

    with read_session(engine) as session:
        stored = list_alerts(session, rule_id=rule.id)
    assert [a.window_start for a in stored] == [before + timedelta(hours=1)]
    alert = stored[0]
    assert (alert.n, alert.baseline_n) == (30, 30)
    assert alert.value == pytest.approx(0.5)
    assert alert.baseline_value == pytest.approx(1.0)
    assert alert.ci_high is not None
    assert alert.ci_high < 0
    assert len(seen) == 1
    assert seen[0].startswith(f"Alert, {rule.label}: Mean score 1.00")
    # Read again, and again by another runner: still the one alert.
    assert find_alerts(engine, rule.id) == []
    assert find_alerts(engine, rule.id) == []
    with read_session(engine) as session:
        assert len(list_alerts(session, rule_id=rule.id)) == 1


def test_a_steady_stream_never_alerts(engine: Engine) -> None:
    rule = alerting_rule(engine, alert_settings("hour", "pass_rate", 0.1))
    before = last_hour()
    ids = trace_ids(80)
    mix = [GOOD, GOOD, GOOD, RUDE]  # 75 % pass, both hours
    store_traces(engine, timed(ids[:40], before, mix))
    store_traces(engine, timed(ids[40:], before + timedelta(hours=1), mix))

    assert score_new(engine, RuleAlerts(engine, "runner-a", say=lambda _t: None)) == 80

    assert find_alerts(engine, rule.id) == []
    with read_session(engine) as session:
        assert list_alerts(session, rule_id=rule.id) == []


def test_a_drop_smaller_than_the_threshold_is_not_an_alert(engine: Engine) -> None:
    rule = alerting_rule(engine, alert_settings("hour", "mean", 0.6))
    before = last_hour()
    ids = trace_ids(60)
    store_traces(engine, timed(ids[:30], before, [GOOD]))
    store_traces(engine, timed(ids[30:], before + timedelta(hours=1), [GOOD, RUDE]))

    assert score_new(engine) == 60

    assert find_alerts(engine, rule.id) == []  # a real drop of 0.5, below the 0.6 asked


class _Webhook:
    """A webhook on 127.0.0.1 that records each JSON body POSTed to it."""

    def __init__(self) -> None:
        bodies: list[dict[str, Any]] = []
        self.bodies = bodies

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                bodies.append(json.loads(self.rfile.read(length)))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> _Webhook:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def webhook() -> Iterator[_Webhook]:
    with _Webhook() as hook:
        yield hook


def dropped_rule(engine: Engine, webhook_env: str | None) -> RuleInfo:
    rule = alerting_rule(engine, alert_settings("hour", "mean", 0.2, webhook_env))
    before = last_hour()
    ids = trace_ids(40)
    store_traces(engine, timed(ids[:20], before, [GOOD]))
    store_traces(engine, timed(ids[20:], before + timedelta(hours=1), [RUDE]))
    score_new(engine)
    assert len(find_alerts(engine, rule.id)) == 1
    return rule


def test_each_alert_is_posted_once_whichever_runner_sends(
    engine: Engine, webhook: _Webhook, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEAM_ALERT_HOOK", webhook.url)
    rule = dropped_rule(engine, "TEAM_ALERT_HOOK")

    assert send_alerts(engine, "runner-a") == 1
    assert send_alerts(engine, "runner-b") == 0
    assert send_alerts(engine, "runner-a", resend_after_s=0) == 0

    assert len(webhook.bodies) == 1
    body = webhook.bodies[0]
    assert body["text"].startswith(f"Scorer Studio alert, rule 'rule {rule.id}' (polite v1): ")
    assert (body["value"], body["baseline_value"], body["n"]) == (0.0, 1.0, 20)
    with read_session(engine) as session:
        (alert,) = list_alerts(session, rule_id=rule.id)
    assert alert.sent_at is not None
    assert alert.send_error is None


def test_an_alert_the_webhook_did_not_take_says_why_and_is_sent_later(
    engine: Engine, webhook: _Webhook, refused_base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEAM_ALERT_HOOK", refused_base_url)
    rule = dropped_rule(engine, "TEAM_ALERT_HOOK")

    assert send_alerts(engine, "runner-a") == 0
    with read_session(engine) as session:
        (alert,) = list_alerts(session, rule_id=rule.id)
    assert alert.sent_at is None
    assert alert.send_error is not None
    assert "could not be reached" in alert.send_error
    assert send_alerts(engine, "runner-b") == 0  # not yet: its try is too recent

    monkeypatch.setenv("TEAM_ALERT_HOOK", webhook.url)
    assert send_alerts(engine, "runner-b", resend_after_s=0) == 1
    assert len(webhook.bodies) == 1


def test_an_unset_webhook_variable_is_named(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TEAM_ALERT_HOOK", raising=False)
    rule = dropped_rule(engine, "TEAM_ALERT_HOOK")

    assert send_alerts(engine, "runner-a") == 0

    with read_session(engine) as session:
        (alert,) = list_alerts(session, rule_id=rule.id)
    assert alert.send_error is not None
    assert "TEAM_ALERT_HOOK" in alert.send_error


def test_alerts_without_a_webhook_are_shown_never_sent(engine: Engine) -> None:
    rule = dropped_rule(engine, None)

    assert send_alerts(engine, "runner-a") == 0

    with read_session(engine) as session:
        (alert,) = list_alerts(session, rule_id=rule.id)
    assert alert.sent_at is None
    assert alert.send_error is None


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("week", "mean", 0.1), "an hour or a day"),
        (("hour", "median", 0.1), "mean score or the pass rate"),
        (("hour", "mean", 0.0), "above 0"),
        (("day", "pass_rate", 1.5), "at most 1"),
        (("hour", "mean", 0.1, "https://hooks.example/T000/B000"), "never stored"),
    ],
)
def test_alert_settings_that_cannot_be_are_refused_in_words(
    args: tuple[Any, ...], words: str
) -> None:
    with pytest.raises(ValueError, match=words):
        alert_settings(*args)


def test_scores_stored_while_a_check_waits_are_read_at_the_next_chance_not_a_minute_later(
    engine: Engine,
) -> None:
    """The first traffic is read at once; the next, stored less than ``check_every_s`` later,
    waits only for ``check_every_s`` (not the idle minute)."""
    rule = alerting_rule(engine, alert_settings("hour", "mean", 0.2))
    alerts = RuleAlerts(engine, "runner-a", say=lambda _t: None, check_every_s=5, idle_check_s=60)
    assert alerts.due(rule, scored=True)
    asyncio.run(alerts.check(rule))
    assert not alerts.due(rule, scored=True)  # read a moment ago: wait
    alerts._checked[rule.id] -= 10  # ten seconds pass without new scores
    assert alerts.due(rule, scored=False)  # what was stored meanwhile is read now
    asyncio.run(alerts.check(rule))
    alerts._checked[rule.id] -= 10
    assert not alerts.due(rule, scored=False)  # nothing new: the idle minute
