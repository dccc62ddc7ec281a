"""Batch runs spread over worker processes: the same results, progress, cancel and resume.

The workers are real ``python -m scorer_runtime.batch.worker`` processes calling the fake
judge over HTTP. One pool serves the module's judge tests (a worker imports the model client
once, which takes seconds); the tests that need fresh workers use a formula-only scorer.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time

import pytest
import pytest_asyncio

from scorer_runtime.batch import (
    BatchRunner,
    ExampleInput,
    ExampleScore,
    WorkerCrashError,
    WorkerError,
    WorkerPool,
    choose_processes,
)
from scorer_runtime.batch.pool import shares
from scorer_runtime.batch.wire import encode, example_message, result_message, score_of
from scorer_runtime.runs import run_batch
from scorer_runtime.saved_scorers import ScorerSource
from scorer_runtime.store import (
    create_run,
    get_run,
    list_examples,
    list_runs,
    read_session,
    session_scope,
)
from tests.batch.engine_cases import (
    FORMULA_SPEC,
    KEY_ENV,
    cancel_then_resume,
    judge_spec,
    score_rows,
    stored_version,
)

in_module_loop = pytest.mark.asyncio(loop_scope="module")  # where the shared pool lives


@pytest.fixture(scope="module", autouse=True)
def _judge_key():
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_ENV, "sk-test")  # workers inherit it when they start, like a real key
        yield


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def pool(_judge_key):
    async with WorkerPool(2) as started:
        yield started


@in_module_loop
async def test_a_sharded_run_stores_one_judged_score_per_example(engine, fake_judge, pool):
    fake_judge.reply({"score": 0.25}, when="low-")
    fake_judge.reply({"score": 0.75})
    outputs = [f"{'low' if i % 3 == 0 else 'high'}-{i}" for i in range(60)]
    version_id, dataset_id, source = stored_version(engine, judge_spec(fake_judge), outputs)
    seen = []
    before = dict.fromkeys(pool.pids, 0) | pool.delivered
    summary = await run_batch(
        engine,
        source.build(),
        scorer_version_id=version_id,
        dataset_id=dataset_id,
        concurrency=6,
        progress=seen.append,
        source=source,
        pool=pool,
    )
    rows = score_rows(engine, summary.run_id)
    assert (summary.status, summary.total, summary.done, summary.scored) == ("done", 60, 60, 60)
    assert len(rows) == len({r.example_id for r in rows}) == 60
    with read_session(engine) as session:
        examples = {e.id: e.output for e in list_examples(session, dataset_id=dataset_id)}
    assert {r.example_id: r.score for r in rows} == {
        i: 0.25 if out.startswith("low-") else 0.75 for i, out in examples.items()
    }
    assert [p.done for p in seen] == list(range(1, 61))
    assert seen[-1].total == 60
    assert fake_judge.request_count == 60
    # Both worker processes did part of the work; this process called no judge.
    work = {pid: n - before.get(pid, 0) for pid, n in pool.delivered.items()}
    assert sum(work.values()) == 60
    assert all(n > 0 for n in work.values())
    assert os.getpid() not in work


@in_module_loop
async def test_cancel_stops_the_workers_and_resume_scores_only_the_rest(engine, fake_judge, pool):
    await cancel_then_resume(engine, fake_judge, pool)


@in_module_loop
async def test_a_worker_crash_fails_the_run_keeps_its_results_and_resume_finishes(
    engine, fake_judge
):
    fake_judge.reply({"score": 0.5})
    fake_judge.hold(after=8)  # 8 answers come back, then every judge call waits for the test
    outputs = [f"answer {i}" for i in range(40)]
    version_id, dataset_id, source = stored_version(engine, judge_spec(fake_judge), outputs)
    with session_scope(engine) as session:
        run_id = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id
    eight_in = asyncio.Event()

    def progress(p):
        if p.done >= 8:
            eight_in.set()

    try:
        async with WorkerPool(2) as own:
            runner = BatchRunner(
                engine,
                source.build(),
                run_id=run_id,
                concurrency=4,
                progress=progress,
                processes=2,
                source=source,
                pool=own,
            )
            running = asyncio.ensure_future(runner.run())
            await eight_in.wait()
            # 8 answered + 4 held: each worker (2 calls at once) is waiting on the judge.
            await asyncio.to_thread(fake_judge.wait_for_requests, 12, 30.0)
            killed = own.pids[0]
            os.kill(killed, signal.SIGKILL)  # a worker is killed in the middle of the run
            with pytest.raises(WorkerCrashError, match="stopped unexpectedly"):
                await running
            with read_session(engine) as session:
                run = get_run(session, run_id=run_id)
            stored = score_rows(engine, run_id)
            assert run.status == "failed"
            assert f"batch worker process {killed} stopped unexpectedly" in run.error
            assert "resume the run" in run.error
            assert len(stored) == run.done_count == 8  # nothing held was answered

            fake_judge.release()
            again = await BatchRunner(
                engine, source.build(), run_id=run_id, processes=2, source=source, pool=own
            ).run()
            assert killed not in own.pids  # the pool started afresh
    finally:
        fake_judge.release()
    rows = score_rows(engine, run_id)
    assert (again.status, again.done) == ("done", 40)
    assert len(rows) == len({r.example_id for r in rows}) == 40
    assert {r.score for r in rows} == {0.5}
    assert fake_judge.request_count == 12 + 32  # the 4 held calls were asked again, no more


@in_module_loop
async def test_a_run_starts_and_stops_its_own_workers(engine):
    outputs = ["", "abc", "a much longer answer", "abcdefgh"] * 5
    version_id, dataset_id, source = stored_version(engine, FORMULA_SPEC, outputs)
    seen = []
    summary = await run_batch(
        engine,
        source.build(),
        scorer_version_id=version_id,
        dataset_id=dataset_id,
        concurrency=3,
        processes=2,
        source=source,
        progress=seen.append,
    )
    rows = score_rows(engine, summary.run_id)
    assert sorted(r.score for r in rows) == sorted([0.0, 0.3, 1.0, 0.8] * 5)
    assert seen[-1].done == 20
    assert summary.mean == pytest.approx(0.525)


@in_module_loop
async def test_a_worker_that_cannot_build_the_scorer_fails_the_run_clearly(engine):
    version_id, dataset_id, source = stored_version(engine, FORMULA_SPEC, ["a", "b"])
    broken = ScorerSource({**FORMULA_SPEC, "steps": [{"step": "generate_score", "use": "nope"}]})
    with pytest.raises(WorkerError, match="a worker process could not build the scorer"):
        await run_batch(
            engine,
            source.build(),
            scorer_version_id=version_id,
            dataset_id=dataset_id,
            processes=2,
            source=broken,
        )
    with read_session(engine) as session:
        (run,) = list_runs(session)
    assert run.status == "failed"
    assert "nope" in run.error


def test_processes_need_a_source_and_are_counted_sensibly(engine):
    with pytest.raises(ValueError, match="pass source="):
        BatchRunner(engine, ScorerSource(FORMULA_SPEC).build(), run_id=1, processes=2)
    with pytest.raises(ValueError, match="1 or more"):
        BatchRunner(engine, ScorerSource(FORMULA_SPEC).build(), run_id=1, processes=0)


def test_only_big_judge_runs_are_spread_over_cpu_cores(monkeypatch, fake_judge):
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    judge = ScorerSource(judge_spec(fake_judge))
    formula = ScorerSource(FORMULA_SPEC)

    def choose(source, *, build=None, processes=None, pool=None, concurrency=8, pending=5000):
        scorer = (build or source).build()
        return choose_processes(
            scorer,
            processes=processes,
            source=source,
            pool=pool,
            concurrency=concurrency,
            pending=pending,
        )

    assert choose(judge) == 6
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert choose(judge, concurrency=100) == 8  # each worker holds a model client: capped
    assert choose(judge, processes=12, concurrency=100) == 12  # unless asked for
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert choose(judge, concurrency=4) == 4  # no more processes than examples at once
    assert choose(judge, pending=100) == 1  # too small to pay for starting workers
    assert choose(judge, pending=100, pool=WorkerPool(3)) == 3  # warm workers always pay
    assert choose(formula) == 1  # no judge calls: nothing CPU-heavy to spread
    assert choose(None, build=judge) == 1  # workers could not build it
    assert choose(judge, processes=1) == 1
    assert choose(formula, processes=3) == 3


def test_concurrency_is_split_evenly_and_messages_round_trip():
    assert shares(8, 3) == [3, 3, 2]
    assert shares(2, 2) == [1, 1]
    example = ExampleInput(7, input={"q": "é\u2028"}, output="line\nbreak", request_context={})
    line = encode(example_message(example, "run-1-example-7"))
    assert line.count(b"\n") == 1
    score = ExampleScore(
        7,
        "scored",
        score=0.5,
        step_results={"analyze_step_result": {"x": [1, None]}},
        prompts={"analyze": "p"},
        judge={"analyze": {"status": "success"}},
        attempts=2,
        latency_ms=3.5,
        cost=None,
    )
    assert score_of(json.loads(encode(result_message(score)))) == score


ORPHAN = """
import asyncio, sys, time
from scorer_runtime.batch import WorkerPool

