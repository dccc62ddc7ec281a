"""Starting runs: the one way every run begins, from the command line, the studio, a runner's
queue or a trust check (:mod:`scorer_runtime.runs.start`)."""

from __future__ import annotations

from scorer_runtime.runs.start import (
    RunRefusedError,
    RunRequest,
    StartPlan,
    Where,
    plan_run,
    start_run,
    store_run,
)

__all__ = [
    "RunRefusedError",
    "RunRequest",
    "StartPlan",
    "Where",
    "plan_run",
    "start_run",
    "store_run",
]
