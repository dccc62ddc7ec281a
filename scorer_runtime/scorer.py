"""``create_scorer`` and the immutable :class:`Scorer` with its run pipeline."""

from __future__ import annotations

import asyncio
import builtins
import inspect
import uuid
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, Literal, overload

from scorer_runtime.errors import ScorerDefinitionError
from scorer_runtime.judge.config import Judge
from scorer_runtime.pipeline import Pipeline
from scorer_runtime.results import ScoreResult
from scorer_runtime.run import InputT, OutputT, ScorerRun
from scorer_runtime.step_types import GenerateReasonStep, ScoreStep, Step
from scorer_runtime.steps import BoundStep, bind_step
from scorer_runtime.types import StepName

if TYPE_CHECKING:
    from scorer_runtime.agent import AgentMessage, AgentRunInput

ScorerType = Literal["agent"] | None
PrepareRun = Callable[[ScorerRun[Any, Any]], Any]
"""``(run) -> run`` (sync or async); may also return a dict of fields to change."""


@dataclass(frozen=True)
class Scorer(Generic[InputT, OutputT]):
    """An immutable scorer: run it with ``await scorer.run(...)`` or ``scorer.run_sync(...)``.

    Build one with :func:`create_scorer` and chain steps; each step method returns a new
    scorer, so a scorer can be extended without changing the original.
    """

    id: str
    description: str
    name: str
    type: ScorerType = None
    judge: Judge | None = None
    prepare_run: PrepareRun | None = None
    steps: tuple[BoundStep, ...] = ()
    spec: Any = field(default=None, compare=False, repr=False)
    """The declarative definition this scorer was compiled from, when there is one."""
    cache_answers: bool = True
    """Whether a judge answer cache in use may answer this scorer's judge steps."""

    # -- building ---------------------------------------------------------------------------

    def preprocess(self, step: Step[InputT, OutputT]) -> Scorer[InputT, OutputT]:
        """Add the optional preprocess step; its result is ``results.preprocess_step_result``."""
        return self._with_step("preprocess", step)

    def analyze(self, step: Step[InputT, OutputT]) -> Scorer[InputT, OutputT]:
        """Add the optional analyze step; its result is ``results.analyze_step_result``."""
        return self._with_step("analyze", step)

    def generate_score(self, step: ScoreStep[InputT, OutputT]) -> Scorer[InputT, OutputT]:
        """Add the required step that computes the score (a finite number)."""
        return self._with_step("generate_score", step)

    def generate_reason(self, step: GenerateReasonStep[InputT, OutputT]) -> Scorer[InputT, OutputT]:
        """Add the optional step that explains the score (a string)."""
        return self._with_step("generate_reason", step)

    def _with_step(self, name: StepName, step: Any) -> Scorer[InputT, OutputT]:
        names = [s.name for s in self.steps]
        if name in names:
            raise ScorerDefinitionError(f"scorer {self.id!r} already has a {name} step")
        if name == "generate_score" and "generate_reason" in names:
            raise ScorerDefinitionError(
                f"scorer {self.id!r}: add generate_score before generate_reason "
                "(the reason is written about the score)"
            )
        return replace(self, steps=(*self.steps, bind_step(name, step)))

    # -- running ----------------------------------------------------------------------------

    @property
    def needs_event_loop(self) -> bool:
        """Whether running this scorer awaits anything (a judge call or an async function)."""
        return any(s.is_async for s in self.steps) or (
            self.prepare_run is not None and inspect.iscoroutinefunction(self.prepare_run)
        )

    async def run(
        self,
        *,
        output: OutputT | Any,
        input: InputT | Any = None,
        ground_truth: Any = None,
        request_context: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        **extra: Any,
    ) -> ScoreResult:
        """Score one input/output pair.

        Raises :class:`ScorerRunError` when a step fails (with the partial result), and
        :class:`ScorerDefinitionError` when the scorer has no generate_score step. Errors
        raised by ``prepare_run`` propagate unchanged.
        """
        return await Pipeline(self, blocking=False).run(
            self._make_run(output, input, ground_truth, request_context, run_id, extra)
        )

    def run_sync(
        self,
        *,
        output: OutputT | Any,
        input: InputT | Any = None,
        ground_truth: Any = None,
        request_context: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        **extra: Any,
    ) -> ScoreResult:
        """:meth:`run` for synchronous code; works even where an event loop is already running
        (Streamlit, notebooks)."""
        run = self._make_run(output, input, ground_truth, request_context, run_id, extra)
        if not self.needs_event_loop:
            # Nothing to await: drive the pipeline coroutine to completion by hand, no loop.
            return _drive(Pipeline(self, blocking=True).run(run))
        result: ScoreResult = run_awaitable_blocking(Pipeline(self, blocking=False).run(run))
        return result

    def _make_run(
        self,
        output: Any,
        input: Any,
        ground_truth: Any,
        request_context: Mapping[str, Any] | None,
        run_id: str | None,
        extra: dict[str, Any],
    ) -> ScorerRun[Any, Any]:
        if not any(s.name == "generate_score" for s in self.steps):
            raise ScorerDefinitionError(
                f"scorer {self.id!r} has no generate_score step; add one with "
                ".generate_score(...) before running it"
            )
        return ScorerRun(
            input=input,
            output=output,
            run_id=run_id or str(uuid.uuid4()),
            ground_truth=ground_truth,
            request_context=request_context,
            extra=extra,
        )


