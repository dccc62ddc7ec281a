"""P7: a repeated run of 1,000 examples takes every judge answer from the cache.

The store is a real SQLite file, the scorer the P2 one (one prompt step, the judge 50 ms
away in its own process). A first run asks the judge and fills the cache; each repeated
run of the same dataset is then timed end to end (run stored, every result stored, the
summary read) in one process, beside the same runner with a formula-only scorer (no judge
step: the most a cache hit could approach on this machine), the two alternating so that a
busy spell of a shared machine slows both; each figure is the median of ``--repeat`` runs.
Provider calls are the repeated runs' stored ``attempts`` (every HTTP call to the judge,
retries included).
Here, unlike every other benchmark of the judge, the cache is on: it is what is measured
(the note's ``--no-cache`` run turns it off and is checked to have asked the judge).

    python bench/bench_cache.py [--examples N] [--repeat R]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from bench_batch import LATENCY_S, Bench, check_asked_judge, provider_calls, setup
from bench_judge import fake_server
from common import Figure, print_table, size

from scorer_runtime.runs import run_batch
from scorer_runtime.saved_scorers import scorer_source
from scorer_runtime.spec import load_spec
from scorer_runtime.store import save_scorer_version, session_scope

CONCURRENCY = 32


async def _timed_run(bench: Bench, **options: object) -> tuple[float, int]:
    """Seconds for one complete run and the provider calls it made."""
    started = time.perf_counter()
    summary = await run_batch(
        bench.engine,
        bench.source.build(),
        scorer_version_id=bench.version_id,
        dataset_id=bench.dataset_id,
        concurrency=CONCURRENCY,
        processes=1,
        **options,  # type: ignore[arg-type]
    )
    wall = time.perf_counter() - started
    if summary.scored != bench.examples:
        raise RuntimeError(f"the benchmark run did not score every example: {summary}")
    if options.get("use_cache") is False:
        check_asked_judge(bench.engine, summary.run_id, bench.examples)
    calls, _ = provider_calls(bench.engine, summary.run_id)
    return wall, calls


async def _measure(bench: Bench, repeat: int) -> dict[str, float]:
    first, first_calls = await _timed_run(bench)  # asks the judge: fills the cache
    uncached, _ = await _timed_run(bench, use_cache=False)
    formula = _formula_bench(bench)
    await _timed_run(formula)  # warm-up of the formula scorer's path
    runs, formula_walls = [], []
    for _ in range(repeat):  # one after the other: a busy spell slows both alike
        runs.append(await _timed_run(bench))
        formula_walls.append((await _timed_run(formula))[0])
    return {
        "formula": statistics.median(formula_walls),
        "first": first,
        "first calls": first_calls,
        "wall": statistics.median(w for w, _ in runs),
        "calls": sum(c for _, c in runs),
        "uncached": uncached,
    }


FORMULA_SPEC = {
    "id": "bench-p7-formula",
    "description": "no judge step",
    "steps": [{"step": "generate_score", "formula": "min(len(output) / 10, 1)"}],
}


def _formula_bench(bench: Bench) -> Bench:
    """The same dataset and store, scored by a formula-only scorer."""
    with session_scope(bench.engine) as session:
        version = save_scorer_version(session, spec=load_spec(FORMULA_SPEC))
        source = scorer_source(session, version)
    assert version.id is not None
    return Bench(bench.engine, version.id, bench.dataset_id, source, bench.examples)


def run(examples: int = size(1000, 20), repeat: int = size(5, 1)) -> list[Figure]:
    with fake_server(LATENCY_S) as url, setup(url, examples) as bench:
        got = asyncio.run(_measure(bench, repeat))
    rate = examples / got["wall"]
    return [
        Figure(
            "P7",
            f"repeated run, {examples} examples, all answers cached, stored",
            rate,
            "runs/s",
            ">= 2000",
            rate >= 2000,
            f"one process, conc. {CONCURRENCY}; first run (judge {LATENCY_S * 1000:.0f} ms) "
            f"{examples / got['first']:.0f} runs/s, {got['first calls']:.0f} provider calls; "
            f"the same run with --no-cache {examples / got['uncached']:.0f} runs/s",
        ),
        Figure(
            "P7",
            "same, over a formula-only scorer through the same runner",
            got["formula"] / got["wall"],
            "x",
            "-",
            None,
            f"formula-only {examples / got['formula']:.0f} runs/s on this machine now",
        ),
        Figure(
            "P7",
            f"provider calls over {repeat} repeated runs",
            got["calls"],
            "calls",
            "0",
            got["calls"] == 0,
        ),
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print_table(run(args.examples, args.repeat))
