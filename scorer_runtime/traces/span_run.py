"""Targets for scorers that are not agent scorers, and choosing a target by scorer type."""

from __future__ import annotations

from dataclasses import replace

from scorer_runtime.traces.agent_run import trace_to_agent_run
from scorer_runtime.traces.model import Trace
from scorer_runtime.traces.targets import NotScorableTarget, ScoringTarget, SpanTarget


def trace_to_span_run(trace: Trace, span_id: str | None = None) -> SpanTarget | NotScorableTarget:
    """A span's input and output as recorded: ``span_id``'s, else the root agent span's, else
    the first root span's. Not scorable when the span recorded neither."""
    if span_id is not None:
        span = trace.get(span_id)
        if span is None:
            reason = f"trace {trace.trace_id!r} has no span {span_id!r}"
            return NotScorableTarget(trace.trace_id, span_id, reason)
    else:
        agents = trace.of_type("agent_run")
        span = agents[0] if agents else trace.roots[0]
    if span.input is None and span.output is None:
        reason = f"span {span.name!r} ({span.type}) recorded neither input nor output"
        return NotScorableTarget(trace.trace_id, span.span_id, reason)
    return SpanTarget(trace.trace_id, span.span_id, span.input, span.output)


def trace_to_target(trace: Trace, *, agent: bool, span_id: str | None = None) -> ScoringTarget:
    """What a scorer scores in ``trace``: the agent run for an agent scorer (``agent=True``),
    else the span's input and output (see :func:`trace_to_span_run`), with the trace's
    expected answer as the ground truth."""
    target = trace_to_agent_run(trace, span_id) if agent else trace_to_span_run(trace, span_id)
    if isinstance(target, NotScorableTarget) or trace.expected is None:
        return target
    return replace(target, ground_truth=trace.expected)
