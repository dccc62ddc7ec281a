"""Putting a run in the queue, and following it from outside while a runner scores it.

The studio's Start and ``scorer-studio run --queue`` only *enqueue*: they store a run with
status ``queued``, which a runner (:mod:`scorer_runtime.batch.serve`) claims and scores. A
run that could not start is refused here, in words, before anything is stored: a scorer
version that no longer compiles, or a judge whose key is not set.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import Engine

from scorer_runtime.store.budget import set_run_cap
from scorer_runtime.store.engine import read_session, session_scope
from scorer_runtime.store.queue import live_runners
from scorer_runtime.store.runs import RunInfo, create_run, get_run
from scorer_runtime.store.scorers import get_version_by_id
from scorer_runtime.stored import check_judges, compile_version

FINISHED = frozenset({"done", "stopped", "failed", "cancelled"})
"""Statuses a run ends in."""


class RunRefusedError(ValueError):
    """A run that was not queued, and why (a sentence a person can act on)."""


def enqueue_run(
    engine: Engine,
    *,
    scorer_version_id: int,
    dataset_id: int,
    concurrency: int = 4,
    use_cache: bool = True,
    max_cost: float | None = None,
    allow_unpriced: bool = False,
) -> RunInfo:
    """Store a queued run of a scorer version over a dataset, once it is known to be able to
    run (its judges' keys set in this process's environment); RunRefusedError otherwise.
    ``max_cost`` is its spend cap (see :func:`~scorer_runtime.store.set_run_cap`)."""
    with session_scope(engine) as session:
        version = get_version_by_id(session, version_id=scorer_version_id)
        try:
            check_judges(compile_version(session, version))
        except ValueError as error:  # a spec that no longer compiles, a judge without key
            raise RunRefusedError(f"The run was not queued: {error}.") from None
        run = create_run(
            session,
            scorer_version_id=scorer_version_id,
            dataset_id=dataset_id,
            concurrency=concurrency,
            use_cache=use_cache,
        )
        if max_cost is None and not allow_unpriced:
            return run
        # In the same transaction: no runner can claim the run before its cap is set.
        return set_run_cap(session, run_id=run.id, max_cost=max_cost, allow_unpriced=allow_unpriced)


def runner_alive(engine: Engine) -> bool:
    """Whether a runner serves this store right now (one that beat in the last seconds)."""
    with read_session(engine) as session:
        return bool(live_runners(session))


def follow_run(
    engine: Engine,
    run_id: int,
    *,
    seen: Callable[[RunInfo], None],
    every_s: float = 0.1,
) -> RunInfo:
    """Read the run every ``every_s`` until it ends, handing each reading to ``seen``; the
    run as it ended."""
    while True:
        with read_session(engine) as session:
            run = get_run(session, run_id=run_id)
        seen(run)
        if run.status in FINISHED:
            return run
        time.sleep(every_s)
