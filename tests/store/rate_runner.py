"""A runner of judge requests in a process of its own, sharing a judge's limit through a store.

    python -m tests.store.rate_runner DATABASE_URL API_BASE REQUESTS_PER_MINUTE COUNT

Waits for a line on stdin (so two such processes start sending together), scores COUNT
examples with a judge limited to REQUESTS_PER_MINUTE, counted in the store's ledger, and
prints how many failed.
"""

from __future__ import annotations

import asyncio
import sys

from scorer_runtime import Judge, PromptStep, create_scorer
from scorer_runtime.judge import rate
from scorer_runtime.judge.client import warm
from scorer_runtime.store import make_engine
from scorer_runtime.store.rate_windows import StoreRateLedger


async def _score(api_base: str, per_minute: int, count: int) -> int:
    judge = Judge(
        model="openai/fake-judge",
        instructions="Grade.",
        api_base=api_base,
        api_key="sk-test",
        json_prompt_injection="system",
        requests_per_minute=per_minute,
    )
    scorer = create_scorer(id="shared", description="d", judge=judge).generate_score(
        PromptStep(
            description="score",
            create_prompt=lambda run: f"Rate: {run.output}",
            calculate_score=lambda judge_output: judge_output["score"],
        )
    )
    lanes = asyncio.Semaphore(8)

    async def one(i: int) -> object:
        async with lanes:
            return await scorer.run(output=f"answer {i}")

    results = await asyncio.gather(*(one(i) for i in range(count)), return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    for failure in failures:  # the test shows them when it fails
        print(f"{type(failure).__name__}: {failure}", file=sys.stderr)
    return len(failures)


async def _main(url: str, api_base: str, per_minute: int, count: int) -> int:
    await warm()
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    with rate.using_ledger(StoreRateLedger(make_engine(url))):
        return await _score(api_base, per_minute, count)


if __name__ == "__main__":
    url, api_base, per_minute, count = sys.argv[1:5]
    print(asyncio.run(_main(url, api_base, int(per_minute), int(count))), flush=True)
