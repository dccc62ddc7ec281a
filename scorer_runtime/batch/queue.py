"""Following a queued run from outside while a runner scores it.

The studio's Start and ``scorer-studio run --queue`` store a run with status ``queued``
(through :mod:`scorer_runtime.runs`), which a runner (:mod:`scorer_runtime.batch.serve`)
claims and scores; these read where it is.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import Engine

from scorer_runtime.store.engine import read_session
from scorer_runtime.store.queue import live_runners
from scorer_runtime.store.runs import RunInfo, get_run

FINISHED = frozenset({"done", "stopped", "failed", "cancelled"})
"""Statuses a run ends in."""


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
