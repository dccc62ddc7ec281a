"""Batch runs on a Ray cluster: the same stored scores as the local engine, the judge answer
cache, an actor killed mid-run loses and doubles nothing, cancel, and a cluster that does
not answer.

One local Ray cluster (2 CPUs, no dashboard) serves the whole session; its actors are real
processes calling the fake judge over HTTP. One pool of 2 actors serves the module (an
actor imports the model client once, which takes seconds).
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time

import pytest
import pytest_asyncio
import ray
from sqlmodel import select

from scorer_runtime.batch.ray_engine import RayPool
from scorer_runtime.batch.serve import QueueRunner
from scorer_runtime.runs import RunRequest, plan_run, run_batch, start_run
from scorer_runtime.store import (
    ensure_schema,
    get_run,
    list_runs,
    make_engine,
    read_session,
)
from scorer_runtime.store.tables import ScoreRecord
from tests.batch.engine_cases import (
    FORMULA_SPEC,
    KEY_ENV,
    cancel_then_resume,
    judge_spec,
    score_rows,
    stored_version,
)

in_module_loop = pytest.mark.asyncio(loop_scope="module")  # where the shared pool lives


@pytest.fixture(scope="session")
def local_ray():
    """One local Ray cluster for the session; actors inherit this process's environment."""
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    os.environ[KEY_ENV] = "sk-test"
    options = {"num_cpus": 2, "include_dashboard": False, "log_to_driver": False}
    try:
        ray.init(**options, logging_level="WARNING")
    except Exception:  # Ray gives its node 30 s to start: a machine busy enough misses it
        ray.shutdown()
        ray.init(**options, logging_level="WARNING")
    yield
    ray.shutdown()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def pool(local_ray):
    async with RayPool(2) as started:
        yield started


@pytest.fixture
def sqlite(tmp_path):
    made = make_engine(f"sqlite:///{tmp_path / 'store.db'}")
    ensure_schema(made)
    yield made
    made.dispose()


_TIMING = {"id", "run_id", "created_at", "latency_ms", "judge"}


def _stored(engine, run_id):
    """Every stored score of the run by example, less its timing and its row's own ids
    (``judge`` holds each call's timing; its verdicts are in ``step_results``)."""
    with read_session(engine) as session:
        rows = session.exec(select(ScoreRecord).where(ScoreRecord.run_id == run_id)).all()
        return {
            r.example_id: {k: v for k, v in r.model_dump().items() if k not in _TIMING}
            for r in rows
        }


@in_module_loop
async def test_a_ray_run_stores_the_same_scores_as_the_local_engine(engine, fake_judge, pool):
    fake_judge.reply({"score": 0.25}, when="low-")
    fake_judge.reply({"score": 0.75})
    outputs = [f"{'low' if i % 3 == 0 else 'high'}-{i}" for i in range(60)]
    version_id, dataset_id, source = stored_version(engine, judge_spec(fake_judge), outputs)
    runs = {}
    before = pool.delivered or [0, 0]  # the actors start on first use
    for name, options in (("local", {"processes": 1}), ("ray", {"pool": pool})):
        runs[name] = await run_batch(
            engine,
            source.build(),
            scorer_version_id=version_id,
            dataset_id=dataset_id,
            concurrency=6,
            threshold=0.5,
            source=source,
            use_cache=False,  # both engines ask the judge: their costs and evidence compare
            **options,
        )
    local, on_ray = runs["local"], runs["ray"]
    assert (on_ray.status, on_ray.done, on_ray.scored) == ("done", 60, 60)
    assert (on_ray.mean, on_ray.verdict, on_ray.cost) == (local.mean, local.verdict, local.cost)
    stored = {name: _stored(engine, s.run_id) for name, s in runs.items()}
    assert len(stored["ray"]) == 60
    assert stored["ray"] == stored["local"]
    assert fake_judge.request_count == 120
    # Both actors did part of the Ray run.
    assert all(after > then for after, then in zip(pool.delivered, before, strict=True))


PRICED = "openai/gpt-4o-mini"  # litellm prices it: a cached answer has a cost to save


async def _asked_and_stored(engine, fake_judge, stored, **options):
    """Run the stored scorer on its dataset: the judge requests it made, its scores by
    example, its run record and its summary."""
    version_id, dataset_id, source = stored
    before = fake_judge.request_count
    summary = await run_batch(
        engine,
        source.build(),
        scorer_version_id=version_id,
        dataset_id=dataset_id,
        concurrency=6,
        source=source,
        **options,
    )
    rows = score_rows(engine, summary.run_id)
    with read_session(engine) as session:
        run = get_run(session, run_id=summary.run_id)
    assert summary.status == "done"
    return fake_judge.request_count - before, {r.example_id: r.score for r in rows}, run, summary


