"""The Monitor page (AppTest, a real SQLite file): an empty store explains rules; the form adds
a rule through the run-start service; a rule's scores and today's counts show once a runner
scored a new trace; a filter that cannot be read is refused in words and adds nothing."""

from __future__ import annotations

import asyncio

from scorer_runtime.batch.rule_scoring import RuleScoring
from scorer_runtime.store import read_session
from scorer_runtime.store.rules import list_rules
from scorer_runtime.traces.sampling import in_sample
from studio import state
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
