"""P2: a 1,000-example dataset through the batch runner, storage on, the judge 50 ms away.

The judge is the tests' fake OpenAI-compatible server in its own process (its CPU is not
ours), answering after 50 ms; the scorer is a stored spec with one prompt step; every result
is stored in a real SQLite file. At concurrency C the ideal wall time is N x 50 ms / C, and
the figure at 8 is the measured wall time over that (1.0 is perfect); at 32 and 128 it is
results per second. The runner spreads the run over one worker process per core; the
figures use warm workers (a ``WorkerPool`` kept across runs, as the in-process figures use
a warm interpreter), and the notes give the cold start and the one-process numbers.

The judge answer cache is off for every run here (``use_cache=False``): the same dataset is
run many times, and with the cache on every run after the first would be answered from the
store, measuring cache hits instead of the judge path (faster than the ideal: a false
figure). Each run is checked to have made a provider call for every example and taken no
answer from the cache; a run that did not stops the benchmark.

    python bench/bench_batch.py [--examples N] [--repeat R]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_judge import fake_server
from common import Figure, print_table, size
from sqlalchemy import text

from scorer_runtime.batch import WorkerPool
from scorer_runtime.runs import run_batch
from scorer_runtime.saved_scorers import ScorerSource, scorer_source
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ExampleData,
    add_examples,
    create_dataset,
    ensure_schema,
    make_engine,
    save_scorer_version,
    session_scope,
)

LATENCY_S = 0.05
KEY_ENV = "SCORER_BENCH_JUDGE_KEY"


def judge_spec(url: str) -> dict[str, Any]:
    """A scorer with one prompt step (the judge's number is the score), stored as specs are."""
    return {
        "id": "bench-p2",
        "description": "one prompt step",
        "judge": {
            "model": "openai/fake-judge",
            "instructions": "Grade.",
            "api_base": url,
            "api_key_env": KEY_ENV,
            "json_prompt_injection": "system",
        },
        "steps": [
            {
                "step": "generate_score",
                "description": "score",
                "template": "Rate: {{ output }}",
                "output_schema": {
                    "type": "object",
                    "properties": {"score": {"type": "number"}},
                    "required": ["score"],
                },
                "calculate_score": {"field": "score"},
            }
        ],
    }


@dataclass(frozen=True)
class Bench:
    """A fresh SQLite store holding the scorer version and the dataset."""

    engine: Any
    version_id: int
    dataset_id: int
    source: ScorerSource
    examples: int

    async def wall(self, **options: Any) -> float:
        """Seconds for one complete run (a new run of the same dataset), the judge asked for
        every example: the answer cache is off unless ``use_cache`` says otherwise."""
        options.setdefault("use_cache", False)
        started = time.perf_counter()
        summary = await run_batch(
            self.engine,
            self.source.build(),
            scorer_version_id=self.version_id,
            dataset_id=self.dataset_id,
            source=self.source,
            **options,
        )
        wall = time.perf_counter() - started
        if summary.scored != self.examples:
            raise RuntimeError(f"the benchmark run did not score every example: {summary}")
        if not options["use_cache"]:
            check_asked_judge(self.engine, summary.run_id, self.examples)
        return wall

    async def median_wall(self, repeat: int, **options: Any) -> float:
        return statistics.median([await self.wall(**options) for _ in range(repeat)])


def provider_calls(engine: Any, run_id: int) -> tuple[int, int]:
    """(provider calls, answers from the cache) of a stored run: its scores' ``attempts``
    (every HTTP call to the judge, retries included) and its cache counter."""
    with engine.connect() as connection:
        calls = connection.execute(
            text("SELECT coalesce(sum(attempts), 0) FROM scores WHERE run_id = :r"),
            {"r": run_id},
        ).scalar_one()
        cached = connection.execute(
            text("SELECT cached_answers FROM runs WHERE id = :r"), {"r": run_id}
        ).scalar_one()
    return int(calls), int(cached)


def check_asked_judge(engine: Any, run_id: int, examples: int) -> None:
    """Raise unless run ``run_id`` asked the judge for each of its ``examples`` (a figure of
    the judge path must never be a figure of cache hits)."""
    calls, cached = provider_calls(engine, run_id)
    if calls < examples or cached:
        raise RuntimeError(
            f"run {run_id} made {calls} provider calls for {examples} examples and took "
            f"{cached} answers from the cache: it does not measure the judge"
        )


@contextmanager
def setup(url: str, examples: int) -> Iterator[Bench]:
    os.environ.setdefault(KEY_ENV, "sk-bench")  # the workers inherit it
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'p2.db'}")
        ensure_schema(engine)
        with session_scope(engine) as session:
            version = save_scorer_version(session, spec=load_spec(judge_spec(url)))
            dataset = create_dataset(session, name="p2")
            assert dataset.id is not None
            assert version.id is not None
            rows = [ExampleData(output=f"answer {i}") for i in range(examples)]
            add_examples(session, dataset_id=dataset.id, examples=rows)
            source = scorer_source(session, version)
        try:
            yield Bench(engine, version.id, dataset.id, source, examples)
        finally:
            engine.dispose()


async def _measure(bench: Bench, repeat: int) -> dict[str, float]:
    walls: dict[str, float] = {}
    await bench.wall(concurrency=8, processes=1)  # warm-up: this process imports its client
    walls["one c8"] = await bench.wall(concurrency=8, processes=1)
    walls["one c32"] = await bench.wall(concurrency=32, processes=1)
    walls["cold c8"] = await bench.wall(concurrency=8)  # starts (and stops) its own workers
    async with WorkerPool(os.cpu_count() or 1) as pool:
        await bench.wall(concurrency=8, pool=pool)  # warm-up of the workers
        for c in (8, 32, 128):
            walls[f"c{c}"] = await bench.median_wall(repeat, concurrency=c, pool=pool)
    return walls


def run(examples: int = size(1000, 20), repeat: int = size(3, 1)) -> list[Figure]:
    with fake_server(LATENCY_S) as url, setup(url, examples) as bench:
        walls = asyncio.run(_measure(bench, repeat))
    ideal = examples * LATENCY_S / 8
    ratio, one, cold = walls["c8"] / ideal, walls["one c8"] / ideal, walls["cold c8"] / ideal
    rate32, rate128 = examples / walls["c32"], examples / walls["c128"]
    cores = os.cpu_count() or 1
    return [
        Figure(
            "P2",
            f"{examples} examples, 1 prompt step, stored, 50 ms judge, conc. 8",
            ratio,
            "x ideal",
            "<= 1.15",
            ratio <= 1.15,
            f"{cores} worker processes (warm); one process {one:.2f}x; "
            f"cold start (workers started for the run) {cold:.2f}x",
        ),
        Figure(
            "P2",
            "same, concurrency 32",
            rate32,
            "runs/s",
            ">= 300",
            rate32 >= 300,
            f"one process {examples / walls['one c32']:.0f} runs/s",
        ),
        Figure("P2", "same, concurrency 128", rate128, "runs/s", "-", None),
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print_table(run(args.examples, args.repeat))
