"""Whether a batch run is spread over worker processes, and over how many.

Worker processes pay when the run is CPU-bound, which a judge scorer's run is: each judge
call costs milliseconds of CPU in the model client. They cost a few seconds to start (the
model client's import), so small runs stay in one process.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from scorer_runtime.batch.outcome import ExampleInput, ExampleScore
from scorer_runtime.saved_scorers import ScorerSource
from scorer_runtime.scorer import Scorer


class Shards(Protocol):
    """Who scores a run's examples outside the runner's event loop. One machine: worker
    processes (:class:`~scorer_runtime.batch.pool.WorkerPool`); several machines: Ray
    (:class:`~scorer_runtime.batch.ray_engine.RayPool`)."""

    @property
    def processes(self) -> int:
        """How many processes (or actors) score."""

    @property
    def remote(self) -> bool:
        """Whether a run given these shards is always scored by them (a Ray cluster), even
        when this process could do it alone."""

    async def score(
        self,
        source: ScorerSource,
        examples: asyncio.Queue[ExampleInput | None],
        *,
        deliver: Callable[[ExampleScore], None],
        concurrency: int,
        label: Callable[[ExampleInput], str],
        cache: Mapping[str, Any] | None = None,
        ledger: str | None = None,
    ) -> None:
        """Score each example until a None, handing every outcome to ``deliver``; ``cache``
        (the store's ``url`` and the run's ``scorer_id``; None: no cache) says where judge
        answers come from: worker processes read that store, Ray actors get the scorer's
        answers read once by the driver. ``ledger`` is the URL of the store whose judge rate
        ledger the judge requests count in (None: each process's own memory)."""

    async def close(self) -> None:
        """Stop the processes (or actors)."""


SHARD_MIN_EXAMPLES = 500
"""Fewer examples than this stay in one process: starting a worker (its model client
takes seconds to import) would cost more than it saves."""

MAX_AUTO_PROCESSES = 8
"""At most this many workers unless asked for more: each holds its model client (~220 MB)."""


def choose_processes(
    scorer: Scorer[Any, Any],
    *,
    processes: int | None,
    source: ScorerSource | None,
    pool: Shards | None,
    concurrency: int,
    pending: int,
) -> int:
    """How many worker processes score a run (1: none, all in this process).

    ``processes`` decides when given. Otherwise a run is spread over one process per CPU
    core (at most one per concurrent example, and :data:`MAX_AUTO_PROCESSES`) only when
    that can pay: the workers can build the scorer (``source``), it calls a judge (judge
    calls are what costs CPU), and the run is big enough to amortise starting the workers
    (always, with a warm ``pool``). A remote ``pool`` (a Ray cluster) scores every run given
    to it.
    """
    if processes is not None:
        return processes
    if pool is not None and pool.remote:
        return pool.processes
    if source is None or not asks_judge(scorer) or concurrency < 2:
        return 1
    if pool is not None:
        return pool.processes
    if pending < SHARD_MIN_EXAMPLES:
        return 1
    return max(1, min(os.cpu_count() or 1, concurrency, MAX_AUTO_PROCESSES))


def asks_judge(scorer: Scorer[Any, Any]) -> bool:
    """Whether any step of the scorer asks a judge (calls the model client)."""
    return any(step.prompt is not None for step in scorer.steps)


def check_processes(
    processes: int | None, source: ScorerSource | None, pool: Shards | None
) -> None:
    """Refuse settings that cannot work (before anything is stored)."""
    if processes is not None and processes < 1:
        raise ValueError("processes must be 1 or more (1 runs everything in this process)")
    if source is None and (pool is not None or (processes or 1) > 1):
        raise ValueError(
            "worker processes build the scorer from its stored version: pass "
            "source=scorer_source(session, version) as well"
        )
