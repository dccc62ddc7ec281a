"""The run engine: batch runs of a scorer over a dataset, in this process or in workers.

:class:`BatchRunner` scores every example of a dataset with bounded
concurrency, store one outcome per example as results complete, can be cancelled from any
process, and resume where a crash or cancel stopped them; a big run of a judge scorer is
spread over worker processes (:class:`WorkerPool`), built from a :class:`ScorerSource`.
Runs bigger than one machine go to a Ray cluster: :mod:`scorer_runtime.batch.ray_engine`
(the ``ray`` extra; not exported here, so nothing imports Ray until a run asks for it).
A run queued through :mod:`scorer_runtime.runs` is claimed from the store by a warm runner
(``QueueRunner``, ``scorer-studio worker``); ``start_attached_runner`` starts a runner that
stops with the process that started it (the studio). Example files live in
:mod:`scorer_runtime.datasets`, the command line in :mod:`scorer_runtime.cli`.

Names load on first use, so importing the package (or the CLI that uses it) stays cheap;
using it loads SQLAlchemy through the store, which is why the runtime core never imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scorer_runtime._lazy import lazy_exports

if TYPE_CHECKING:
    from scorer_runtime.batch.local_runner import (
        share_keys,
        start_attached_runner,
        stop_started_runners,
    )
    from scorer_runtime.batch.outcome import (
        ExampleInput,
        ExampleScore,
        outcome_of_error,
        score_example,
    )
    from scorer_runtime.batch.pool import WorkerCrashError, WorkerError, WorkerPool
    from scorer_runtime.batch.queue import follow_run, runner_alive
    from scorer_runtime.batch.runner import BatchProgress, BatchRunner, ProgressCallback
    from scorer_runtime.batch.serve import QueueRunner
    from scorer_runtime.batch.sharding import SHARD_MIN_EXAMPLES, choose_processes
    from scorer_runtime.batch.summary import (
        BatchSummary,
        Verdict,
        summarize_run,
    )
    from scorer_runtime.batch.trace_scoring import (
        TraceSelectionPlan,
        plan_trace_scoring,
        score_stored_traces,
    )

_MODULES = {
    "local_runner": ("share_keys", "start_attached_runner", "stop_started_runners"),
    "queue": ("follow_run", "runner_alive"),
    "serve": ("QueueRunner",),
    "outcome": ("ExampleInput", "ExampleScore", "outcome_of_error", "score_example"),
    "pool": ("WorkerCrashError", "WorkerError", "WorkerPool"),
    "runner": ("BatchProgress", "BatchRunner", "ProgressCallback"),
    "sharding": ("SHARD_MIN_EXAMPLES", "choose_processes"),
    "summary": (
        "BatchSummary",
        "Verdict",
        "summarize_run",
    ),
    "trace_scoring": (
        "TraceSelectionPlan",
        "plan_trace_scoring",
        "score_stored_traces",
    ),
}

__all__ = [
    "SHARD_MIN_EXAMPLES",
    "BatchProgress",
    "BatchRunner",
    "BatchSummary",
    "ExampleInput",
    "ExampleScore",
    "ProgressCallback",
    "QueueRunner",
    "TraceSelectionPlan",
    "Verdict",
    "WorkerCrashError",
    "WorkerError",
    "WorkerPool",
    "choose_processes",
    "follow_run",
    "outcome_of_error",
    "plan_trace_scoring",
    "runner_alive",
    "score_example",
    "score_stored_traces",
    "share_keys",
    "start_attached_runner",
    "stop_started_runners",
    "summarize_run",
]


__getattr__ = lazy_exports(__name__, _MODULES, globals())
