"""Revision 0014: runs get their time spent running. A database from before keeps working:
each run keeps the time it showed until now, and a run resumed after the upgrade adds only
the time it runs again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from scorer_runtime.store import (
    claim_queued,
    enqueue_again,
    finish_run,
    get_run,
    make_engine,
    read_session,
    session_scope,
    time_running,
    upgrade,
)

BEFORE = "0013_stability"
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def _runs_before_0014(connection) -> None:
    for sql in (
        "INSERT INTO scorers (id, name, description, created_at, updated_at) "
        "VALUES (1, 'tone', 'd', :t, :t)",
        "INSERT INTO scorer_versions (id, scorer_id, version, spec, content_hash, note, "
        "created_at) VALUES (1, 1, 1, '{}', 'abc', '', :t)",
        "INSERT INTO datasets (id, name, description, created_at) VALUES (1, 'faq', '', :t)",
    ):
        connection.execute(text(sql), {"t": T0})
    run = (
        "INSERT INTO runs (id, scorer_id, scorer_version_id, dataset_id, status, concurrency, "
        "total, done_count, failed_count, cost, cancel_requested, created_at, started_at, "
        "finished_at, heartbeat_at) VALUES (:id, 1, 1, 1, :status, 2, 0, 0, 0, 0.0, false, "
        ":t, :started, :finished, :beat)"
    )
    for run_id, status, started, finished, beat in (
        (1, "stopped", _at(0), _at(90), _at(90)),  # ended: 90 s
        (2, "running", _at(100), None, _at(130)),  # running now, since 100 s
        (3, "queued", _at(0), None, _at(45)),  # waiting to be resumed: ran until its beat
        (4, "queued", None, None, None),  # never started
    ):
        values = {"id": run_id, "status": status, "started": started, "finished": finished}
        connection.execute(text(run), {**values, "beat": beat, "t": T0})


def test_runs_stored_before_keep_their_time_and_a_resume_adds_only_its_own(
    db_url, monkeypatch: pytest.MonkeyPatch
):
    engine = make_engine(db_url)
    upgrade(engine, BEFORE)
    with engine.begin() as connection:
        _runs_before_0014(connection)

    upgrade(engine)

    with read_session(engine) as session:
        runs = {i: get_run(session, run_id=i) for i in (1, 2, 3, 4)}
    assert time_running(runs[1]) == 90.0
    assert time_running(runs[2], now=_at(160)) == 60.0
    assert time_running(runs[3]) == 45.0
    assert time_running(runs[4]) == 0.0
    # The stopped run is resumed a day later and runs 30 s more: 120 s in all.
    now = {"at": _at(86_400)}
    for module in ("runs", "queue"):
        monkeypatch.setattr(f"scorer_runtime.store.{module}.utc_now", lambda: now["at"])
    with session_scope(engine) as session:
        enqueue_again(session, run_id=1)
        assert claim_queued(session, runner="host:1") == 1
        now["at"] += timedelta(seconds=30)
        finish_run(session, run_id=1, status="done")
    with read_session(engine) as session:
        assert time_running(get_run(session, run_id=1)) == 120.0
    engine.dispose()