def _priced_spec(fake_judge):
    fake_judge.reply({"score": 0.25}, when="low-")
    fake_judge.reply({"score": 0.75})
    spec = judge_spec(fake_judge)
    spec["judge"]["model"] = PRICED
    return spec


@in_module_loop
async def test_a_repeated_ray_run_takes_every_answer_from_the_cache_unless_told_not_to(
    sqlite, fake_judge, pool
):
    outputs = [f"{'low' if i % 3 == 0 else 'high'}-{i}" for i in range(24)]
    stored = stored_version(sqlite, _priced_spec(fake_judge), outputs)
    first = await _asked_and_stored(sqlite, fake_judge, stored, pool=pool)
    again = await _asked_and_stored(sqlite, fake_judge, stored, pool=pool)
    fresh = await _asked_and_stored(sqlite, fake_judge, stored, pool=pool, use_cache=False)
    assert [asked for asked, *_ in (first, again, fresh)] == [24, 0, 24]
    assert first[1] == again[1] == fresh[1]
    assert sorted(set(first[1].values())) == [0.25, 0.75]
    counters = [(r.judge_answers, r.cached_answers) for _, _, r, _ in (first, again, fresh)]
    assert counters == [(24, 0), (24, 24), (24, 0)]
    assert again[2].saved_cost == pytest.approx(first[3].cost)
    assert first[3].cost > 0
    assert again[3].cost == 0.0
    assert again[3].cache_words.startswith("24 of 24 judge answers from the cache")
    with read_session(sqlite) as session:
        rows = session.exec(select(ScoreRecord).where(ScoreRecord.run_id == again[2].id)).all()
    evidence = rows[0].judge["generate_score"]
    assert (evidence["cached"], evidence["model_call_count"]) == (True, 0)
    assert evidence["saved_cost"] > 0


@in_module_loop
async def test_a_ray_run_after_a_local_run_reuses_its_answers(sqlite, fake_judge, pool):
    outputs = [f"{'low' if i % 2 == 0 else 'high'}-{i}" for i in range(16)]
    stored = stored_version(sqlite, _priced_spec(fake_judge), outputs)
    local = await _asked_and_stored(sqlite, fake_judge, stored, processes=1)
    on_ray = await _asked_and_stored(sqlite, fake_judge, stored, pool=pool)
    assert (local[0], on_ray[0]) == (16, 0)
    assert on_ray[1] == local[1]
    assert (on_ray[2].judge_answers, on_ray[2].cached_answers) == (16, 16)
    assert on_ray[2].saved_cost == pytest.approx(local[3].cost)


@in_module_loop
async def test_an_actor_killed_mid_run_loses_and_doubles_nothing(sqlite, fake_judge, pool):
    fake_judge.reply({"score": 0.5})
    fake_judge.hold(after=60)  # 60 answers come back, then every judge call waits
    outputs = [f"answer {i}" for i in range(400)]
    version_id, dataset_id, source = stored_version(sqlite, judge_spec(fake_judge), outputs)
    killed = []

    async def kill_while_calls_are_held() -> None:
        # Gated on the judge, not on the progress: an actor hands its results back in
        # batches, so the 60 answered may not all be reported while the rest are held.
        await asyncio.to_thread(fake_judge.wait_for_requests, 64, 60)
        killed.append(pool.actors[0])
        ray.kill(pool.actors[0])  # it has calls held: it dies mid-run
        fake_judge.release()

    killing = asyncio.create_task(kill_while_calls_are_held())
    summary = await run_batch(
        sqlite,
        source.build(),
        scorer_version_id=version_id,
        dataset_id=dataset_id,
        concurrency=8,
        source=source,
        pool=pool,
    )
    await killing
    rows = score_rows(sqlite, summary.run_id)
    assert killed
    assert killed[0] not in pool.actors  # its place has a new actor
    assert (summary.status, summary.done, summary.scored) == ("done", 400, 400)
    assert len(rows) == len({r.example_id for r in rows}) == 400


@in_module_loop
async def test_cancel_stops_the_actors_and_resume_scores_only_the_rest(sqlite, fake_judge, pool):
    await cancel_then_resume(sqlite, fake_judge, pool)


