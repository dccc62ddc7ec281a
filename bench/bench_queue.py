"""P6: a queued run with a warm runner, enqueue → first score stored, against a cold process.

The warm path is what the studio's Start and ``scorer-studio run --queue`` do: store a queued
run; a ``scorer-studio worker`` started (and warmed) beforehand claims it and scores it. The
cold path is what the studio did before: store the run, then start ``scorer-studio run
--resume ID``, which imports the judge client before its first call. Both are timed from the
moment the run is stored to the moment its first score is committed, read by polling the
store every 5 ms; the judge (the tests' fake server, its own process) answers after 50 ms.
The note also times the whole ``scorer-studio run --queue`` command (its own start-up
included) to its first score.

The judge answer cache is off for every run here (``use_cache=False``, ``--no-cache``): the
same five examples are run again and again, and with the cache on every run after the first
would take its first score from the store, never waiting for the judge. The benchmark stops
if any run took an answer from the cache.

    python bench/bench_queue.py [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_batch import KEY_ENV, judge_spec
from bench_judge import fake_server
from common import Figure, print_table, size

from scorer_runtime.batch.local_runner import cli_program
from scorer_runtime.runs import RunRequest, plan_run, start_run
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ExampleData,
    ScoreFilter,
    add_examples,
    create_dataset,
    create_run,
    ensure_schema,
    get_run,
    list_runs,
    list_scores,
    make_engine,
    read_session,
    save_scorer_version,
    session_scope,
)

LATENCY_S = 0.05
EXAMPLES = 5
TARGET_S = 0.5 + LATENCY_S
COLD_RUNS = size(2, 1)  # at least; each starts a process that imports the model client


def _first_score_after(engine, run_id: int | Callable[[], int | None], started: float) -> float:
    """Seconds from ``started`` until the run's first score is stored (run_id may be found
    later, for a run a command stores)."""
    deadline = started + 300
    while time.perf_counter() < deadline:
        found = run_id() if callable(run_id) else run_id
        if found is not None:
            with read_session(engine) as session:
                page = list_scores(session, filter=ScoreFilter(run_id=found), limit=1)
            if page.rows:
                return time.perf_counter() - started
        time.sleep(0.005)
    raise TimeoutError("no score was stored in 300 s")


def _wait_ended(engine, run_id: int) -> None:
    """Wait until the run has ended, however it ended (read from the store every 5 ms)."""
    deadline = time.perf_counter() + 300
    while time.perf_counter() < deadline:
        with read_session(engine) as session:
            if get_run(session, run_id=run_id).status not in ("queued", "running"):
                return
        time.sleep(0.005)
    raise TimeoutError(f"run #{run_id} did not end in 300 s")


def _check_no_cache_hits(engine) -> None:
    """Raise if any run took a judge answer from the cache (it would not measure the judge)."""
    with read_session(engine) as session:
        runs = list_runs(session, limit=1000)
    cached = sum(r.cached_answers for r in runs)
    if cached or not runs:
        raise RuntimeError(f"{cached} judge answers came from the cache: P6 needs the judge")


def _env(url: str) -> dict[str, str]:
    return {**os.environ, "SCORER_STUDIO_DATABASE_URL": url, KEY_ENV: "sk-bench"}


def _start_runner(url: str) -> subprocess.Popen[str]:
    """A runner, returned once it has warmed up (it says it waits for runs)."""
    runner = subprocess.Popen(
        [*cli_program(), "worker"],
        env=_env(url),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert runner.stdout is not None
    while "waiting for runs" not in (line := runner.stdout.readline()):
        if not line:
            raise RuntimeError("the runner ended before it was ready")
    return runner


def _newest_run(engine) -> Callable[[], int | None]:
    with read_session(engine) as session:
        before = max((r.id for r in list_runs(session, limit=1)), default=0)

    def newest() -> int | None:
        with read_session(engine) as session:
            runs = list_runs(session, limit=1)
        return runs[0].id if runs and runs[0].id > before else None

    return newest


def _measure(url: str, engine, version_id: int, dataset_id: int, repeat: int) -> dict[str, float]:
    runner = _start_runner(url)
    warm, command = [], []
    try:
        for _ in range(repeat):
            started = time.perf_counter()
            run = start_run(
                engine,
                plan_run(
                    engine, RunRequest(version_id, dataset_id, use_cache=False, where="queue")
                ),
            )
            warm.append(_first_score_after(engine, run.id, started))
            _wait_ended(engine, run.id)  # the runner is free for the next one
        for _ in range(repeat):
            newest = _newest_run(engine)
            started = time.perf_counter()
            args = ["run", "--queue", "--no-cache", "bench-p2", "p6"]
            done = subprocess.Popen(
                [*cli_program(), *args], env=_env(url), stdout=subprocess.DEVNULL
            )
            command.append(_first_score_after(engine, newest, started))
            done.wait(timeout=120)
    finally:
        runner.terminate()
        runner.wait(timeout=30)
    cold = []
    for _ in range(max(COLD_RUNS, repeat // 2)):
        with session_scope(engine) as session:
            run = create_run(
                session, scorer_version_id=version_id, dataset_id=dataset_id, use_cache=False
            )
        started = time.perf_counter()
        args = ["run", "--resume", str(run.id), "--processes", "1", "--", "bench-p2", "p6"]
        old = subprocess.Popen([*cli_program(), *args], env=_env(url), stdout=subprocess.DEVNULL)
        cold.append(_first_score_after(engine, run.id, started))
        old.wait(timeout=120)
    _check_no_cache_hits(engine)
    return {
        "warm": statistics.median(warm),
        "command": statistics.median(command),
        "cold": statistics.median(cold),
    }


def run(repeat: int = size(5, 1)) -> list[Figure]:
    with fake_server(LATENCY_S) as judge, tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'p6.db'}"
        os.environ.setdefault(KEY_ENV, "sk-bench")
        engine = make_engine(url)
        ensure_schema(engine)
        with session_scope(engine) as session:
            version = save_scorer_version(session, spec=load_spec(judge_spec(judge)))
            dataset = create_dataset(session, name="p6")
            assert version.id is not None
            assert dataset.id is not None
            rows = [ExampleData(output=f"answer {i}") for i in range(EXAMPLES)]
            add_examples(session, dataset_id=dataset.id, examples=rows)
        try:
            got = _measure(url, engine, version.id, dataset.id, repeat)
        finally:
            engine.dispose()
    ratio = got["cold"] / got["warm"]
    return [
        Figure(
            "P6",
            "queued run, warm runner: enqueue → first score stored",
            got["warm"],
            "s",
            f"<= {TARGET_S:g}",
            got["warm"] <= TARGET_S,
            f"cold process per run (before): {got['cold']:.2f} s, {ratio:.0f}x slower; the "
            f"whole `run --queue` command to its first score {got['command']:.2f} s; "
            f"judge {LATENCY_S * 1000:.0f} ms",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    print_table(run(parser.parse_args().repeat))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
