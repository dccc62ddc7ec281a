"""Scoring rules in a runner's loop: each new trace a rule takes is scored once, linked to its
trace; one it leaves is not; a trace raced for by two takers goes to one; the daily cap pauses
the rule; a backfill scores the stored traces after its estimate; the answer cache answers a
prompt already asked."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace

import pytest

from scorer_runtime.batch.rule_scoring import RuleScoring, backfill_rule
from scorer_runtime.costs.cap import CapError
from scorer_runtime.costs.trace_estimate import estimate_traces
from scorer_runtime.runs import RunRefusedError, plan_backfill, plan_rule
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    get_score,
    read_session,
    save_scorer_version,
    save_traces,
    session_scope,
)
from scorer_runtime.store.rules import day_spend, get_rule, take_trace, utc_day
from scorer_runtime.traces.model import Trace
from scorer_runtime.traces.rules import parse_filters
from scorer_runtime.traces.sampling import in_sample
from tests.batch.rule_fixtures import (
    add_rule,
    judge_free_version,
    priced_judge_version,
    scores_by_trace,
    store_traces,
)
from tests.cli.helpers import KEY_ENV, verdict_spec
from tests.traces.rule_traces import agent_trace, trace_ids


def _poll(engine, runner="runner-a") -> int:
    # Rows are taken as settled at once (the late-commit test below keeps them unsettled).
    return asyncio.run(RuleScoring(engine, runner, settle_s=0.0).poll())


def test_a_new_trace_the_rule_takes_is_scored_once_and_one_it_leaves_is_not(engine):
    version = judge_free_version(engine)
    rule = add_rule(engine, version, "service=checkout")
    ours, theirs = trace_ids(2)
    store_traces(engine, [agent_trace(ours), agent_trace(theirs, service="billing")])
    assert _poll(engine) == 1
    assert _poll(engine) == 0  # nothing new: nothing scored again
    scores = scores_by_trace(engine, version)
    assert list(scores) == [ours]
    (score,) = scores[ours]
    assert (score.outcome, score.score, score.run_id) == ("scored", 1.0, None)
    assert score.span_id == f"{ours[:12]}0001"
    with read_session(engine) as session:
        stored = get_rule(session, rule_id=rule.id)
        assert stored.seen_up_to >= 2
        assert day_spend(session, rule_id=rule.id).scored == 1


def test_traces_stored_before_the_rule_are_left_to_a_backfill(engine):
    version = judge_free_version(engine)
    old = trace_ids(3, prefix="o")
    store_traces(engine, [agent_trace(t) for t in old])
    rule = add_rule(engine, version)
    new = trace_ids(1, prefix="n")[0]
    store_traces(engine, [agent_trace(new)])
    assert _poll(engine) == 1
    assert list(scores_by_trace(engine, version)) == [new]
    plan = plan_backfill(engine, rule.id)
    assert (plan.to_score, plan.already) == (3, 1)
    assert "No judge call" in plan.words()
    done = backfill_rule(engine, rule.id, runner="backfill")
    assert sorted(o.trace_id for o in done.outcomes) == sorted(old)
    assert not done.capped
    assert backfill_rule(engine, rule.id, runner="backfill").outcomes == []
    assert all(len(s) == 1 for s in scores_by_trace(engine, version).values())
    assert plan_backfill(engine, rule.id).to_score == 0


def test_two_takers_racing_for_one_trace_one_gets_it(engine):
    version = judge_free_version(engine)
    rule = add_rule(engine, version)
    trace = trace_ids(1)[0]
    start = threading.Barrier(2)
    got: dict[str, str] = {}

    def take(runner: str) -> None:
        start.wait()
        with session_scope(engine) as session:
            got[runner] = take_trace(session, rule_id=rule.id, trace_id=trace, runner=runner)

    threads = [threading.Thread(target=take, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(got.values()) == ["already", "taken"]


def test_two_runners_polling_the_same_traces_score_each_once(engine):
    version = judge_free_version(engine)
    add_rule(engine, version, sample=0.5)
    traces = [agent_trace(t) for t in trace_ids(40)]
    store_traces(engine, traces)
    start = threading.Barrier(2)
    scored: dict[str, int] = {}

    def serve(runner: str) -> None:
        start.wait()
        scored[runner] = _poll(engine, runner)

    threads = [threading.Thread(target=serve, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    scores = scores_by_trace(engine, version)
    assert sum(scored.values()) == len(scores)
    assert all(len(s) == 1 for s in scores.values())
    assert set(scores) == {t.trace_id for t in traces if in_sample(t.trace_id, 0.5)}


def test_the_daily_cap_pauses_the_rule_until_the_next_utc_day(engine, fake_judge, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "good"})
    version = priced_judge_version(engine, fake_judge.base_url)
    traces = [agent_trace(t) for t in trace_ids(5)]
    plan = plan_rule(engine, scorer_version_id=version)
    worst = asyncio.run(estimate_traces(plan.scorer, traces[:1], count=1)).example_worst_cost
    assert worst
    cap = worst * 2.5  # room for two traces at their worst case, not three
    rule = add_rule(engine, version, cap=cap)
    store_traces(engine, traces)
    assert _poll(engine) == 2
    with read_session(engine) as session:
        paused = get_rule(session, rule_id=rule.id)
        spent = day_spend(session, rule_id=rule.id)
    assert paused.capped_on == utc_day()
    assert paused.paused()
    assert spent.scored == 2
    assert 0 < spent.spent <= cap
    store_traces(engine, [agent_trace(t, answer="later") for t in trace_ids(2, prefix="x")])
    assert _poll(engine) == 0  # paused: traces arriving today are not scored
    assert fake_judge.request_count == 2
    assert len(scores_by_trace(engine, version)) == 2


def test_a_cap_below_one_trace_is_refused_before_the_rule_is_added(engine, fake_judge, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    version = priced_judge_version(engine, fake_judge.base_url)
    store_traces(engine, [agent_trace(trace_ids(1)[0])])
    with pytest.raises(CapError, match="below what one example can cost"):
        plan_rule(engine, scorer_version_id=version, max_cost_per_day=1e-9)


def test_a_rule_whose_judge_key_is_not_set_is_refused_in_words(engine, fake_judge, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    version = priced_judge_version(engine, fake_judge.base_url)
    with pytest.raises(RunRefusedError, match=r"The rule was not added: .*FAKE_JUDGE_KEY"):
        plan_rule(engine, scorer_version_id=version, filters=parse_filters(["agent=x"]))


def test_a_second_rule_of_one_version_takes_its_answer_from_the_cache(
    engine, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "good"})
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=load_spec(verdict_spec(fake_judge.base_url)))
    add_rule(engine, version.id, "service=checkout")
    store_traces(engine, [agent_trace(trace_ids(1)[0])])
    assert _poll(engine) == 1
    assert fake_judge.request_count == 1
    add_rule(engine, version.id, "agent=support-agent")
    store_traces(engine, [agent_trace(trace_ids(1, prefix="z")[0], answer="Refunded today.")])
    assert _poll(engine) == 2  # the new trace, once for each rule
    assert fake_judge.request_count == 2  # the second rule's prompt was already answered
    with read_session(engine) as session:
        evidence = [
            get_score(session, score_id=s.id).judge["analyze"]
            for rows in scores_by_trace(engine, version.id).values()
            for s in rows
            if s.trace_id.startswith("z")
        ]
    assert sorted(bool(e.get("cached")) for e in evidence) == [False, True]


def test_a_trace_that_commits_after_a_higher_row_is_still_scored(engine):
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite commits one writer at a time, in row order")
    version = judge_free_version(engine)
    add_rule(engine, version)
    late, early = trace_ids(2)
    with session_scope(engine) as slow:
        save_traces(slow, traces=[agent_trace(late)], source="slow import")  # the lower row
        store_traces(engine, [agent_trace(early)])  # the higher row, committed first
        scoring = RuleScoring(engine, "runner-a", settle_s=3600, look_back_s=0)
        assert asyncio.run(scoring.poll()) == 1
    assert asyncio.run(scoring.poll()) == 1  # the late commit, seen from the rule's mark
    scores = scores_by_trace(engine, version)
    assert set(scores) == {late, early}
    assert all(len(rows) == 1 for rows in scores.values())


def test_a_trace_whose_root_span_comes_later_is_scored_once_it_has_come(engine):
    """An SDK exports a child span before its parent ends: the rule waits for the agent's span
    (not scoring the model call as if it were the answer), then scores the trace once."""
    version = judge_free_version(engine)
    add_rule(engine, version)
    (trace_id,) = trace_ids(1)
    (agent,) = agent_trace(trace_id).spans
    model_call = replace(
        agent,
        span_id=f"{trace_id[:12]}0002",
        parent_span_id=agent.span_id,
        name="chat gpt-4o-mini",
        type="model_call",
    )
    scoring = RuleScoring(engine, "runner-a", settle_s=0.0, look_back_s=0.0)
    store_traces(engine, [Trace(trace_id, (model_call,))])
    assert asyncio.run(scoring.poll()) == 0  # its root has not come: not yet

    store_traces(engine, [Trace(trace_id, (agent,))])  # merged into the same stored trace
    assert asyncio.run(scoring.poll()) == 1
    assert asyncio.run(scoring.poll()) == 0

    (score,) = scores_by_trace(engine, version)[trace_id]
    assert score.span_id == agent.span_id  # the agent's span, not the model call


def test_a_trace_whose_root_never_comes_is_scored_once_quiet(engine):
    """A trace whose parent is in another service has no root here: scored once no span of
    it arrived for the quiet time."""
    version = judge_free_version(engine)
    add_rule(engine, version)
    (trace_id,) = trace_ids(1)
    (agent,) = agent_trace(trace_id).spans
    remote_child = replace(agent, parent_span_id="feedfacefeedface")
    store_traces(engine, [Trace(trace_id, (remote_child,))])
    waiting = RuleScoring(engine, "runner-a", settle_s=0.0, look_back_s=0.0, quiet_s=3600)
    assert asyncio.run(waiting.poll()) == 0
    quiet = RuleScoring(engine, "runner-b", settle_s=0.0, look_back_s=0.0, quiet_s=0.0)
    assert asyncio.run(quiet.poll()) == 1
    assert list(scores_by_trace(engine, version)) == [trace_id]


def test_a_backfill_estimate_counts_every_trace_and_rehearses_on_a_sample(
    engine, fake_judge, monkeypatch
):
    """Read a batch at a time: 600 stored traces (more than one read) are counted whole; the
    estimate is rehearsed on 20 of them and scaled to 600, as a run's estimate is."""
    monkeypatch.setenv(KEY_ENV, "sk-test")
    version = priced_judge_version(engine, fake_judge.base_url)
    ids = trace_ids(600, prefix="b")
    store_traces(engine, [agent_trace(t) for t in ids])
    rule = add_rule(engine, version)
    plan = plan_backfill(engine, rule.id)
    assert (plan.to_score, plan.already) == (600, 0)
    assert (plan.estimate.examples, plan.estimate.sampled) == (600, 20)
    assert plan.estimate.calls == 600  # one judge call a trace
