"""P2 on Ray: the batch run's examples scored by 2 local Ray actors, against the local engine
(one process) and the worker processes (WorkerPool, 2), all measured in this one run; then a
run of 10,000 examples on the same actors, one of them killed mid-run (lost/duplicated; the
pool starts a replacement). The local cluster is a new one of this process (never one that
RAY_ADDRESS or a `ray start` names), shut down at the end however the runs ended.

Same set-up as P2 (bench_batch): a stored one-prompt-step scorer, 1,000 examples, every
result stored in a SQLite file, the fake judge 50 ms away in its own process, concurrency 32.
Start-up is the wall time from nothing to the first run's end for 2 examples (Ray: joining a
new local cluster and starting its actors; the pool: starting its processes); runs/s is the
median of warm runs. Every run asks the judge for every answer (no judge answer cache): the
runs repeat one dataset, and cached answers would measure the cache, not the engines.

    python bench/bench_ray.py [--examples N] [--repeat R] [--kill-examples N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from typing import Any

import ray
from bench_batch import LATENCY_S, Bench, setup
from bench_judge import fake_server
from common import Figure, print_table, size
from sqlalchemy import func
from sqlmodel import select

from scorer_runtime.batch import WorkerPool
from scorer_runtime.batch.ray_engine import RayPool, connect
from scorer_runtime.runs import run_batch
from scorer_runtime.store import read_session
from scorer_runtime.store.tables import ScoreRecord

CONCURRENCY = 32
KILLED_RUN_LIMIT_S = size(900, 120)
"""A generous bound on the run with an actor killed (a full one takes about a minute)."""


async def _rate(bench: Bench, repeat: int, **options: Any) -> float:
    walls = [await bench.wall(concurrency=CONCURRENCY, **options) for _ in range(repeat)]
    return bench.examples / statistics.median(walls)


async def _start_up(small: Bench, make: Any) -> float:
    started = time.perf_counter()
    await small.wall(concurrency=2, **await make())
    return time.perf_counter() - started


async def _local_and_pool(bench: Bench, small: Bench, repeat: int) -> dict[str, float]:
    figures: dict[str, float] = {}

    async def local() -> dict[str, Any]:
        return {"processes": 1}

    figures["local start"] = await _start_up(small, local)
    figures["local"] = await _rate(bench, repeat, processes=1)
    pool = WorkerPool(2)

    async def processes() -> dict[str, Any]:
        await pool.start()
        return {"pool": pool}

    figures["pool start"] = await _start_up(small, processes)
    figures["pool"] = await _rate(bench, repeat, pool=pool)
    await pool.close()
    _say(figures)
    return figures


async def _on_ray(
    bench: Bench, small: Bench, big: Bench, repeat: int
) -> tuple[dict[str, float], tuple[int, int, float]]:
    """Ray's start-up and rate, then the run with an actor killed, on one pool of 2 actors."""
    actors = RayPool(2)
    try:

        async def started() -> dict[str, Any]:
            return {"pool": actors}

        figures = {"ray start": await _start_up(small, started)}
        figures["ray"] = await _rate(bench, repeat, pool=actors)
        _say(figures)
        try:
            killed = await asyncio.wait_for(_killed_run(big, actors), KILLED_RUN_LIMIT_S)
        except TimeoutError:
            raise RuntimeError(
                f"the Ray run of {big.examples} examples with an actor killed did not end "
                f"within {KILLED_RUN_LIMIT_S:g} s"
            ) from None
    finally:
        await actors.close()
    return figures, killed


def _say(figures: dict[str, float]) -> None:
    print(", ".join(f"{k} {v:.1f}" for k, v in figures.items()), file=sys.stderr, flush=True)


async def _killed_run(bench: Bench, actors: RayPool) -> tuple[int, int, float]:
    """Lost and duplicated scores of a Ray run one of whose actors is killed at a fifth."""
    killed: list[Any] = []

    def progress(p: Any) -> None:
        if p.done >= bench.examples // 5 and not killed:
            killed.append(actors.actors[0])
            ray.kill(actors.actors[0])

    started = time.perf_counter()
    summary = await run_batch(
        bench.engine,
        bench.source.build(),
        scorer_version_id=bench.version_id,
        dataset_id=bench.dataset_id,
        concurrency=CONCURRENCY,
        progress=progress,
        source=bench.source,
        pool=actors,
        use_cache=False,
    )
    wall = time.perf_counter() - started
    with read_session(bench.engine) as session:
        of_run = select(ScoreRecord.example_id).where(ScoreRecord.run_id == summary.run_id)
        rows = session.exec(select(func.count()).select_from(of_run.subquery())).one()
        distinct = len(set(session.exec(of_run).all()))
    if not killed:
        raise RuntimeError("the run ended before an actor could be killed")
    return bench.examples - distinct, rows - distinct, wall


def run(
    examples: int = size(1000, 20), repeat: int = size(3, 1), kill_examples: int = size(10_000, 100)
) -> list[Figure]:
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    with (
        fake_server(LATENCY_S) as url,
        setup(url, examples) as bench,
        setup(url, 2) as small,
        setup(url, kill_examples) as big,
    ):
        walls = asyncio.run(_local_and_pool(bench, small, repeat))
        started = time.perf_counter()
        connect(None, timeout_s=120)  # in this thread: the local cluster lives as long
        try:
            joined = time.perf_counter() - started
            on_ray, (lost, doubled, wall) = asyncio.run(_on_ray(bench, small, big, repeat))
        finally:
            ray.shutdown()  # also when a run failed: no cluster outlives the benchmark
    walls |= on_ray
    walls["ray start"] += joined
    ratio = walls["ray"] / walls["local"]
    return [
        Figure(
            "P2r",
            f"P2 on Ray, 2 local actors, conc. {CONCURRENCY} / local engine",
            ratio,
            "x local",
            ">= 0.90",
            ratio >= 0.9,
            f"runs/s: local {walls['local']:.0f}, 2 processes {walls['pool']:.0f}, "
            f"Ray {walls['ray']:.0f}; start-up s: local {walls['local start']:.1f}, "
            f"processes {walls['pool start']:.1f}, Ray {walls['ray start']:.1f}",
        ),
        Figure(
            "P2k",
            f"Ray run of {kill_examples} examples, an actor killed: lost + duplicated",
            lost + doubled,
            "scores",
            "0",
            lost + doubled == 0,
            f"lost {lost}, duplicated {doubled}, {kill_examples / wall:.0f} runs/s",
        ),
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kill-examples", type=int, default=10_000)
    args = parser.parse_args()
    print_table(run(args.examples, args.repeat, args.kill_examples))
