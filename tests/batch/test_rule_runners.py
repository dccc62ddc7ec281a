"""Scoring rules served by real runner processes (``scorer-studio worker``): a trace stored
while they run is scored within seconds, one the rule leaves is not, and two runners on one
store score each trace once (SQLite, and PostgreSQL when configured)."""

from __future__ import annotations

import time

import pytest

from scorer_runtime.store import read_session
from scorer_runtime.store.rules import taken_trace_ids
from tests.batch.rule_fixtures import add_rule, judge_free_version, scores_by_trace, store_traces
from tests.batch.runner_fixtures import runner_processes, wait_for_runners
from tests.fakes.collector import FakeCollector
from tests.traces.rule_traces import agent_trace, trace_ids

__all__ = ["runner_processes"]

DEADLINE_S = 60.0
"""How long a test waits for the runners' scores (they come within a second when idle)."""


def _wait_for_scores(engine, version_id: int, count: int) -> dict:
    deadline = time.monotonic() + DEADLINE_S
    while True:
        scores = scores_by_trace(engine, version_id)
        if len(scores) >= count:
            return scores
        if time.monotonic() > deadline:
            pytest.fail(f"{len(scores)} of {count} traces scored after {DEADLINE_S} s")
        time.sleep(0.05)


def test_a_running_runner_scores_a_new_trace_the_rule_takes_and_leaves_the_others(
    db_url, engine, runner_processes
):
    version = judge_free_version(engine)
    rule = add_rule(engine, version, "environment=production")
    runner_processes(db_url)
    wait_for_runners(db_url, 1)
    staging, production = trace_ids(2)
    store_traces(engine, [agent_trace(staging, environment="staging")])
    store_traces(engine, [agent_trace(production)])
    scores = _wait_for_scores(engine, version, 1)
    assert list(scores) == [production]
    with read_session(engine) as session:
        # The staging trace came first: the rule looked at it and left it.
        assert taken_trace_ids(session, rule_id=rule.id) == {production}


def test_two_runners_on_one_store_score_every_trace_once(db_url, engine, runner_processes):
    version = judge_free_version(engine)
    rule = add_rule(engine, version)
    runner_processes(db_url)
    runner_processes(db_url)
    wait_for_runners(db_url, 2)
    ids = trace_ids(60)
    for start in range(0, len(ids), 10):  # bursts, as an exporter sends them
        store_traces(engine, [agent_trace(t) for t in ids[start : start + 10]])
    scores = _wait_for_scores(engine, version, len(ids))
    assert set(scores) == set(ids)
    assert all(len(rows) == 1 for rows in scores.values())
    with read_session(engine) as session:
        assert taken_trace_ids(session, rule_id=rule.id) == set(ids)


def test_a_runner_sends_each_rule_score_to_the_team_collector(db_url, engine, runner_processes):
    version = judge_free_version(engine, name="always-one")
    add_rule(engine, version)
    with FakeCollector() as collector:
        runner_processes(db_url, env={"SCORER_STUDIO_EXPORT_OTLP": collector.url})
        wait_for_runners(db_url, 1)
        (trace_id,) = trace_ids(1, prefix="a")  # hex: an OpenTelemetry trace id
        trace = agent_trace(trace_id)
        store_traces(engine, [trace])
        _wait_for_scores(engine, version, 1)
        (record,) = collector.wait_for_records(1)
    assert record.event_name == "gen_ai.evaluation.result"
    assert (record.trace_id, record.span_id) == (trace_id, trace.spans[0].span_id)
    assert record.attributes["gen_ai.evaluation.name"] == "always-one"
    assert record.attributes["gen_ai.evaluation.score.value"] == 1.0
