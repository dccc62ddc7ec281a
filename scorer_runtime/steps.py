"""Function steps and prompt steps, and how they receive ``run``, ``results`` and ``score``.

A step callable declares only the keyword arguments it needs, by name: ``run``, ``results``
and, for generate_reason only, ``score`` (or ``**kwargs`` for all). The signature is read
once, when the step is attached, so calling a step costs no introspection.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal

from pydantic import BaseModel

from scorer_runtime.errors import ScorerDefinitionError
from scorer_runtime.judge.config import Judge
from scorer_runtime.judge.structured import SCORE_SCHEMA, StructuredOutput
from scorer_runtime.judge.worked import WorkedExample
from scorer_runtime.run import InputT, OutputT
from scorer_runtime.types import DATA_STEPS, StepName

_STEP_KWARGS: dict[StepName, frozenset[str]] = {
    "preprocess": frozenset({"run", "results"}),
    "analyze": frozenset({"run", "results"}),
    "generate_score": frozenset({"run", "results"}),
    "generate_reason": frozenset({"run", "results", "score"}),
}
_CALCULATE_SCORE_KWARGS = frozenset({"run", "results", "judge_output"})


@dataclass(frozen=True)
class PromptStep(Generic[InputT, OutputT]):
    """A step answered by the judge LLM.

    ``create_prompt`` builds the user message (sync or async, keyword convention as for
    function steps). preprocess/analyze need an ``output_schema`` (pydantic model class or
    JSON Schema dict); generate_score needs ``calculate_score(run=, results=,
    judge_output=)`` turning the judge's validated answer into the score (its schema defaults
    to an object with a numeric ``score``); generate_reason answers in plain text.
    ``judge`` overrides the scorer's judge field by field. ``worked_examples`` are cases
    people graded, shown to the judge before its prompt with their grade and note
    (:mod:`scorer_runtime.judge.worked`).
    """

    description: str
    create_prompt: Callable[..., str | Awaitable[str]]
    output_schema: type[BaseModel] | Mapping[str, Any] | None = None
    judge: Judge | None = None
    calculate_score: Callable[..., float | Awaitable[float]] | None = None
    worked_examples: Sequence[WorkedExample] = ()


@dataclass(frozen=True, slots=True)
class PreparedCallable:
    """A callable with the keyword arguments it accepts, worked out once."""

    fn: Callable[..., Any]
    accepts: frozenset[str]
    is_async: bool

    def __call__(self, values: dict[str, Any]) -> Any:
        return self.fn(**{name: values[name] for name in self.accepts})


@dataclass(frozen=True, slots=True)
class BoundStep:
    """A step attached to a scorer: its name, kind, and prepared callables."""

    name: StepName
    kind: Literal["function", "prompt"]
    call: PreparedCallable
    """The function step, or the prompt step's ``create_prompt``."""
    prompt: PromptStep[Any, Any] | None = None
    output: StructuredOutput | None = None
    calculate_score: PreparedCallable | None = None

    @property
    def is_async(self) -> bool:
        return self.kind == "prompt" or self.call.is_async


def prepare_call(fn: Callable[..., Any], allowed: frozenset[str], *, what: str) -> PreparedCallable:
    """Read ``fn``'s signature: which of ``allowed`` it takes; reject what it cannot be given."""
    if not callable(fn):
        raise ScorerDefinitionError(f"{what} must be callable, not {type(fn).__name__}")
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # some builtins have no signature: give them everything
        return PreparedCallable(fn, allowed, _is_async(fn))
    accepts: set[str] = set()
    for p in params:
        if p.kind is p.VAR_KEYWORD:
            accepts |= allowed
        elif p.kind is p.VAR_POSITIONAL:
            continue
        elif p.name in allowed and p.kind is not p.POSITIONAL_ONLY:
            accepts.add(p.name)
        elif p.default is p.empty:
            raise ScorerDefinitionError(
                f"{what} has a parameter {p.name!r} that cannot be filled: it receives "
                f"only {', '.join(sorted(allowed))} as keyword arguments. Rename the "
                "parameter, give it a default, or use **kwargs."
            )
    return PreparedCallable(fn, frozenset(accepts), _is_async(fn))


def _is_async(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - an async __call__ makes it async too
    )


def bind_step(name: StepName, step: Any) -> BoundStep:
    """Check a step definition for ``name`` and prepare it to run."""
    allowed = _STEP_KWARGS[name]
    if isinstance(step, PromptStep):
        return _bind_prompt_step(name, step, allowed)
    if isinstance(step, Mapping):
        raise ScorerDefinitionError(
            f"the {name} step is a dict; use PromptStep(description=..., create_prompt=...) "
            "for a judge step, or pass a function"
        )
    return BoundStep(name, "function", prepare_call(step, allowed, what=f"the {name} function"))


def _bind_prompt_step(
    name: StepName, step: PromptStep[Any, Any], allowed: frozenset[str]
) -> BoundStep:
    if not step.description:
        raise ScorerDefinitionError(f"the {name} prompt step needs a description")
    create = prepare_call(step.create_prompt, allowed, what=f"the {name} step's create_prompt")
    _check_worked_examples(name, step.worked_examples)
    schema = step.output_schema
    calculate = None
    if name in DATA_STEPS and schema is None:
        raise ScorerDefinitionError(
            f"the {name} prompt step needs an output_schema (a pydantic model or JSON Schema) "
            "describing the judge's answer"
        )
    if name == "generate_score":
        if step.calculate_score is None:
            raise ScorerDefinitionError(
                "the generate_score prompt step needs calculate_score(run=, results=, "
                "judge_output=) to turn the judge's answer into a number"
            )
        calculate = prepare_call(
            step.calculate_score, _CALCULATE_SCORE_KWARGS, what="calculate_score"
        )
        schema = SCORE_SCHEMA if schema is None else schema
    if name == "generate_reason" and schema is not None:
        raise ScorerDefinitionError(
            "the generate_reason prompt step answers in plain text; remove its output_schema"
        )
    output = StructuredOutput.of(schema) if schema is not None else None
    return BoundStep(name, "prompt", create, step, output, calculate)


def _check_worked_examples(name: StepName, examples: Any) -> None:
    if isinstance(examples, str | Mapping) or not isinstance(examples, Sequence):
        raise ScorerDefinitionError(
            f"the {name} prompt step's worked_examples must be a list of WorkedExample(...)"
        )
    for example in examples:
        if not isinstance(example, WorkedExample):
            raise ScorerDefinitionError(
                f"the {name} prompt step's worked_examples holds {type(example).__name__}; "
                "write each one as WorkedExample(output=..., grade=..., note=...)"
            )
