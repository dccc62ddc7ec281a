"""A second runner for P11: runs one stored run of the bench's store in this process, once
told to start (a line on stdin), so two runners start together. Prints its wall time.

Usage: python limits_runner.py DATABASE_URL RUN_ID
"""

from __future__ import annotations

import asyncio
import sys
import time

import common  # noqa: F401 - the environment of the benchmarks

from scorer_runtime.batch import BatchRunner
from scorer_runtime.judge.client import warm
from scorer_runtime.saved_scorers import compile_version
from scorer_runtime.store import get_run, get_version_by_id, make_engine, read_session


async def main(url: str, run_id: int) -> None:
    engine = make_engine(url)
    with read_session(engine) as session:
        run = get_run(session, run_id=run_id)
        scorer = compile_version(
            session, get_version_by_id(session, version_id=run.scorer_version_id)
        )
    await warm()
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    started = time.perf_counter()
    await BatchRunner(engine, scorer, run_id=run_id, processes=1).run()
    print(f"{time.perf_counter() - started:.3f}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
