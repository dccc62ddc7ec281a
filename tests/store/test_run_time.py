"""A run's time spent running leaves out the pauses: a run stopped at its cap, cancelled,
crashed or handed back, then resumed later, counts only the stretches it ran.

The store's clock is set by the test (every transition reads ``utc_now``), so each stretch
has an exact length and nothing waits.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from scorer_runtime.batch.summary import summarize_run
from scorer_runtime.store import (
    STALE_AFTER,
    beat,
    claim_queued,
    claim_stalled,
    create_run,
    enqueue_again,
    finish_run,
    get_run,
    hand_back,
    mark_running,
    read_session,
    request_cancel,
    session_scope,
    time_running,
)
from scorer_runtime.store.views import run_line
from tests.store.fixtures import make_dataset, make_version

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
HOUR = 3600.0


class Clock:
    """The time the store reads, moved by the test."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def at(self, seconds: float) -> None:
        self.now = T0 + timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    made = Clock()
    for module in ("runs", "queue"):
        monkeypatch.setattr(f"scorer_runtime.store.{module}.utc_now", made)
    return made


@pytest.fixture
def run_id(engine) -> int:
    _, version_id = make_version(engine)
    dataset_id = make_dataset(engine, "d", [])
    with session_scope(engine) as session:
        return create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id


def _seconds(engine, run_id: int) -> tuple[float, float | None, float]:
    """The run's time running as the store, the run summary and the Runs page's line say it."""
    with read_session(engine) as session:
        run = get_run(session, run_id=run_id)
        line = run_line(session, run_id=run_id)
        summary = summarize_run(session, run_id=run_id)
    assert line is not None
    return time_running(run), summary.wall_time_s, time_running(line)


def test_a_run_its_cap_stopped_and_resumed_an_hour_later_counts_only_its_running(
    engine, clock, run_id
):
    with session_scope(engine) as session:
        assert claim_queued(session, runner="host:1") == run_id  # at 0 s
        clock.at(60)
        finish_run(session, run_id=run_id, status="stopped")
        clock.at(HOUR)
        enqueue_again(session, run_id=run_id)
        clock.at(HOUR + 5)  # waited 5 s in the queue: not running time either
        assert claim_queued(session, runner="host:1") == run_id
        clock.at(HOUR + 35)
        finish_run(session, run_id=run_id, status="done")
    assert _seconds(engine, run_id) == (90.0, 90.0, 90.0)


def test_a_crashed_run_counts_up_to_its_last_heartbeat_and_again_from_its_takeover(
    engine, clock, run_id
):
    with session_scope(engine) as session:
        claim_queued(session, runner="gone-host:1")
        clock.at(40)
        beat(session, run_id=run_id, done=0, failed=0, cost=0.0)  # its last sign of life
        clock.at(40 + STALE_AFTER.total_seconds() + 900)
        taken = claim_stalled(session, run=get_run(session, run_id=run_id), runner="host:2")
        assert taken
        clock.now += timedelta(seconds=20)
        finish_run(session, run_id=run_id, status="done")
    assert _seconds(engine, run_id) == (60.0, 60.0, 60.0)


def test_a_run_resumed_by_a_command_after_a_crash_or_a_cancel_counts_its_stretches(
    engine, clock, run_id
):
    with session_scope(engine) as session:
        mark_running(session, run_id=run_id)  # at 0 s, scored by this process
        clock.at(30)
        beat(session, run_id=run_id, done=0, failed=0, cost=0.0)
    with session_scope(engine) as session:  # the process crashed after its beat at 30 s
        clock.at(HOUR)
        request_cancel(session, run_id=run_id)  # a stale run is cancelled at once
    with read_session(engine) as session:
        assert time_running(get_run(session, run_id=run_id)) == 30.0
    with session_scope(engine) as session:
        clock.at(2 * HOUR)
        mark_running(session, run_id=run_id)  # `run --resume`
        clock.at(2 * HOUR + 15)
    with read_session(engine) as session:  # while it runs, the stretch going on counts too
        assert time_running(get_run(session, run_id=run_id), now=clock.now) == 45.0
    with session_scope(engine) as session:
        clock.at(2 * HOUR + 25)
        finish_run(session, run_id=run_id, status="done")
    assert _seconds(engine, run_id) == (55.0, 55.0, 55.0)


def test_a_run_handed_back_by_a_stopping_runner_does_not_count_its_wait(engine, clock, run_id):
    with session_scope(engine) as session:
        claim_queued(session, runner="host:1")
        clock.at(50)
        assert hand_back(session, run_id=run_id, runner="host:1")
        clock.at(HOUR)
        claim_queued(session, runner="host:2")
        clock.at(HOUR + 20)
        finish_run(session, run_id=run_id, status="done")
    assert _seconds(engine, run_id) == (70.0, 70.0, 70.0)
