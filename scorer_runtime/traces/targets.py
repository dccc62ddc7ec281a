"""What a trace becomes for a scorer: an agent run, a span's input/output, or not scorable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

from scorer_runtime.agent import AgentMessage, AgentRunInput
from scorer_runtime.traces.model import Trace

_LISTED_SPANS = 5


def _kwargs(
    input: Any, output: Any, ground_truth: Any, trace_id: str, span_id: str
) -> dict[str, Any]:
    kwargs = {"input": input, "output": output, "trace_id": trace_id, "span_id": span_id}
    if ground_truth is not None:
        kwargs["ground_truth"] = ground_truth
    return kwargs


@dataclass(frozen=True, slots=True)
class AgentRunTarget:
    """An agent run read from a trace, for a ``type="agent"`` scorer.

    ``input`` is what the agent was given (input, remembered and system messages); ``output``
    its response as Mastra stores it: one assistant message with a ``tool-invocation`` part
    per tool call (state ``result`` once answered), then the response text.
    """

    trace_id: str
    span_id: str
    input: AgentRunInput
    output: list[AgentMessage]
    ground_truth: Any = None
    """The trace's expected answer, when it has one."""

    def run_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``scorer.run(...)``; ``trace_id``/``span_id`` become extras."""
        return _kwargs(self.input, self.output, self.ground_truth, self.trace_id, self.span_id)


@dataclass(frozen=True, slots=True)
class SpanTarget:
    """A span's input and output exactly as recorded, for a scorer that is not an agent scorer."""

    trace_id: str
    span_id: str
    input: Any
    output: Any
    ground_truth: Any = None
    """The trace's expected answer, when it has one."""

    def run_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``scorer.run(...)``; ``trace_id``/``span_id`` become extras."""
        return _kwargs(self.input, self.output, self.ground_truth, self.trace_id, self.span_id)


@dataclass(frozen=True, slots=True)
class NotScorableTarget:
    """A trace (or span) that holds nothing to score, and why."""

    trace_id: str
    span_id: str | None
    reason: str


ScoringTarget: TypeAlias = AgentRunTarget | SpanTarget | NotScorableTarget
"""What :func:`trace_to_target` gives for one trace."""


def describe_spans(trace: Trace) -> str:
    """A short list of a trace's spans for messages: ``its 3 spans: 'GET /x' (other), ...``."""
    shown = [f"{s.name!r} ({s.type})" for s in list(trace.walk())[:_LISTED_SPANS]]
    more = len(trace.spans) - len(shown)
    listed = ", ".join(shown) + (f" and {more} more" if more > 0 else "")
    count = len(trace.spans)
    return f"its {count} span{'s' if count != 1 else ''}: {listed}"
