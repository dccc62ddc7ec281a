"""Agent traces: import OpenTelemetry and Mastra spans, turn them into agent runs, score them.

::

    from scorer_runtime.traces import ScorerRegistry, load_traces, score_traces_sync

    traces = load_traces("traces.jsonl")            # OTLP JSON or Mastra spans
    registry = ScorerRegistry([tool_use_scorer])
    outcomes = score_traces_sync(registry, "tool-use", traces, sample=0.1)

:func:`trace_to_agent_run` gives the run an agent scorer sees (or why there is none);
every outcome names its trace and span, for storing the score linked to them.
"""

from __future__ import annotations

from scorer_runtime.traces.agent_run import ToolCallCount, count_tool_calls, trace_to_agent_run
from scorer_runtime.traces.errors import TraceImportError, TraceProblem
from scorer_runtime.traces.expected import (
    MASTRA_EXPECTED_KEY,
    OTLP_EXPECTED_ATTRIBUTE,
    ExpectedKind,
    ExpectedNeed,
    expected_in_spans,
    expected_kind,
    expected_need,
    normalise_expected,
    tools_called,
)
from scorer_runtime.traces.load import (
    FormatOption,
    TraceImport,
    group_traces,
    load_traces,
    parse_traces,
    read_otlp_document,
    read_trace_file,
    read_traces,
)
from scorer_runtime.traces.model import GenAIInfo, Span, SpanStatus, SpanType, Trace, TraceFormat
from scorer_runtime.traces.received_evaluations import ExternalEvaluation
from scorer_runtime.traces.sampling import in_sample, sample_trace_ids, sample_value
from scorer_runtime.traces.scorer_registry import ScorerRegistry, UnknownScorerError
from scorer_runtime.traces.scoring import (
    OutcomeStatus,
    TraceScoreOutcome,
    TraceSelection,
    resolve_scorer,
    score_trace,
    score_traces,
    score_traces_sync,
)
from scorer_runtime.traces.span_messages import ChatMessage, ChatPart, read_messages
from scorer_runtime.traces.span_run import trace_to_span_run, trace_to_target
from scorer_runtime.traces.targets import (
    AgentRunTarget,
    NotScorableTarget,
    ScoringTarget,
    SpanTarget,
)

__all__ = [
    "MASTRA_EXPECTED_KEY",
    "OTLP_EXPECTED_ATTRIBUTE",
    "AgentRunTarget",
    "ChatMessage",
    "ChatPart",
    "ExpectedKind",
    "ExpectedNeed",
    "ExternalEvaluation",
    "FormatOption",
    "GenAIInfo",
    "NotScorableTarget",
    "OutcomeStatus",
    "ScorerRegistry",
    "ScoringTarget",
    "Span",
    "SpanStatus",
    "SpanTarget",
    "SpanType",
    "ToolCallCount",
    "Trace",
    "TraceFormat",
    "TraceImport",
    "TraceImportError",
    "TraceProblem",
    "TraceScoreOutcome",
    "TraceSelection",
    "UnknownScorerError",
    "count_tool_calls",
    "expected_in_spans",
    "expected_kind",
    "expected_need",
    "group_traces",
    "in_sample",
    "load_traces",
    "normalise_expected",
    "parse_traces",
    "read_messages",
    "read_otlp_document",
    "read_trace_file",
    "read_traces",
    "resolve_scorer",
    "sample_trace_ids",
    "sample_value",
    "score_trace",
    "score_traces",
    "score_traces_sync",
    "tools_called",
    "trace_to_agent_run",
    "trace_to_span_run",
    "trace_to_target",
]
