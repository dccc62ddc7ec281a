"""Scoring traces: each trace becomes a target, each target an outcome.

One trace that cannot be scored, or whose scorer fails, gives a ``not_scorable`` or
``failed`` outcome and never stops the others. Every outcome names its trace and span and
carries the :class:`ScoreResult` (partial for a failure), so it can be stored linked to them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from scorer_runtime.errors import ScorerRunError
from scorer_runtime.results import ScoreResult
from scorer_runtime.scorer import Scorer, run_awaitable_blocking
from scorer_runtime.traces.model import Trace
from scorer_runtime.traces.sampling import check_ratio, in_sample
from scorer_runtime.traces.scorer_registry import ScorerRegistry
from scorer_runtime.traces.span_run import trace_to_target
from scorer_runtime.traces.targets import NotScorableTarget

OutcomeStatus: TypeAlias = Literal["scored", "not_scorable", "failed"]

TraceSelection: TypeAlias = Trace | tuple[Trace, str | None]
"""A trace (scored at its root agent span), or a trace and the span id to score."""

OnOutcome: TypeAlias = Callable[["TraceScoreOutcome"], None]


@dataclass(frozen=True, slots=True)
class TraceScoreOutcome:
    """What scoring one trace (or one span of it) gave.

    ``status`` is ``scored``; ``not_scorable`` (``reason`` says why: the trace holds no
    run, or a step returned ``not_scorable``); or ``failed`` (``error_kind`` is the judge
    error kind such as ``rate_limited``, ``step_error`` for a step that raised, or
    ``run_error`` for an error before any step ran; ``error`` the message).
    ``failed_step`` names the step that failed or declared the target not scorable
    (``prepare_run`` for an error before any step ran; None when the trace held no run).
    """

    scorer_id: str
    trace_id: str
    span_id: str | None
    status: OutcomeStatus
    result: ScoreResult | None = None
    reason: str | None = None
    error_kind: str | None = None
    error: str | None = None
    duration_ms: float = 0.0
    failed_step: str | None = None

    @property
    def score(self) -> float | None:
        """The score, when the target was scored."""
        return self.result.score if self.status == "scored" and self.result else None

    def to_dict(self, *, camel: bool = False) -> dict[str, Any]:
        """The outcome as plain data (the result via ``ScoreResult.to_dict``)."""
        return {
            "scorer_id": self.scorer_id,
            "trace_id": self.trace_id,
            "span_id": self.span_id,
            "status": self.status,
            "score": self.score,
            "reason": self.reason,
            "error_kind": self.error_kind,
            "error": self.error,
            "failed_step": self.failed_step,
            "duration_ms": self.duration_ms,
            "result": self.result.to_dict(camel=camel) if self.result else None,
        }


def resolve_scorer(
    registry_or_scorer: ScorerRegistry | Scorer[Any, Any], scorer_id: str | None
) -> Scorer[Any, Any]:
    """The scorer to run: looked up in a registry, or the scorer given (whose id must match)."""
    if isinstance(registry_or_scorer, Scorer):
        if scorer_id is not None and scorer_id != registry_or_scorer.id:
            raise ValueError(
                f"scorer_id {scorer_id!r} does not match the scorer given "
                f"({registry_or_scorer.id!r}); pass None or the scorer's own id"
            )
        return registry_or_scorer
    if isinstance(registry_or_scorer, ScorerRegistry):
        if scorer_id is None:
            raise ValueError(
                "pass the id of the scorer to run; registered scorers: "
                f"{', '.join(registry_or_scorer.ids()) or 'none'}"
            )
        return registry_or_scorer.get(scorer_id)
    raise TypeError(
        f"expected a ScorerRegistry or a scorer, not {type(registry_or_scorer).__name__}"
    )


async def score_trace(
    scorer: Scorer[Any, Any], trace: Trace, span_id: str | None = None
) -> TraceScoreOutcome:
    """Score one trace (at ``span_id``, or its root agent span); never raises for a bad trace
    or a failing scorer."""
    started = time.perf_counter()
    target = trace_to_target(trace, agent=scorer.type == "agent", span_id=span_id)

    def outcome(status: OutcomeStatus, span: str | None, **fields: Any) -> TraceScoreOutcome:
        elapsed = (time.perf_counter() - started) * 1000
        return TraceScoreOutcome(
            scorer.id, trace.trace_id, span, status, duration_ms=elapsed, **fields
        )

    if isinstance(target, NotScorableTarget):
        return outcome("not_scorable", target.span_id, reason=target.reason)
    try:
        result = await scorer.run(**target.run_kwargs())
    except ScorerRunError as e:
        kind = e.error_kind.value if e.error_kind is not None else "step_error"
        return outcome(
            "failed",
            target.span_id,
            result=e.result,
            error_kind=kind,
            error=str(e),
            failed_step=e.failed_step,
        )
    except Exception as e:
        # prepare_run or the agent-shape check failed before any step ran.
        message = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        error = f"Scorer {scorer.id!r} could not run: {message}"
        return outcome(
            "failed", target.span_id, error_kind="run_error", error=error, failed_step="prepare_run"
        )
    if result.not_scorable is not None:
        step = result.not_scorable
        reason = f"{step.step} step: {step.reason or 'not scorable'}"
        return outcome(
            "not_scorable", target.span_id, result=result, reason=reason, failed_step=step.step
        )
    return outcome("scored", target.span_id, result=result)


def _selections(traces: Iterable[TraceSelection]) -> list[tuple[Trace, str | None]]:
    selected: list[tuple[Trace, str | None]] = []
    for n, item in enumerate(traces):
        trace, span_id = item if isinstance(item, tuple) else (item, None)
        if not isinstance(trace, Trace):
            raise TypeError(
                f"traces[{n}] must be a Trace or a (Trace, span_id) pair, "
                f"not {type(trace).__name__}"
            )
        selected.append((trace, span_id))
    return selected


async def score_traces(
    registry_or_scorer: ScorerRegistry | Scorer[Any, Any],
    scorer_id: str | None,
    traces: Iterable[TraceSelection],
    *,
    concurrency: int = 8,
    sample: float | None = None,
    on_outcome: OnOutcome | None = None,
) -> list[TraceScoreOutcome]:
    """Score traces with one scorer, at most ``concurrency`` at a time.

    ``traces`` holds traces, or ``(trace, span_id)`` pairs to score a given span.
    ``sample``: None scores every trace; a ratio in [0, 1] scores the traces whose id
    hashes below it (see :func:`in_sample`), the same traces for every scorer. Returns one
    outcome per sampled target, in the order given; ``on_outcome`` is called as each one
    completes (e.g. for a progress bar).
    """
    scorer = resolve_scorer(registry_or_scorer, scorer_id)
    check_ratio(sample)
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be a whole number of at least 1, not {concurrency!r}")
    selected = [(t, s) for t, s in _selections(traces) if in_sample(t.trace_id, sample)]
    gate = asyncio.Semaphore(concurrency)

    async def one(trace: Trace, span_id: str | None) -> TraceScoreOutcome:
        async with gate:
            done = await score_trace(scorer, trace, span_id)
        if on_outcome is not None:
            on_outcome(done)
        return done

    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(one(trace, span_id)) for trace, span_id in selected]
    return [task.result() for task in tasks]


def score_traces_sync(
    registry_or_scorer: ScorerRegistry | Scorer[Any, Any],
    scorer_id: str | None,
    traces: Iterable[TraceSelection],
    *,
    concurrency: int = 8,
    sample: float | None = None,
    on_outcome: OnOutcome | None = None,
) -> list[TraceScoreOutcome]:
    """:func:`score_traces` for synchronous code (also where an event loop is running)."""
    outcomes: list[TraceScoreOutcome] = run_awaitable_blocking(
        score_traces(
            registry_or_scorer,
            scorer_id,
            traces,
            concurrency=concurrency,
            sample=sample,
            on_outcome=on_outcome,
        )
    )
    return outcomes
