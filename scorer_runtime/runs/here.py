"""Scoring a run in this process, for a program that built its scorer itself: ``run_batch``
starts the run (through :func:`~scorer_runtime.runs.start.start_run`, so the run is this
process's own) and scores it with a :class:`~scorer_runtime.batch.BatchRunner`."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import Engine

from scorer_runtime.batch.runner import BatchRunner, ProgressCallback
from scorer_runtime.batch.sharding import Shards, check_processes
from scorer_runtime.batch.summary import BatchSummary
from scorer_runtime.runs.start import RunRequest, StartPlan, start_run
from scorer_runtime.saved_scorers import ScorerSource
from scorer_runtime.scorer import Scorer


async def run_batch(
    engine: Engine,
    scorer: Scorer[Any, Any],
    *,
    scorer_version_id: int | None = None,
    dataset_id: int | None = None,
    run_id: int | None = None,
    concurrency: int | None = None,
    progress: ProgressCallback | None = None,
    threshold: float | None = None,
    processes: int | None = None,
    source: ScorerSource | None = None,
    pool: Shards | None = None,
    use_cache: bool = True,
    max_cost: float | None = None,
    allow_unpriced: bool = False,
) -> BatchSummary:
    """Run ``scorer`` (compiled from ``scorer_version_id``) over ``dataset_id``.

    Pass ``run_id`` instead to resume a stored run: only examples without a result are
    scored. ``concurrency`` defaults to 4 for a new run and to the stored setting on resume.
    ``processes``, ``source`` and ``pool`` are as for :class:`BatchRunner`. ``use_cache=False``
    makes a new run ask the judge for every answer (no judge answer cache). ``max_cost`` is a
    new run's spend cap in dollars, ``allow_unpriced`` as for
    :func:`~scorer_runtime.store.set_run_cap` (a resumed run keeps its own).
    """
    check_processes(processes, source, pool)  # before a run is stored
    if run_id is None:
        if scorer_version_id is None or dataset_id is None:
            raise ValueError("run_batch needs scorer_version_id and dataset_id, or a run_id")

        request = RunRequest(
            scorer_version_id,
            dataset_id,
            concurrency=concurrency or 4,
            use_cache=use_cache,
            max_cost=max_cost,
            allow_unpriced=allow_unpriced,
        )
        plan = StartPlan.given(request, scorer)
        run_id = (await asyncio.to_thread(start_run, engine, plan)).id
    runner = BatchRunner(
        engine,
        scorer,
        run_id=run_id,
        concurrency=concurrency,
        progress=progress,
        threshold=threshold,
        processes=processes,
        source=source,
        pool=pool,
    )
    return await runner.run()
