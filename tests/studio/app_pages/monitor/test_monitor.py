"""The Monitor page (AppTest, a real SQLite file): an empty store explains rules; the form adds
a rule through the run-start service; a rule's scores and today's counts show once a runner
scored a new trace; a filter that cannot be read is refused in words and adds nothing."""

from __future__ import annotations

import asyncio
import json

from scorer_runtime.batch.rule_scoring import RuleScoring
from scorer_runtime.store import read_session
from scorer_runtime.store.rules import list_rules
from scorer_runtime.store.views import rule_windows
from scorer_runtime.traces.sampling import in_sample
from studio import state
from studio.app_pages.monitor.charts import window_frame
from tests.batch.rule_fixtures import judge_free_version, store_traces
from tests.traces.rule_traces import agent_trace, trace_ids


def _add(at, *, filters: str, cap: str = "", sample: float = 100.0):
    at.text_area(key=state.MONITOR_FILTERS.name).input(filters)
    at.number_input(key=state.MONITOR_SAMPLE.name).set_value(sample)
    at.text_input(key=state.MONITOR_CAP.name).input(cap)
    (add,) = [b for b in at.button if b.label == "Add rule"]
    return add.click().run()


def _rules(engine):
    with read_session(engine) as session:
        return list_rules(session)


def _table(at, column: str):
    (table,) = [df.value for df in at.dataframe if column in df.value.columns]
    return table


def test_an_empty_store_says_what_a_rule_is_and_to_build_a_scorer_first(studio_db, open_page):
    at = open_page("monitor")
    assert not at.exception, at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "No rules yet." in text
    assert any("Build a scorer first" in i.value for i in at.info)


def test_a_rule_added_on_the_form_shows_the_scores_a_runner_stored(studio_db, open_page):
    judge_free_version(studio_db, "always-one")
    at = open_page("monitor")
    at = _add(at, filters="service=checkout\n\nenvironment=production", sample=50.0)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    (rule,) = _rules(studio_db)
    assert [f.text for f in rule.filters] == ["service=checkout", "environment=production"]
    assert (rule.sample, rule.max_cost_per_day) == (0.5, None)
    rules = _table(at, "Takes")
    assert rules["Takes"].tolist() == ["service=checkout, environment=production"]
    assert rules["Scored today"].tolist() == [0]
    ours = next(t for t in trace_ids(40) if _in_half(t))
    store_traces(studio_db, [agent_trace(ours), agent_trace("f" * 32, service="billing")])
    assert asyncio.run(RuleScoring(studio_db, "runner-a").poll()) == 1
    at.run()
    assert _table(at, "Takes")["Scored today"].tolist() == [1]
    scores = _table(at, "Trace")
    assert scores["Trace"].tolist() == [ours]
    assert scores["Score"].tolist() == [1.0]


def test_a_filter_that_cannot_be_read_is_refused_in_words_and_adds_nothing(studio_db, open_page):
    judge_free_version(studio_db, "always-one")
    at = _add(open_page("monitor"), filters="checkout")
    assert not at.exception, at.exception
    (error,) = at.error
    assert "The filter 'checkout' is not KEY=VALUE" in error.value
    assert "service=checkout" in error.value
    assert _rules(studio_db) == []


def test_a_cap_that_is_not_an_amount_is_refused_in_words(studio_db, open_page):
    judge_free_version(studio_db, "always-one")
    at = _add(open_page("monitor"), filters="", cap="five dollars")
    (error,) = at.error
    assert "is not an amount" in error.value
    assert _rules(studio_db) == []


def _in_half(trace_id: str) -> bool:
    return in_sample(trace_id, 0.5)


