"""What a scorer run produces: the score result, and the evidence of every judge execution."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from scorer_runtime.errors import ErrorKind
from scorer_runtime.types import StepName

# the user's data (input, output, ground truth, extra values, step results).
_CAMEL = {
    "run_id": "runId",
    "ground_truth": "groundTruth",
    "request_context": "requestContext",
    "preprocess_step_result": "preprocessStepResult",
    "analyze_step_result": "analyzeStepResult",
    "preprocess_prompt": "preprocessPrompt",
    "analyze_prompt": "analyzePrompt",
    "generate_score_prompt": "generateScorePrompt",
    "generate_reason_prompt": "generateReasonPrompt",
    "not_scorable": "notScorable",
    "parsed_output": "parsedOutput",
    "raw_output": "rawOutput",
    "attempt_count": "attemptCount",
    "model_call_count": "modelCallCount",
    "duration_ms": "durationMs",
    "error_kind": "errorKind",
    "input_tokens": "inputTokens",
    "output_tokens": "outputTokens",
    "total_tokens": "totalTokens",
    "status_code": "statusCode",
    "delay_ms": "delayMs",
    "provider_calls": "providerCalls",
    "saved_cost": "savedCost",
    "cache_key": "cacheKey",
    "held_ms": "heldMs",
    "held_by": "heldBy",
    "held_rate": "heldRate",
}


def _key(name: str, camel: bool) -> str:
    return _CAMEL.get(name, name) if camel else name


def plain(value: Any) -> Any:
    """User data as plain, JSON-friendly values (pydantic models dumped, tuples as lists)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class NotScorable:
    """Returned by a step to say this run cannot be scored; no later step runs."""

    reason: str | None = None


def not_scorable(reason: str | None = None) -> NotScorable:
    """Mark the run as not scorable from inside a step (``return not_scorable("no answer")``)."""
    return NotScorable(reason)


@dataclass(frozen=True, slots=True)
class NotScorableResult:
    """Which step declared the run not scorable, and why."""

    step: StepName
    reason: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens a judge execution used (summed over its provider calls)."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.total_tokens + other.total_tokens,
        )

    def to_dict(self, *, camel: bool = False) -> dict[str, Any]:
        return {_key(f.name, camel): getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, slots=True)
class ProviderCall:
    """One HTTP call to the judge provider, as the retry loop saw it."""

    ok: bool
    duration_ms: float
    status_code: int | None = None
    error: str | None = None
    error_kind: ErrorKind | None = None
    delay_ms: float | None = None
    """The wait before the next call, when this failed call was retried."""

    def to_dict(self, *, camel: bool = False) -> dict[str, Any]:
        return {_key(f.name, camel): getattr(self, f.name) for f in fields(self)}


@dataclass(slots=True)
class JudgeExecution:
    """The evidence of one prompt step's judge execution: what was asked, what came back.

    ``attempt_count`` counts judge invocations (2 when the answer was re-asked for format);
    ``model_call_count`` counts provider HTTP calls, so retries raise it, not the former.
    """

    step: StepName
    model: str
    prompt: str
    status: Literal["success", "failed"] = "success"
    messages: list[dict[str, str]] = field(default_factory=list)
    """The messages of the last invocation, exactly as sent (after input processors)."""
    raw_output: str | None = None
    parsed_output: Any = None
    usage: Usage = field(default_factory=Usage)
    attempt_count: int = 0
    model_call_count: int = 0
    duration_ms: float = 0.0
    cost: float | None = None
    error: str | None = None
    error_kind: ErrorKind | None = None
    calls: list[ProviderCall] = field(default_factory=list)
    cached: bool = False
    """The answer came from the judge answer cache: no provider call, nothing spent."""
    saved_cost: float | None = None
    """What a cached answer cost when it was first asked (shown as saved, never as spent)."""
    cache_key: str | None = None
    """The answer's key in the judge answer cache, when a cache was in use and the answer
    is one to keep (a successful answer); whoever stores the run stores the answer under it."""
    held_ms: float = 0.0
    """Time the judge's rate gate held this request's calls back (no provider call, no retry
    spent): see :mod:`scorer_runtime.judge.rate`."""
    held_by: str | None = None
    """Why it was held: ``limit`` (the limit set on the judge) or ``provider`` (its 429s)."""
    held_rate: float | None = None
    """The requests a second it was held to, when it was held."""
    exception: BaseException | None = field(default=None, repr=False, compare=False)
    """The exception behind a failure (kept for chaining; never serialised)."""

    def to_dict(self, *, camel: bool = False) -> dict[str, Any]:
        """The execution as plain data (``camel=True`` for Mastra's key names)."""
        out: dict[str, Any] = {}
        for name in _EXECUTION_FIELDS:
            value = getattr(self, name)
            if name == "usage":
                value = value.to_dict(camel=camel)
            elif name == "calls":
                value = [c.to_dict(camel=camel) for c in value]
            elif name == "parsed_output":
                value = plain(value)
            out[_key(name, camel)] = value
        return out


_EXECUTION_FIELDS = tuple(f.name for f in fields(JudgeExecution) if f.name != "exception")
"""What a judge execution's evidence holds, in order (read once: every stored score lists it)."""


@dataclass(slots=True)
class ScoreResult:
    """Everything one scorer run produced, with the (prepared) run it scored."""

    run_id: str
    score: float | None = None
    reason: str | None = None
    preprocess_step_result: Any = None
    analyze_step_result: Any = None
    preprocess_prompt: str | None = None
    analyze_prompt: str | None = None
    generate_score_prompt: str | None = None
    generate_reason_prompt: str | None = None
    input: Any = None
    output: Any = None
    ground_truth: Any = None
    request_context: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
    not_scorable: NotScorableResult | None = None
    judge: dict[StepName, JudgeExecution] = field(default_factory=dict)
    """The judge execution of each prompt step that ran, by step name."""

    @property
    def scored(self) -> bool:
        """True when the run produced a finite score."""
        return self.score is not None and math.isfinite(self.score)

    @property
    def cost(self) -> float | None:
        """Total judge cost, or None when any execution's cost is unknown."""
        costs = [e.cost for e in self.judge.values()]
        if not costs or any(c is None for c in costs):
            return None if costs else 0.0
        return float(sum(c for c in costs if c is not None))

    def to_dict(self, *, camel: bool = False) -> dict[str, Any]:
        """The result as plain data; ``camel=True`` renames keys to Mastra's names.

        Extra keys passed to ``run()`` come first, so a result field always wins a name clash.
        """
        out: dict[str, Any] = {str(k): plain(v) for k, v in self.extra.items()}
        for f in fields(self):
            if f.name == "extra":
                continue
            value = getattr(self, f.name)
            if f.name == "judge":
                value = {step: e.to_dict(camel=camel) for step, e in value.items()}
            elif f.name == "not_scorable":
                value = value.to_dict() if value is not None else None
            else:
                value = plain(value)
            out[_key(f.name, camel)] = value
        return out
