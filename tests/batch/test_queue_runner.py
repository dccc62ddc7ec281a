"""Warm runners on a real SQLite file, scoring through litellm against the fake judge: a
runner killed with kill -9 mid-run has its run resumed by the next, nothing lost or doubled;
``run --queue`` followed to the end by a runner attached to this process, which gets a key
set after it started and stops when the pipe closes; a run whose key is missing is refused
before anything is queued."""

from __future__ import annotations

import os
import signal
import time

import pytest

from scorer_runtime.batch import share_keys
from scorer_runtime.runs import RunRefusedError, RunRequest, plan_run, start_run
from scorer_runtime.store import (
    ScoreFilter,
    get_dataset,
    get_run,
    get_scorer,
    latest_version,
    list_runs,
    list_scores,
    live_runners,
    make_engine,
    read_session,
)
from tests.batch.runner_fixtures import attached_runner, runner_processes, wait_for_runners
from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_examples, write_spec

__all__ = ["attached_runner", "runner_processes"]


def _setup(db_url, tmp_path, base_url: str, examples: int) -> tuple[int, int, list[str]]:
    cli(db_url, "scorers", "import", str(write_spec(tmp_path, verdict_spec(base_url))))
    outputs = [f"{'poor' if i % 4 == 0 else 'fine'} answer {i}" for i in range(examples)]
    cli(db_url, "datasets", "import", str(write_examples(tmp_path, outputs)), "--name", "big")
    engine = make_engine(db_url)
    with read_session(engine) as session:
        scorer_id = get_scorer(session, name="verdict").id
        version_id = latest_version(session, scorer_id=scorer_id).id
        dataset_id = get_dataset(session, name="big").id
    engine.dispose()
    return version_id, dataset_id, outputs


def _rows(engine, run_id):
    with read_session(engine) as session:
        return list_scores(session, filter=ScoreFilter(run_id=run_id), limit=1000).rows