def test_a_rule_with_alerts_shows_its_drop_as_an_alert_and_its_hours_in_a_chart(
    studio_db, open_page
):
    from datetime import timedelta

    from scorer_runtime.batch.rule_alerts import RuleAlerts
    from tests.batch.test_rule_alerts import GOOD, RUDE, last_hour, polite_version, timed

    polite_version(studio_db)
    at = open_page("monitor")
    at.number_input(key=state.MONITOR_ALERT_DROP.name).set_value(0.2)
    at.selectbox(key=state.MONITOR_ALERT_MEASURE.name).set_value("pass_rate")
    at = _add(at, filters="")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    (rule,) = _rules(studio_db)
    assert rule.alerts is not None
    assert (rule.alerts.period, rule.alerts.measure, rule.alerts.drop) == ("hour", "pass_rate", 0.2)
    assert _table(at, "Takes")["Alerts"].tolist() == [
        "pass rate drops by 0.2+ from one hour to the next"
    ]
    assert any("No alert yet" in c.value for c in at.caption)

    ids = trace_ids(40)
    store_traces(studio_db, timed(ids[:20], last_hour(), [GOOD]))
    store_traces(studio_db, timed(ids[20:], last_hour() + timedelta(hours=1), [GOOD, RUDE]))
    alerts = RuleAlerts(studio_db, "runner-a", say=lambda _t: None)
    assert asyncio.run(RuleScoring(studio_db, "runner-a", alerts=alerts).poll()) == 40
    at.run()

    assert not at.exception, at.exception
    (callout,) = at.error
    assert f"Rule {rule.id}," in callout.value
    assert "Pass rate 100% the hour before (20 scores), 50% this hour (20 scores)" in callout.value
    listed = _table(at, "What happened")
    assert listed["Message"].tolist() == ["shown here only (the rule names no webhook)"]
    (chart,) = [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]
    assert chart["encoding"]["y"]["title"] == "Pass rate"
    with read_session(studio_db) as session:
        drawn = window_frame(rule_windows(session, rule_id=rule.id))
    assert drawn[["Value", "Scores", "Alert"]].values.tolist() == [
        [1.0, 20, "No alert"],
        [0.5, 20, "Alert"],
    ]


def test_a_webhook_without_a_drop_is_refused_in_words(studio_db, open_page):
    judge_free_version(studio_db, "always-one")
    at = open_page("monitor")
    at.text_input(key=state.MONITOR_WEBHOOK.name).input("TEAM_ALERT_HOOK")
    at = _add(at, filters="")
    (error,) = at.error
    assert "A webhook sends alerts: set the drop worth an alert above 0" in error.value
    assert _rules(studio_db) == []


def test_a_rule_gets_its_alerts_changed_and_ended_from_the_page(studio_db, open_page):
    judge_free_version(studio_db, "always-one")
    at = _add(open_page("monitor"), filters="")
    (rule,) = _rules(studio_db)
    assert rule.alerts is None
    drop = state.MONITOR_ALERT_DROP.child(rule.id).name
    at.number_input(key=drop).set_value(0.3)
    at.selectbox(key=state.MONITOR_ALERT_PERIOD.child(rule.id).name).set_value("day")
    at.text_input(key=state.MONITOR_WEBHOOK.child(rule.id).name).input("TEAM_ALERT_HOOK")
    (save,) = [b for b in at.button if b.label == "Save alerts"]
    at = save.click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    (rule,) = _rules(studio_db)
    assert rule.alerts is not None
    assert (rule.alerts.period, rule.alerts.drop, rule.alerts.webhook_env) == (
        "day",
        0.3,
        "TEAM_ALERT_HOOK",
    )
    assert _table(at, "Takes")["Alerts"].tolist() == [
        "mean score drops by 0.3+ from one day to the next, sent to $TEAM_ALERT_HOOK"
    ]
    at.number_input(key=drop).set_value(0.0)
    at.text_input(key=state.MONITOR_WEBHOOK.child(rule.id).name).input("")
    (save,) = [b for b in at.button if b.label == "Save alerts"]
    at = save.click().run()
    assert not at.error, [e.value for e in at.error]
    (rule,) = _rules(studio_db)
    assert rule.alerts is None
