"""The processor protocol: the three plug points around one judge request.

- An **input processor** transforms the judge's messages before a provider call.
- An **output processor** transforms the judge's raw answer, or rejects it by raising
  :class:`~scorer_runtime.errors.OutputRejectedError`.
- An **error processor** looks at a failed provider call and decides whether it is retried
  and after what delay (it does the waiting itself, so a wait can be cancelled).

Each method may be sync or async; the judge awaits whatever is awaitable.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Protocol, TypedDict, runtime_checkable

from scorer_runtime.errors import ProviderError
from scorer_runtime.types import StepName


class JudgeMessage(TypedDict):
    """One chat message sent to the judge."""

    role: str
    content: str


@dataclass(frozen=True, slots=True)
class ProcessorContext:
    """Where a processor is running: which scorer, step, run and model."""

    scorer_id: str
    step: StepName
    run_id: str
    model: str


@dataclass(frozen=True, slots=True)
class RetryContext:
    """What an error processor knows about the request that just failed."""

    scorer_id: str
    step: StepName
    run_id: str
    model: str
    retry_count: int
    """Retries already made for this judge request (0 after the first failed call)."""
    provider_calls: int
    """Provider calls made so far for this request, the failed one included."""
    max_processor_retries: int
    """The judge's cap on retries for this request."""


@dataclass(frozen=True, slots=True)
class RetryDecision:
    """An error processor's answer: retry or not, and the delay it waited."""

    retry: bool
    delay_ms: float = 0.0
    reason: str = ""


NO_RETRY = RetryDecision(retry=False)


@runtime_checkable
class InputProcessor(Protocol):
    """Transforms the judge's messages before each provider call."""

    def process_input(
        self, messages: list[JudgeMessage], context: ProcessorContext
    ) -> list[JudgeMessage] | Awaitable[list[JudgeMessage]]: ...


@runtime_checkable
class OutputProcessor(Protocol):
    """Transforms the judge's raw answer, or rejects it with ``OutputRejectedError``."""

    def process_output(self, text: str, context: ProcessorContext) -> str | Awaitable[str]: ...


@runtime_checkable
class ErrorProcessor(Protocol):
    """Decides whether a failed provider call is retried (and waits before saying yes)."""

    def process_api_error(
        self, error: ProviderError, context: RetryContext
    ) -> RetryDecision | Awaitable[RetryDecision]: ...
