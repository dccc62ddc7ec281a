"""P1 (function-only scorer throughput) and P5 (import time of scorer_runtime)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

from common import Figure, median_of, size

from scorer_runtime import create_scorer

RUNS = size(5, 1)
CALLS = size(20_000, 200)


def _scorer():
    return (
        create_scorer(id="p1", description="four plain functions")
        .preprocess(lambda run: run.output.split())
        .analyze(lambda results: len(results.preprocess_step_result))
        .generate_score(lambda results: min(1.0, results.analyze_step_result / 10))
        .generate_reason(lambda score: f"score {score}")
    )


def _async_rate(scorer) -> float:
    async def main() -> float:
        started = time.perf_counter()
        for _ in range(CALLS):
            await scorer.run(output="a b c d e")
        return CALLS / (time.perf_counter() - started)

    return asyncio.run(main())


def _sync_rate(scorer) -> float:
    started = time.perf_counter()
    for _ in range(CALLS):
        scorer.run_sync(output="a b c d e")
    return CALLS / (time.perf_counter() - started)


def _import_seconds() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import scorer_runtime"], check=True)
    return time.perf_counter() - started


def run() -> list[Figure]:
    scorer = _scorer()
    _sync_rate(scorer)  # warm-up
    async_rate = median_of(RUNS, lambda: _async_rate(scorer))
    sync_rate = median_of(RUNS, lambda: _sync_rate(scorer))
    baseline = median_of(RUNS, lambda: _interpreter_seconds())
    import_s = median_of(RUNS, _import_seconds)
    return [
        Figure(
            "P1",
            "4-step function scorer, await scorer.run()",
            async_rate,
            "runs/s",
            ">= 20,000",
            async_rate >= 20_000,
        ),
        Figure(
            "P1",
            "4-step function scorer, scorer.run_sync()",
            sync_rate,
            "runs/s",
            ">= 20,000",
            sync_rate >= 20_000,
        ),
        Figure(
            "P5",
            "python -c 'import scorer_runtime' wall time",
            import_s,
            "s",
            "<= 0.3",
            import_s <= 0.3,
            f"a bare interpreter start takes {baseline:.3f} s here",
        ),
    ]


def _interpreter_seconds() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


if __name__ == "__main__":
    from common import print_table

    print_table(run())
