"""Errors raised by the runtime, and the error kinds recorded for judge failures.

Every error a user can meet names what failed (the scorer, the step) and says what to do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from scorer_runtime.results import ScoreResult

from scorer_runtime.types import StepName

Transport = Literal["connect", "reset", "dropped", "timeout"]
"""How a request failed below HTTP: refused/unreachable, reset, closed early, or timed out."""


class ErrorKind(StrEnum):
    """Why a judge request failed, as recorded on a judge execution."""

    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    CONNECTION = "connection"
    TIMEOUT = "timeout"
    AUTH = "auth"
    INVALID_REQUEST = "invalid_request"
    CONTEXT_LENGTH = "context_length"
    FORMAT = "format"


class ScorerDefinitionError(ValueError):
    """A scorer or step was defined in a way that can never run (raised at definition time)."""


@dataclass(eq=False)
class ProviderError(Exception):
    """A judge provider call failed.

    The judge client turns whatever the model library raised into this one shape, so that
    retry decisions and error kinds never depend on the library's exception classes. The
    original exception is kept as ``__cause__``.
    """

    message: str
    status_code: int | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    """Response headers, keys lower-cased."""
    code: str | None = None
    """The ``error.code`` of an OpenAI-style error body."""
    type: str | None = None
    """The ``error.type`` of an OpenAI-style error body."""
    retryable: bool | None = None
    """The provider's own hint (e.g. an ``x-should-retry`` header); None when it gave none."""
    transport: Transport | None = None
    """Set when the request failed below HTTP (found by walking the cause chain)."""

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def __str__(self) -> str:
        status = f"HTTP {self.status_code}: " if self.status_code is not None else ""
        return f"{status}{self.message}"

    @property
    def kind(self) -> ErrorKind | None:
        """The recorded error kind (None for a failure no kind describes)."""
        from scorer_runtime.processors.classify import classify_error

        return classify_error(self)


class JudgeFormatError(Exception):
    """The judge answer was not JSON, or did not match the output schema, even after the re-ask."""

    kind = ErrorKind.FORMAT

    def __init__(self, message: str, *, raw_output: str | None) -> None:
        super().__init__(message)
        self.raw_output = raw_output


class OutputRejectedError(Exception):
    """An output processor rejected the judge's answer."""

    def __init__(self, message: str, *, processor: str) -> None:
        super().__init__(message)
        self.processor = processor


class ScorerRunError(Exception):
    """A step failed while running a scorer.

    Carries the step that failed, the steps that completed before it, and the partial
    result (step results so far and the judge evidence, including the failed execution).
    The original exception is chained as ``__cause__``.
    """

    def __init__(
        self,
        message: str,
        *,
        scorer_id: str,
        failed_step: StepName,
        completed_steps: tuple[StepName, ...],
        result: ScoreResult,
    ) -> None:
        super().__init__(message)
        self.scorer_id = scorer_id
        self.failed_step = failed_step
        self.completed_steps = completed_steps
        self.result = result

    @property
    def error_kind(self) -> ErrorKind | None:
        """The kind of the underlying judge failure, when the step failed in a judge call."""
        cause: Any = self.__cause__
        kind = getattr(cause, "kind", None)
        return kind if isinstance(kind, ErrorKind) else None
