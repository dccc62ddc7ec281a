"""A rehearsal of a scorer's judge requests: every step renders and is answered, no provider.

Inside :func:`rehearse`, a judge request goes through everything a run does (the prompt, the
instructions, the schema injection, the input and output processors) but the provider call
is answered here with a typical answer shaped by the step's schema; each call is recorded as
it would have been sent. With an answer cache in use, a request the cache holds is answered
with the stored answer, as a run would be (so the next steps' prompts are exact), and recorded
as cached. The cost estimate counts those calls' tokens.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from scorer_runtime.judge.config import ResolvedJudge
from scorer_runtime.judge.structured import StructuredOutput
from scorer_runtime.processors.base import JudgeMessage
from scorer_runtime.types import StepName

_TYPICAL_PHRASE = "a short typical phrase of about ten words from the judge"
_TYPICAL_REASON = (
    "The answer addresses the main question and gives the key facts the customer needs, "
    "but one statement is vague and another repeats what was already said, so the score "
    "is lower than it could be."
)
_ARRAY_ITEMS = 3


@dataclass(frozen=True, slots=True)
class RehearsedCall:
    """One judge call as the run would send it."""

    step: StepName
    judge: ResolvedJudge
    messages: tuple[JudgeMessage, ...]
    response_format: Mapping[str, Any] | None
    answer: str
    structured: bool
    """Whether the step asks for a JSON answer (then a format failure is asked again)."""
    cached: bool = False
    """Whether the answer cache in use already holds the answer (``answer`` is that one)."""


@dataclass(slots=True)
class Rehearsal:
    """The calls recorded while it is active."""

    calls: list[RehearsedCall] = field(default_factory=list)

    def answer(
        self,
        *,
        step: StepName,
        judge: ResolvedJudge,
        messages: Sequence[JudgeMessage],
        response_format: Mapping[str, Any] | None,
        output: StructuredOutput | None,
    ) -> str:
        """Record the call and give the typical answer for its step."""
        text = _TYPICAL_REASON if output is None else typical_answer(output)
        self.calls.append(
            RehearsedCall(
                step, judge, tuple(messages), response_format, text, structured=output is not None
            )
        )
        return text

    def reused(
        self,
        *,
        step: StepName,
        judge: ResolvedJudge,
        messages: Sequence[JudgeMessage],
        response_format: Mapping[str, Any] | None,
        output: StructuredOutput | None,
        answer: str,
    ) -> None:
        """Record a call the answer cache answers (with ``answer``, the stored one)."""
        self.calls.append(
            RehearsedCall(
                step,
                judge,
                tuple(messages),
                response_format,
                answer,
                structured=output is not None,
                cached=True,
            )
        )


_current: ContextVar[Rehearsal | None] = ContextVar("judge_rehearsal", default=None)


def current() -> Rehearsal | None:
    """The rehearsal active in this context, if any (then no provider is called)."""
    return _current.get()


@contextlib.contextmanager
def rehearse() -> Iterator[Rehearsal]:
    """Answer every judge request in this context here, and record it."""
    rehearsal = Rehearsal()
    token = _current.set(rehearsal)
    try:
        yield rehearsal
    finally:
        _current.reset(token)


def typical_answer(output: StructuredOutput) -> str:
    """A JSON answer of a typical size that matches the step's schema."""
    schema = output.json_schema
    return json.dumps(_instance(schema, schema.get("$defs", {}), depth=0))


def _instance(schema: Any, defs: Mapping[str, Any], *, depth: int) -> Any:
    if not isinstance(schema, Mapping) or depth > 8:
        return None
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _instance(defs.get(ref.rsplit("/", 1)[-1]), defs, depth=depth + 1)
    for key in ("enum", "const", "default"):
        if key == "enum" and schema.get("enum"):
            return schema["enum"][0]
        if key in schema and key != "enum":
            return schema[key]
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return _instance(options[0], defs, depth=depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        return {name: _instance(sub, defs, depth=depth + 1) for name, sub in properties.items()}
    if kind == "array":
        low = int(schema.get("minItems", 0))
        high = int(schema.get("maxItems", max(low, _ARRAY_ITEMS)))
        count = min(max(low, _ARRAY_ITEMS), high)
        return [_instance(schema.get("items", {}), defs, depth=depth + 1) for _ in range(count)]
    return _scalar(kind, schema)


def _scalar(kind: Any, schema: Mapping[str, Any]) -> Any:
    if kind == "string":
        return _TYPICAL_PHRASE
    if kind in ("number", "integer"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if isinstance(low, int | float) and isinstance(high, int | float):
            middle = (low + high) / 2
            return int(middle) if kind == "integer" else middle
        value = (
            low if isinstance(low, int | float) else high if isinstance(high, int | float) else 1
        )
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return True
    return None
