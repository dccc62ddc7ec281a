"""The run queue on a real database (an SQLite file; PostgreSQL too when configured): runners
racing for one queued run or one stalled run, each many times, and exactly one wins every
time; runners alive or gone; runs handed back and queued again."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from datetime import timedelta

import pytest

from scorer_runtime.store import (
    RUNNER_GONE_AFTER,
    ConflictError,
    claim_queued,
    claim_stalled,
    create_run,
    enqueue_again,
    finish_run,
    get_run,
    hand_back,
    live_runners,
    make_engine,
    mark_running,
    queued_run_waiting,
    read_session,
    remove_runner,
    request_cancel,
    runner_beat,
    session_scope,
    stalled_runs,
    utc_now,
)
from scorer_runtime.store.tables import RunnerRecord, RunRecord
from tests.store.fixtures import make_dataset, make_version

ROUNDS = 40


def _dead_runner() -> str:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return f"{socket.gethostname()}:{done.pid}"


def _queued(engine, version_id: int, dataset_id: int) -> int:
    with session_scope(engine) as session:
        run = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
        assert run.id is not None
        return run.id


def _race(db_url: str, attempt) -> list:
    """Run ``attempt(engine, name)`` on two threads, each with its own engine (connections),
    released together; their results."""
    engines = [make_engine(db_url) for _ in range(2)]
    gate = threading.Barrier(2)
    results: list = [None, None]

    def go(i: int) -> None:
        gate.wait()
        results[i] = attempt(engines[i], f"racer:{i}")

    threads = [threading.Thread(target=go, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for made in engines:
        made.dispose()
    return results


@pytest.fixture
def plan(engine):
    _, version_id = make_version(engine)
    dataset_id = make_dataset(engine, "d", [{"input": "q", "output": "a"}])
    return version_id, dataset_id


def test_two_runners_racing_for_one_queued_run_one_gets_it(engine, db_url, plan):
    def claim(made, name):
        with session_scope(made) as session:
            return claim_queued(session, runner=name)

    for _ in range(ROUNDS):
        run_id = _queued(engine, *plan)
        got = _race(db_url, claim)
        assert sorted(got, key=lambda r: r is None) == [run_id, None], got
        with read_session(engine) as session:
            run = get_run(session, run_id=run_id)
            assert not queued_run_waiting(session)
        winner = f"racer:{got.index(run_id)}"
        assert (run.status, run.runner) == ("running", winner)
        assert run.started_at is not None
        assert run.heartbeat_at is not None


def test_runners_take_queued_runs_oldest_first_and_each_once(engine, db_url, plan):
    ids = [_queued(engine, *plan) for _ in range(6)]
    taken: list[int] = []
    with session_scope(engine) as session:
        while (run_id := claim_queued(session, runner="one:1")) is not None:
            taken.append(run_id)
    assert taken == ids


def test_two_runners_racing_for_one_stalled_run_one_takes_it_over(engine, db_url, plan):
    def take(made, name):
        with read_session(made) as session:
            found = stalled_runs(session)
        if not found:
            return False
        with session_scope(made) as session:
            return claim_stalled(session, run=found[0], runner=name)

    for i in range(ROUNDS // 2):
        run_id = _queued(engine, *plan)
        with session_scope(engine) as session:
            run = session.get(RunRecord, run_id)
            run.status = "running"
            # Half the rounds: its process on this host is gone; half: it stopped beating.
            run.runner = _dead_runner() if i % 2 else "far.example:1"
            run.heartbeat_at = utc_now() - (timedelta() if i % 2 else timedelta(minutes=5))
            session.add(run)
        got = _race(db_url, take)
        assert sorted(got) == [False, True], got
        with session_scope(engine) as session:
            run = get_run(session, run_id=run_id)
            assert run.runner == f"racer:{got.index(True)}"
            assert run.status == "running"
            finish_run(session, run_id=run_id, status="done")


def test_a_runner_that_beats_is_never_taken_over(engine, plan):
    run_id = _queued(engine, *plan)
    with session_scope(engine) as session:
        claim_queued(session, runner="far.example:7")
    with read_session(engine) as session:
        assert stalled_runs(session) == []
        run = get_run(session, run_id=run_id)
    with session_scope(engine) as session:
        assert not claim_stalled(session, run=run, runner="thief:1")
        assert get_run(session, run_id=run_id).runner == "far.example:7"


def test_the_runner_that_claimed_a_run_may_start_it_and_no_one_else(engine, plan):
    from scorer_runtime.process import this_runner

    mine, theirs = _queued(engine, *plan), _queued(engine, *plan)
    with session_scope(engine) as session:
        assert claim_queued(session, runner=this_runner()) == mine
        assert claim_queued(session, runner="far.example:3") == theirs
    with session_scope(engine) as session:
        assert mark_running(session, run_id=mine).status == "running"
    with pytest.raises(ConflictError), session_scope(engine) as session:
        mark_running(session, run_id=theirs)


def test_runners_alive_beat_and_leave(engine):
    with session_scope(engine) as session:
        runner_beat(session, name="far.example:1")
        runner_beat(session, name=_dead_runner())  # beat, then its process ended
        old = RunnerRecord(
            name="far.example:2",
            started_at=utc_now() - RUNNER_GONE_AFTER * 3,
            heartbeat_at=utc_now() - RUNNER_GONE_AFTER * 2,
        )
        session.add(old)
    with read_session(engine) as session:
        assert [r.name for r in live_runners(session)] == ["far.example:1"]
    with session_scope(engine) as session:
        runner_beat(session, name="far.example:2")  # it beats again: alive again
        remove_runner(session, name="far.example:1")
    with read_session(engine) as session:
        assert [r.name for r in live_runners(session)] == ["far.example:2"]


def test_a_stopping_runner_hands_its_run_back_unless_it_was_cancelled(engine, plan):
    kept, cancelled = _queued(engine, *plan), _queued(engine, *plan)
    with session_scope(engine) as session:
        claim_queued(session, runner="me:1")
        claim_queued(session, runner="me:1")
        request_cancel(session, run_id=cancelled)
    with session_scope(engine) as session:
        assert hand_back(session, run_id=kept, runner="me:1")
        assert not hand_back(session, run_id=cancelled, runner="me:1")
        assert not hand_back(session, run_id=kept, runner="someone:2")
    with read_session(engine) as session:
        assert get_run(session, run_id=kept).status == "queued"


@pytest.mark.parametrize("status", ["done", "stopped"])
def test_a_run_that_ended_as_its_runner_stopped_is_not_handed_back(engine, plan, status):
    # The runner stops right after the run's last result (or its cap stopped it): the run
    # stays as it ended, never queued again (seen when a runner was stopped as its run ended).
    run_id = _queued(engine, *plan)
    with session_scope(engine) as session:
        claim_queued(session, runner="me:1")
        finish_run(session, run_id=run_id, status=status)
    with session_scope(engine) as session:
        assert not hand_back(session, run_id=run_id, runner="me:1")
    with read_session(engine) as session:
        assert get_run(session, run_id=run_id).status == status


def test_a_cancelled_failed_or_capped_run_is_queued_again_a_done_one_is_not(engine, plan):
    ids = [_queued(engine, *plan) for _ in range(4)]
    with session_scope(engine) as session:
        request_cancel(session, run_id=ids[0])
        finish_run(session, run_id=ids[1], status="failed", error="boom")
        finish_run(session, run_id=ids[2], status="done")
        finish_run(session, run_id=ids[3], status="stopped", error="stopped: budget reached")
    with session_scope(engine) as session:
        again = enqueue_again(session, run_id=ids[0])
        assert (again.status, again.cancel_requested) == ("queued", False)
        again = enqueue_again(session, run_id=ids[1])
        assert (again.status, again.error, again.finished_at) == ("queued", None, None)
        again = enqueue_again(session, run_id=ids[3])
        assert (again.status, again.error, again.finished_at) == ("queued", None, None)
    with pytest.raises(ConflictError, match="nothing to resume"), session_scope(engine) as s:
        enqueue_again(s, run_id=ids[2])
