"""The per-example work of a batch: score one example, turn whatever happened into plain data.

:func:`score_example` is a plain function of (scorer, example) that never raises for a
failing example, and its result is picklable plain data; so the same work can later run in
worker processes while result writing, progress and resume stay as they are.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from scorer_runtime.errors import ErrorKind, ScorerRunError
from scorer_runtime.results import ScoreResult
from scorer_runtime.scorer import Scorer
from scorer_runtime.store.canonical import jsonable
from scorer_runtime.types import DATA_STEPS, STEP_PROMPT_FIELD, STEP_RESULT_FIELD, Outcome

_PROVIDER_KINDS = frozenset(ErrorKind) - {ErrorKind.FORMAT}
_STEP_RESULTS = tuple(STEP_RESULT_FIELD[step] for step in DATA_STEPS)


@dataclass(frozen=True, slots=True)
class ExampleInput:
    """What a scorer needs of one stored example (plain data)."""

    example_id: int | None
    input: Any = None
    output: Any = None
    ground_truth: Any = None
    request_context: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ExampleScore:
    """The outcome of scoring one example, as plain data ready to store."""

    example_id: int | None
    outcome: Outcome
    score: float | None = None
    reason: str | None = None
    error: str | None = None
    failed_step: str | None = None
    step_results: dict[str, Any] = field(default_factory=dict)
    prompts: dict[str, str] = field(default_factory=dict)
    judge: dict[str, Any] = field(default_factory=dict)
    attempts: int = 0
    """Provider HTTP calls made (retries included), over every judge step."""
    latency_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cost: float | None = None
    """Dollars spent on judge calls; None when the judge was called and litellm has no price
    for the model (0 when no judge call was made)."""

    @property
    def failed(self) -> bool:
        """Whether the outcome is an error (not scored and not declared not scorable)."""
        return self.outcome not in ("scored", "not_scorable")

    def row(
        self,
        *,
        run_id: int | None,
        scorer_id: int,
        scorer_version_id: int,
        dataset_id: int | None,
        trace_id: str | None = None,
        span_id: str | None = None,
    ) -> dict[str, Any]:
        """The row to store in the scores table (a trace's score has trace and span ids
        and no example)."""
        return {
            "run_id": run_id,
            "trace_id": trace_id,
            "span_id": span_id,
            "example_id": self.example_id,
            "scorer_id": scorer_id,
            "scorer_version_id": scorer_version_id,
            "dataset_id": dataset_id,
            "score": self.score,
            "outcome": self.outcome,
            "reason": self.reason,
            "error": self.error,
            "failed_step": self.failed_step,
            "step_results": self.step_results,
            "prompts": self.prompts,
            "judge": self.judge,
            "attempts": self.attempts,
            "latency_ms": self.latency_ms,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "cost": self.cost,
        }


def outcome_of_error(error: BaseException) -> Outcome:
    """The stored outcome of a failed scorer run (by the judge failure's error kind)."""
    kind = error.error_kind if isinstance(error, ScorerRunError) else None
    if kind is ErrorKind.FORMAT:
        return "judge_format_error"
    if kind in _PROVIDER_KINDS:
        return "provider_error"
    return "step_error"


async def score_example(
    scorer: Scorer[Any, Any], example: ExampleInput, *, run_id: str | None = None
) -> ExampleScore:
    """Run ``scorer`` on ``example``; a failure becomes an outcome, never an exception."""
    started = time.perf_counter()
    try:
        result = await scorer.run(
            input=example.input,
            output=example.output,
            ground_truth=example.ground_truth,
            request_context=example.request_context,
            run_id=run_id,
        )
    except ScorerRunError as e:
        return _evidence(example, e.result, started, outcome_of_error(e), str(e), e.failed_step)
    except Exception as e:  # the user's own prepare_run, or a run shape the scorer cannot read
        message = str(e) or type(e).__name__
        return _evidence(example, None, started, "step_error", message, "prepare_run")
    if result.not_scorable is not None:
        return _evidence(example, result, started, "not_scorable", None, None)
    return _evidence(example, result, started, "scored", None, None)


def _evidence(
    example: ExampleInput,
    result: ScoreResult | None,
    started: float,
    outcome: Outcome,
    error: str | None,
    failed_step: str | None,
) -> ExampleScore:
    latency_ms = (time.perf_counter() - started) * 1000
    return example_score(
        example.example_id,
        result,
        outcome=outcome,
        error=error,
        failed_step=failed_step,
        latency_ms=latency_ms,
    )


def _step_results(result: ScoreResult, outcome: Outcome) -> dict[str, Any]:
    """The results of the steps that completed. An example that is not scored keeps the score
    its generate_score step computed before a later step failed (or said "not scorable"), as
    ``generate_score_step_result``: evidence of how far it got, never a score that counts."""
    kept = {name: getattr(result, name) for name in _STEP_RESULTS}
    if outcome != "scored" and result.score is not None:
        kept[STEP_RESULT_FIELD["generate_score"]] = result.score
    return dict(jsonable(kept))


def example_score(
    example_id: int | None,
    result: ScoreResult | None,
    *,
    outcome: Outcome,
    error: str | None = None,
    failed_step: str | None = None,
    latency_ms: float = 0.0,
    reason: str | None = None,
) -> ExampleScore:
    """The storable outcome of a scorer run: its result's evidence (step results, prompts,
    judge executions, attempts, tokens, cost), or only the error when there is no result.

    ``reason`` is used when there is no result to give one (a trace with no run in it).
    """
    if result is None:  # failed before any step ran: no judge call, nothing spent
        return ExampleScore(
            example_id,
            outcome,
            reason=reason,
            error=error,
            failed_step=failed_step,
            latency_ms=latency_ms,
            cost=0.0,
        )
    executions = list(result.judge.values())
    usage = [e.usage for e in executions]
    attempts = sum(e.model_call_count for e in executions)
    # NULL is kept for "the judge was called and its price is unknown": a result that made
    # no call (a function-only scorer, a judge step that failed before calling) cost 0.
    cost = result.cost if attempts else (result.cost or 0.0)
    reason = result.reason
    if outcome == "not_scorable" and result.not_scorable is not None:
        reason = result.not_scorable.reason
        failed_step = result.not_scorable.step
    return ExampleScore(
        example_id=example_id,
        outcome=outcome,
        score=result.score if outcome == "scored" else None,
        reason=reason,
        error=error,
        failed_step=failed_step,
        step_results=_step_results(result, outcome),
        prompts={
            step: p
            for step, name in STEP_PROMPT_FIELD.items()
            if (p := getattr(result, name)) is not None
        },
        judge=jsonable({step: e.to_dict() for step, e in result.judge.items()}),
        attempts=attempts,
        latency_ms=latency_ms,
        input_tokens=sum(u.input_tokens for u in usage),
        output_tokens=sum(u.output_tokens for u in usage),
        total_tokens=sum(u.total_tokens for u in usage),
        cost=cost,
    )
