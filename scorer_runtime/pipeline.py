"""Running a scorer's steps on one run: the heart of ``Scorer.run``."""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from scorer_runtime.errors import ScorerRunError
from scorer_runtime.judge import rehearsal
from scorer_runtime.judge.config import Judge, resolve_judge
from scorer_runtime.judge.execute import JudgeRequest, execute
from scorer_runtime.judge.fence import fencing
from scorer_runtime.judge.worked import with_examples
from scorer_runtime.results import NotScorable, NotScorableResult, ScoreResult
from scorer_runtime.run import ScorerRun, StepResults
from scorer_runtime.steps import BoundStep
from scorer_runtime.types import STEP_PROMPT_FIELD, StepName

if TYPE_CHECKING:
    from scorer_runtime.scorer import Scorer

_EMPTY = StepResults()


class StepError(Exception):
    """Internal: what went wrong inside a step, worded for the person running the scorer."""


class Pipeline:
    """One execution of a scorer's steps.

    With ``blocking=True`` the pipeline never suspends (an awaitable returned by a sync
    function is run to completion on the spot), so ``run_sync`` can drive it without an
    event loop; that keeps function-only scorers cheap.
    """

    def __init__(self, scorer: Scorer[Any, Any], *, blocking: bool) -> None:
        self.scorer = scorer
        self.blocking = blocking

    async def _resolve(self, value: Any) -> Any:
        if not inspect.isawaitable(value):
            return value
        if self.blocking:
            from scorer_runtime.scorer import run_awaitable_blocking

            return run_awaitable_blocking(value)
        return await value

    async def run(self, run: ScorerRun[Any, Any]) -> ScoreResult:
        scorer = self.scorer
        if scorer.type == "agent":
            run = _as_agent_run(run, scorer.id)
        if scorer.prepare_run is not None:
            # Errors raised by prepare_run propagate unchanged (the caller's own code).
            run = _as_run(await self._resolve(scorer.prepare_run(run)), run, scorer.id)
            if scorer.type == "agent":
                run = _as_agent_run(run, scorer.id)
        result = ScoreResult(
            run_id=run.run_id,
            input=run.input,
            output=run.output,
            ground_truth=run.ground_truth,
            request_context=run.request_context,
            extra=dict(run.extra),
        )
        results = _EMPTY
        completed: list[StepName] = []
        for step in scorer.steps:
            try:
                value = await self._run_step(step, run, results, result)
            except Exception as e:
                raise _run_error(scorer.id, step.name, tuple(completed), result, e) from e
            if isinstance(value, NotScorable):
                result.not_scorable = NotScorableResult(step.name, value.reason)
                break
            results = _record(step.name, value, results, result)
            completed.append(step.name)
        return result

    async def _run_step(
        self, step: BoundStep, run: ScorerRun[Any, Any], results: StepResults, result: ScoreResult
    ) -> Any:
        values = {"run": run, "results": results, "score": result.score}
        if step.kind == "function":
            value = await self._resolve(step.call(values))
        else:
            value = await self._run_prompt_step(step, run, values, result)
        return _checked(step.name, value)

    async def _run_prompt_step(
        self, step: BoundStep, run: ScorerRun[Any, Any], values: dict[str, Any], result: ScoreResult
    ) -> Any:
        assert step.prompt is not None
        judge = (self.scorer.judge or Judge()).override(step.prompt.judge)
        with fencing(judge.harden_prompt is True):
            prompt = await self._resolve(step.call(values))
            if not isinstance(prompt, str):
                raise StepError(f"create_prompt must return text, not {type(prompt).__name__}")
            prompt = with_examples(prompt, step.prompt.worked_examples)
        setattr(result, STEP_PROMPT_FIELD[step.name], prompt)
        if rehearsal.current() is not None:  # a cost estimate calls no provider: no key needed
            judge = replace(judge, api_key_env=None)
        try:
            resolved = resolve_judge(judge)
        except ValueError as e:
            raise StepError(str(e)) from e
        request = JudgeRequest(
            self.scorer.id,
            step.name,
            run.run_id,
            prompt,
            resolved,
            step.output,
            use_cache=self.scorer.cache_answers,
        )
        parsed, execution = await execute(request)
        result.judge[step.name] = execution
        if execution.exception is not None:
            raise execution.exception
        if step.calculate_score is None:
            return parsed
        return await self._resolve(step.calculate_score({**values, "judge_output": parsed}))


def _checked(step: StepName, value: Any) -> Any:
    """Check what the score and reason steps return (the reference says: a number, a string)."""
    if isinstance(value, NotScorable):
        return value
    if step == "generate_score":
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise StepError(
                f"generate_score must return a finite number, but returned {_short(value)}"
            )
        return float(value)
    if step == "generate_reason" and not isinstance(value, str):
        raise StepError(f"generate_reason must return text, but returned {_short(value)}")
    return value


def _record(step: StepName, value: Any, results: StepResults, result: ScoreResult) -> StepResults:
    if step == "preprocess":
        result.preprocess_step_result = value
        return StepResults(value, results.analyze_step_result, results.generate_score_step_result)
    if step == "analyze":
        result.analyze_step_result = value
        return StepResults(
            results.preprocess_step_result, value, results.generate_score_step_result
        )
    if step == "generate_score":
        result.score = value
        return StepResults(results.preprocess_step_result, results.analyze_step_result, value)
    result.reason = value
    return results


def _run_error(
    scorer_id: str,
    step: StepName,
    completed: tuple[StepName, ...],
    result: ScoreResult,
    error: Exception,
) -> ScorerRunError:
    detail = str(error) if isinstance(error, StepError) else _describe(error)
    message = f"Scorer {scorer_id!r} failed in its {step} step: {detail}"
    return ScorerRunError(
        message, scorer_id=scorer_id, failed_step=step, completed_steps=completed, result=result
    )


def _describe(error: Exception) -> str:
    text = str(error)
    if getattr(error, "kind", None) is not None or type(error).__module__.startswith(
        "scorer_runtime"
    ):
        return text
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _short(value: Any) -> str:
    text = repr(value)
    text = text if len(text) <= 80 else text[:77] + "..."
    return f"{text} ({type(value).__name__})"


def _as_run(value: Any, original: ScorerRun[Any, Any], scorer_id: str) -> ScorerRun[Any, Any]:
    if isinstance(value, ScorerRun):
        return value
    if isinstance(value, Mapping):
        return original.replace(**dict(value))
    raise TypeError(
        f"prepare_run of scorer {scorer_id!r} must return a ScorerRun (e.g. run.replace(...)) "
        f"or a dict of fields, not {type(value).__name__}"
    )


def _as_agent_run(run: ScorerRun[Any, Any], scorer_id: str) -> ScorerRun[Any, Any]:
    from scorer_runtime.agent import to_agent_input, to_agent_output

    try:
        return run.replace(input=to_agent_input(run.input), output=to_agent_output(run.output))
    except ValueError as e:
        raise ValueError(f"agent scorer {scorer_id!r} cannot read this run: {e}") from e
