"""Starting runs: the one way every run begins, from the command line, the studio, a runner's
queue or a trust check (:mod:`scorer_runtime.runs.start`), scoring rules and their
backfills (:mod:`scorer_runtime.runs.rules`), and ``run_batch`` for a program
that scores a scorer it built itself (:mod:`scorer_runtime.runs.here`)."""

from __future__ import annotations

from scorer_runtime.runs.here import run_batch
from scorer_runtime.runs.rules import (
    BackfillPlan,
    RulePlan,
    plan_backfill,
    plan_rule,
    rule_status_words,
    start_rule,
)
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
    "BackfillPlan",
    "RulePlan",
    "RunRefusedError",
    "RunRequest",
    "StartPlan",
    "Where",
    "plan_backfill",
    "plan_rule",
    "plan_run",
    "rule_status_words",
    "run_batch",
    "start_rule",
    "start_run",
    "store_run",
]