def _drive(coro: Any) -> ScoreResult:
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError("a synchronous scorer pipeline suspended; this is a bug")


_blocking_pool: ThreadPoolExecutor | None = None


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def run_awaitable_blocking(awaitable: Awaitable[Any]) -> Any:
    """Run an awaitable to completion from sync code, in a worker thread if a loop is running."""
    coro = awaitable if inspect.iscoroutine(awaitable) else _await(awaitable)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    global _blocking_pool
    if _blocking_pool is None:
        _blocking_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="scorer-run-sync")
    return _blocking_pool.submit(asyncio.run, coro).result()


@overload
def create_scorer(
    *,
    id: str,
    description: str,
    name: str | None = None,
    type: Literal["agent"],
    judge: Judge | None = None,
    prepare_run: PrepareRun | None = None,
    cache_answers: bool = True,
) -> Scorer[AgentRunInput, list[AgentMessage]]: ...


@overload
def create_scorer(
    *,
    id: str,
    description: str,
    name: str | None = None,
    type: None = None,
    judge: Judge | None = None,
    prepare_run: PrepareRun | None = None,
    cache_answers: bool = True,
    input_type: type[InputT],
    output_type: type[OutputT],
) -> Scorer[InputT, OutputT]: ...


@overload
def create_scorer(
    *,
    id: str,
    description: str,
    name: str | None = None,
    type: None = None,
    judge: Judge | None = None,
    prepare_run: PrepareRun | None = None,
    cache_answers: bool = True,
) -> Scorer[Any, Any]: ...


def create_scorer(
    *,
    id: str,
    description: str,
    name: str | None = None,
    type: ScorerType = None,
    judge: Judge | None = None,
    prepare_run: PrepareRun | None = None,
    cache_answers: bool = True,
    input_type: Any = None,
    output_type: Any = None,
) -> Scorer[Any, Any]:
    """Create a scorer; chain ``.preprocess``, ``.analyze``, ``.generate_score`` (required)
    and ``.generate_reason`` onto it.

    ``type="agent"`` gives agent-shaped runs (``run.input`` an :class:`AgentRunInput`,
    ``run.output`` a list of agent messages). ``input_type``/``output_type`` only inform a
    type checker of the run's shapes. ``prepare_run(run)`` reshapes the run before any step.
    ``cache_answers=False``: a batch run asks the judge every time instead of reusing the
    answers kept in the store's judge answer cache.
    """
    if not isinstance(id, str) or not id.strip():
        raise ScorerDefinitionError("create_scorer needs an id: a short unique name such as 'tone'")
    if type not in (None, "agent"):
        raise ScorerDefinitionError(f"type must be 'agent' or None, not {type!r}")
    if judge is not None and not isinstance(judge, Judge):
        raise ScorerDefinitionError(
            f"judge must be a Judge(...), not {builtins.type(judge).__name__}"
        )
    if prepare_run is not None and not callable(prepare_run):
        raise ScorerDefinitionError("prepare_run must be a function taking the run")
    return Scorer(
        id=id,
        description=description,
        name=name or id,
        type=type,
        judge=judge,
        prepare_run=prepare_run,
        cache_answers=cache_answers,
    )