async def main():
    pool = WorkerPool(2)
    await pool.start()
    print(" ".join(map(str, pool.pids)), flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


def test_workers_stop_when_their_parent_is_killed():
    parent = subprocess.Popen([sys.executable, "-c", ORPHAN], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) == 2
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 10
    alive = set(pids)
    while alive and time.monotonic() < deadline:
        alive = {pid for pid in alive if _alive(pid)}
        time.sleep(0.05)
    assert not alive  # no orphan keeps calling the judge


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[1].split()[0] != "Z"  # a zombie has exited
    except FileNotFoundError:
        return False


@in_module_loop
async def test_a_repeated_sharded_run_takes_every_answer_from_the_cache(engine, fake_judge, pool):
    fake_judge.reply({"score": 0.25}, when="low-")
    fake_judge.reply({"score": 0.75})
    outputs = [f"{'low' if i % 3 == 0 else 'high'}-{i}" for i in range(30)]
    version_id, dataset_id, source = stored_version(engine, judge_spec(fake_judge), outputs)
    summaries = []
    for _ in range(2):
        summaries.append(
            await run_batch(
                engine,
                source.build(),
                scorer_version_id=version_id,
                dataset_id=dataset_id,
                concurrency=6,
                source=source,
                pool=pool,
            )
        )
    assert fake_judge.request_count == 30  # the first run's only
    first, again = (score_rows(engine, s.run_id) for s in summaries)
    assert sorted((r.example_id, r.score) for r in again) == sorted(
        (r.example_id, r.score) for r in first
    )
    with read_session(engine) as session:
        runs = [get_run(session, run_id=s.run_id) for s in summaries]
    assert [(r.judge_answers, r.cached_answers) for r in runs] == [(30, 0), (30, 30)]