def _wait(engine, run_id, check, timeout_s=120):
    deadline = time.monotonic() + timeout_s
    while True:
        with read_session(engine) as session:
            run = get_run(session, run_id=run_id)
        if check(run):
            return run
        assert time.monotonic() < deadline, f"run {run_id}: {run.status} {run.done_count}"
        time.sleep(0.05)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_runner_killed_mid_run_is_replaced_and_nothing_is_lost_or_doubled(
    db_url, tmp_path, fake_judge, runner_processes, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    version_id, dataset_id, outputs = _setup(db_url, tmp_path, fake_judge.base_url, 40)
    fake_judge.reply({"verdict": "bad"}, when="poor", latency_s=0.1)
    fake_judge.reply({"verdict": "good"}, latency_s=0.1)
    first, second = runner_processes(db_url), runner_processes(db_url)
    wait_for_runners(db_url, 2)
    engine = make_engine(db_url)
    run = start_run(
        engine, plan_run(engine, RunRequest(version_id, dataset_id, concurrency=2, where="queue"))
    )
    running = _wait(engine, run.id, lambda r: r.status == "running" and r.done_count >= 6)
    victim = first if running.runner.endswith(f":{first.pid}") else second
    heir = second if victim is first else first
    assert running.runner.endswith(f":{victim.pid}")
    before = {(r.id, r.example_id, r.score) for r in _rows(engine, run.id)}
    os.kill(victim.pid, signal.SIGKILL)  # no chance to clean up or hand the run back
    assert victim.wait(timeout=10) == -signal.SIGKILL

    ended = _wait(engine, run.id, lambda r: r.status in ("done", "failed", "cancelled"))
    host = running.runner.rsplit(":", 1)[0]
    assert (ended.status, ended.runner) == ("done", f"{host}:{heir.pid}")
    rows = _rows(engine, run.id)
    assert before <= {(r.id, r.example_id, r.score) for r in rows}  # nothing rewritten
    assert len(rows) == len({r.example_id for r in rows}) == len(outputs)
    assert sorted(r.score for r in rows) == sorted(
        0.0 if o.startswith("poor") else 1.0 for o in outputs
    )
    # Asked twice: only the examples in flight at the kill (concurrency 2) and the results
    # in the writer's last uncommitted interval (0.2 s of 0.1 s calls, two at a time).
    assert len(outputs) <= fake_judge.request_count <= len(outputs) + 6
    engine.dispose()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_run_queue_is_scored_by_the_attached_runner_with_a_key_set_after_it_started(
    db_url, tmp_path, fake_judge, attached_runner, monkeypatch
):
    monkeypatch.delenv(KEY_ENV, raising=False)
    _setup(db_url, tmp_path, fake_judge.base_url, 6)
    fake_judge.reply({"verdict": "bad"}, when="poor")
    fake_judge.reply({"verdict": "good"})
    attached_runner(db_url)  # started without the key
    wait_for_runners(db_url, 1)
    monkeypatch.setenv(KEY_ENV, "sk-pasted-later")  # as the Judges page sets a pasted key
    share_keys([KEY_ENV])

    result = cli(db_url, "run", "--queue", "verdict", "big", "--concurrency", "2")
    assert result.exit_code == 0, result.output
    assert "Run 1 queued" in result.output
    assert "6 of 6 have a result" in result.output
    assert fake_judge.request_count == 6
    assert {r.headers["authorization"] for r in fake_judge.chat_requests} == {
        "Bearer sk-pasted-later"
    }

    from scorer_runtime.batch.local_runner import _started, stop_started_runners

    process = _started[0]
    stop_started_runners()  # closes the pipe: the runner stops by itself, cleanly
    assert process.returncode == 0
    engine = make_engine(db_url)
    with read_session(engine) as session:
        assert live_runners(session) == []  # it said it left
    engine.dispose()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_run_whose_key_is_missing_is_refused_before_it_is_queued(
    db_url, tmp_path, fake_judge, monkeypatch
):
    monkeypatch.delenv(KEY_ENV, raising=False)
    version_id, dataset_id, _ = _setup(db_url, tmp_path, fake_judge.base_url, 3)
    engine = make_engine(db_url)
    with pytest.raises(RunRefusedError, match=f"The run was not queued: .*{KEY_ENV}.* not set"):
        start_run(engine, plan_run(engine, RunRequest(version_id, dataset_id, where="queue")))
    result = cli(db_url, "run", "--queue", "verdict", "big")
    assert result.exit_code == 2
    assert "The run was not queued" in result.stderr
    assert KEY_ENV in result.stderr
    with read_session(engine) as session:
        assert list_runs(session) == []  # nothing was queued, by either path
    assert fake_judge.request_count == 0
    engine.dispose()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_runner_stopped_mid_run_puts_its_run_back_in_the_queue_for_the_next(
    db_url, tmp_path, fake_judge, runner_processes, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    version_id, dataset_id, outputs = _setup(db_url, tmp_path, fake_judge.base_url, 30)
    fake_judge.reply({"verdict": "good"}, latency_s=0.1)
    first = runner_processes(db_url)
    wait_for_runners(db_url, 1)
    engine = make_engine(db_url)
    run = start_run(
        engine, plan_run(engine, RunRequest(version_id, dataset_id, concurrency=2, where="queue"))
    )
    _wait(engine, run.id, lambda r: r.status == "running" and r.done_count >= 4)
    first.send_signal(signal.SIGTERM)  # a clean stop: the studio closing, say
    assert first.wait(timeout=30) == 0
    back = _wait(engine, run.id, lambda r: r.status != "running")
    assert (back.status, back.cancel_requested) == ("queued", False)
    kept = {(r.id, r.example_id) for r in _rows(engine, run.id)}
    assert 4 <= len(kept) < len(outputs)

    runner_processes(db_url)  # the next runner resumes it
    ended = _wait(engine, run.id, lambda r: r.status in ("done", "failed", "cancelled"))
    assert ended.status == "done"
    rows = _rows(engine, run.id)
    assert kept <= {(r.id, r.example_id) for r in rows}
    assert len(rows) == len({r.example_id for r in rows}) == len(outputs)
    engine.dispose()
