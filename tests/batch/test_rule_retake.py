"""A trace a rule took whose runner died before storing its score is taken over by another
runner and scored, once; a runner that is alive, or a taker that cannot be told gone, keeps
its traces; what the dead runner set aside keeps counting in the rule's day (SQLite, and
PostgreSQL when configured)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, update
from sqlmodel import col

from scorer_runtime.batch.rule_scoring import RuleScoring
from scorer_runtime.store import read_session, session_scope
from scorer_runtime.store.rule_tables import RuleTraceRecord
from scorer_runtime.store.rules import (
    day_spend,
    lost_rule_traces,
    retake_trace,
    take_trace,
    taken_trace_ids,
)
from scorer_runtime.store.tables import RunnerRecord
from tests.batch.rule_fixtures import add_rule, judge_free_version, scores_by_trace, store_traces
from tests.traces.rule_traces import agent_trace, trace_ids

LONG_AGO = datetime.now(UTC) - timedelta(minutes=5)


def _dead_pid() -> int:
    """The pid of a process that has ended."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def _taken_long_ago(
    engine: Engine, rule_id: int, trace_id: str, runner: str, amount: float
) -> None:
    """``runner`` took the trace (setting ``amount`` aside) five minutes ago, and stored nothing."""
    with session_scope(engine) as session:
        assert (
            take_trace(session, rule_id=rule_id, trace_id=trace_id, runner=runner, amount=amount)
            == "taken"
        )
        session.execute(
            update(RuleTraceRecord)
            .where(col(RuleTraceRecord.trace_id) == trace_id)
            .values(taken_at=LONG_AGO)
        )


def _runner_row(engine: Engine, name: str, beat: datetime) -> None:
    with session_scope(engine) as session:
        session.add(RunnerRecord(name=name, started_at=LONG_AGO, heartbeat_at=beat))


def _poll(engine: Engine, runner: str = "runner-b") -> int:
    return asyncio.run(RuleScoring(engine, runner, say=lambda _t: None).poll())


@pytest.fixture
def rule_and_trace(engine: Engine) -> tuple[int, int, str]:
    version = judge_free_version(engine)
    rule = add_rule(engine, version)
    (trace_id,) = trace_ids(1)
    store_traces(engine, [agent_trace(trace_id)])
    return rule.id, version, trace_id


@pytest.mark.parametrize("how", ["its runner stopped beating", "its process here ended"])
def test_a_trace_whose_runner_died_is_scored_once_by_another(
    engine: Engine, rule_and_trace: tuple[int, int, str], how: str
) -> None:
    rule_id, version, trace_id = rule_and_trace
    if how == "its runner stopped beating":
        dead = "elsewhere:4242"
        _runner_row(engine, dead, beat=LONG_AGO)
    else:
        dead = f"{socket.gethostname()}:{_dead_pid()}"
    _taken_long_ago(engine, rule_id, trace_id, dead, amount=0.0)

    assert _poll(engine) == 1
    assert _poll(engine) == 0  # nothing left: the trace is done

    scores = scores_by_trace(engine, version)
    assert list(scores) == [trace_id]
    assert len(scores[trace_id]) == 1
    with read_session(engine) as session:
        assert lost_rule_traces(session) == []
        assert taken_trace_ids(session, rule_id=rule_id) == {trace_id}


@pytest.mark.parametrize("who", ["a runner still beating", "a taker elsewhere with no row"])
def test_a_trace_of_a_taker_not_known_gone_is_left_to_it(
    engine: Engine, rule_and_trace: tuple[int, int, str], who: str
) -> None:
    rule_id, version, trace_id = rule_and_trace
    taker = "elsewhere:7"
    if who == "a runner still beating":
        _runner_row(engine, taker, beat=datetime.now(UTC) + timedelta(minutes=1))
    _taken_long_ago(engine, rule_id, trace_id, taker, amount=0.0)

    assert _poll(engine) == 0

    assert scores_by_trace(engine, version) == {}


def test_two_runners_retaking_one_lost_trace_one_wins_and_the_dead_share_keeps_counting(
    engine: Engine, rule_and_trace: tuple[int, int, str]
) -> None:
    rule_id, _, trace_id = rule_and_trace
    _runner_row(engine, "elsewhere:1", beat=LONG_AGO)
    _taken_long_ago(engine, rule_id, trace_id, "elsewhere:1", amount=0.5)
    with read_session(engine) as session:
        (lost,) = lost_rule_traces(session)

    with session_scope(engine) as session:
        assert retake_trace(session, lost=lost, runner="runner-b", amount=0.2) == "taken"
    with session_scope(engine) as session:
        assert retake_trace(session, lost=lost, runner="runner-c", amount=0.2) == "already"

    with read_session(engine) as session:
        today = day_spend(session, rule_id=rule_id)
        row = session.get(RuleTraceRecord, (rule_id, trace_id))
    assert row is not None
    assert (row.runner, row.cost, row.reserved) == ("runner-b", 0.5, 0.2)
    assert today.spent == pytest.approx(0.7)  # the dead runner's worst case, and the new one