@in_module_loop
async def test_a_formula_scorer_runs_on_the_actors_too(sqlite, pool):
    version_id, dataset_id, source = stored_version(sqlite, FORMULA_SPEC, ["short", "a long one"])
    before = sum(pool.delivered)
    summary = await run_batch(
        sqlite,
        source.build(),
        scorer_version_id=version_id,
        dataset_id=dataset_id,
        source=source,
        pool=pool,
    )
    assert (summary.status, summary.scored) == ("done", 2)
    assert sum(pool.delivered) == before + 2
    assert sorted(r.score for r in score_rows(sqlite, summary.run_id)) == [0.5, 1.0]


@in_module_loop
async def test_a_warm_runner_on_ray_scores_its_claimed_runs_on_the_actors(sqlite, fake_judge, pool):
    fake_judge.reply({"score": 0.25}, when="low-")
    fake_judge.reply({"score": 0.75}, latency_s=0.02)
    outputs = [f"{'low' if i % 2 == 0 else 'high'}-{i}" for i in range(12)]
    version_id, dataset_id, _ = stored_version(sqlite, judge_spec(fake_judge), outputs)
    before = sum(pool.delivered)
    runner = QueueRunner(sqlite, pool=pool, poll_s=0.05, say=False)
    serving = asyncio.create_task(runner.serve())
    queued = [
        start_run(
            sqlite,
            plan_run(sqlite, RunRequest(version_id, dataset_id, use_cache=False, where="queue")),
        )
        for _ in range(2)
    ]
    deadline = time.monotonic() + 120
    while True:
        with read_session(sqlite) as session:
            runs = [get_run(session, run_id=run.id) for run in queued]
        if all(run.status == "done" for run in runs) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.1)
    runner.stop()
    await serving
    assert [(run.status, run.runner) for run in runs] == [("done", runner.name)] * 2
    for run in runs:
        rows = score_rows(sqlite, run.id)
        assert len(rows) == len({r.example_id for r in rows}) == 12
        assert sorted(r.score for r in rows) == [0.25] * 6 + [0.75] * 6
    assert sum(pool.delivered) == before + 24  # every example was scored by the actors
    assert fake_judge.request_count == 24


def _cli(db_url, *args, command=("run", "length", "answers"), env=None):
    env = {**os.environ, **(env or {}), "SCORER_STUDIO_DATABASE_URL": db_url}
    code = "from scorer_runtime.cli import main; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, *command, "--engine", "ray", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_cluster_that_does_not_answer_is_said_in_words_and_no_run_starts(sqlite, tmp_path):
    url = str(sqlite.url)
    stored_version(sqlite, FORMULA_SPEC, ["short"])
    with socket.socket() as refused, socket.socket() as silent:
        refused.bind(("127.0.0.1", 0))  # bound, not listening: connecting is refused
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # accepts, never answers
        started = time.perf_counter()
        commands = {
            "refused": _cli(url, "--address", f"ray://127.0.0.1:{refused.getsockname()[1]}"),
            "silent": _cli(url, "--address", f"127.0.0.1:{silent.getsockname()[1]}"),
            "runner": _cli(
                url, "--address", f"ray://127.0.0.1:{refused.getsockname()[1]}", command=["worker"]
            ),
        }
        ends = {name: p.communicate(timeout=60) for name, p in commands.items()}
        elapsed = time.perf_counter() - started
    for name, (_, err) in ends.items():
        assert commands[name].returncode == 2, err
        assert "Traceback" not in err
        assert "The run was not started" in err
    assert "nothing answers at the Ray cluster at ray://127.0.0.1:" in ends["refused"][1]
    assert "nothing answers at the Ray cluster at ray://127.0.0.1:" in ends["runner"][1]
    assert "did not answer within 8 s" in ends["silent"][1]
    # The wait is bounded (8 s, said above) whatever Ray's own retries would take; the rest
    # is the command's start-up on a busy machine.
    assert elapsed < 60
    with read_session(sqlite) as session:
        assert list_runs(session) == []


def test_without_an_address_a_run_starts_its_own_cluster_whatever_ray_address_names(sqlite):
    """Ray itself, given no address, joins the cluster RAY_ADDRESS (or the last `ray start`
    of this machine) names: here one that never answers, which the run must not wait for."""
    url = str(sqlite.url)
    stored_version(sqlite, FORMULA_SPEC, ["short", "a longer answer"])
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # accepts, never answers
        command = _cli(url, env={"RAY_ADDRESS": f"127.0.0.1:{silent.getsockname()[1]}"})
        try:
            _, err = command.communicate(timeout=180)
        finally:
            command.kill()  # when it hangs (nothing once it ended)
            command.wait()
    assert command.returncode == 0, err
    with read_session(sqlite) as session:
        (run,) = list_runs(session)
    assert run.status == "done"
    assert sorted(r.score for r in score_rows(sqlite, run.id)) == [0.5, 1.0]
