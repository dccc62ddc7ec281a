"""Static types for step callables, so a type checker catches a step written for other data.

A step function declares any subset of its keyword arguments; each subset gets a protocol,
and a step must match one of them. These names exist for type checkers only.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Protocol, TypeAlias, TypeVar

from scorer_runtime.results import NotScorable
from scorer_runtime.run import ScorerRun, StepResults
from scorer_runtime.steps import PromptStep

_I = TypeVar("_I", contravariant=True)
_O = TypeVar("_O", contravariant=True)
_R = TypeVar("_R", covariant=True)


class _NoArgs(Protocol[_R]):
    def __call__(self) -> _R: ...


class _Run(Protocol[_I, _O, _R]):
    def __call__(self, *, run: ScorerRun[_I, _O]) -> _R: ...


class _Results(Protocol[_R]):
    def __call__(self, *, results: StepResults) -> _R: ...


class _RunResults(Protocol[_I, _O, _R]):
    def __call__(self, *, run: ScorerRun[_I, _O], results: StepResults) -> _R: ...


class _Score(Protocol[_R]):
    def __call__(self, *, score: float) -> _R: ...


class _RunScore(Protocol[_I, _O, _R]):
    def __call__(self, *, run: ScorerRun[_I, _O], score: float) -> _R: ...


class _ResultsScore(Protocol[_R]):
    def __call__(self, *, results: StepResults, score: float) -> _R: ...


class _RunResultsScore(Protocol[_I, _O, _R]):
    def __call__(self, *, run: ScorerRun[_I, _O], results: StepResults, score: float) -> _R: ...


# A generic alias takes its parameters in order of first appearance: keep _Run first.
_StepFn: TypeAlias = _Run[_I, _O, _R] | _RunResults[_I, _O, _R] | _Results[_R] | _NoArgs[_R]

Step: TypeAlias = _StepFn[_I, _O, Any] | PromptStep[_I, _O]
"""A preprocess or analyze step: a function of (run, results) or a prompt step."""

_ScoreValue: TypeAlias = float | NotScorable | Awaitable[float | NotScorable]

ScoreStep: TypeAlias = _StepFn[_I, _O, _ScoreValue] | PromptStep[_I, _O]
"""A generate_score step: a function returning a number (or ``not_scorable(...)``)."""

_Text: TypeAlias = str | NotScorable | Awaitable[str | NotScorable]

GenerateReasonStep: TypeAlias = (
    _StepFn[_I, _O, _Text]
    | _RunScore[_I, _O, _Text]
    | _Score[_Text]
    | _ResultsScore[_Text]
    | _RunResultsScore[_I, _O, _Text]
    | PromptStep[_I, _O]
)
"""A generate_reason step: a function of (run, results, score) returning text, or a prompt step."""
