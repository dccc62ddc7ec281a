"""Reading trace files and describing traces for the traces page, free of Streamlit.

An upload is read with :func:`scorer_runtime.traces.read_traces`, which keeps every good span
and lists what it left out; this module turns that into what the page shows: a row per
trace, the span tree with depths and durations, and each problem in plain words with its
line, span and JSON path, and what to do about it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from scorer_runtime.traces import Span, Trace, TraceProblem, read_traces

SPAN_TYPE_WORDS = {
    "agent_run": "Agent run",
    "model_generation": "Model call",
    "tool_call": "Tool call",
    "other": "Other",
}
SPAN_TYPE_ICONS = {
    "agent_run": ":material/smart_toy:",
    "model_generation": ":material/psychology:",
    "tool_call": ":material/build:",
    "other": ":material/radio_button_unchecked:",
}
ACCEPTED_SUFFIXES = ("json", "jsonl", "ndjson")


@dataclass(frozen=True, slots=True)
class PlainTraceProblem:
    """A problem of a trace file as the page lists it."""

    where: str
    """"Line 3 · span “a1b2”" (or "The file")."""
    message: str
    path: str | None = None
    """Where in the JSON document: ``resourceSpans[0].scopeSpans[0].spans[2]``."""


@dataclass(frozen=True)
class LoadedTraces:
    """A trace file read on the traces page: the traces kept and what was left out."""

    file_name: str
    traces: list[Trace] = field(default_factory=list)
    problems: list[PlainTraceProblem] = field(default_factory=list)
    upload_id: str = ""
    """Which upload this was read from, so a rerun does not read the same file again."""

    def get(self, trace_id: str) -> Trace | None:
        """The trace with this id, or None."""
        return next((t for t in self.traces if t.trace_id == trace_id), None)

    def what_to_do(self) -> str:
        """The advice shown under the problems."""
        if not self.traces:
            return (
                "Nothing could be imported. Export the traces again as OTLP JSON (an object "
                "with resourceSpans, or one per line) or as Mastra span records, then upload "
                "the file again."
            )
        return (
            "The traces listed below were imported without the spans named here. Fix those "
            "lines in the file and upload it again to include them, or carry on without them."
        )


def _where(problem: TraceProblem) -> str:
    parts = []
    if problem.line is not None:
        parts.append(f"Line {problem.line}")
    if problem.span_id:
        parts.append(f"span “{problem.span_id}”")
    return " · ".join(parts) or "The file"


def read_upload(data: bytes, file_name: str, *, upload_id: str = "") -> LoadedTraces:
    """The traces in an uploaded file, with every problem found (never raises for content)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        message = f"the file is not UTF-8 text (byte {e.start}); save it as UTF-8"
        problem = PlainTraceProblem("The file", message)
        return LoadedTraces(file_name, problems=[problem], upload_id=upload_id)
    found = read_traces(text, source=file_name)
    problems = [PlainTraceProblem(_where(p), p.message, p.path) for p in found.problems]
    return LoadedTraces(file_name, list(found.traces), problems, upload_id)


@dataclass(frozen=True, slots=True)
class TraceRow:
    """One trace as the list shows it."""

    trace_id: str
    root_name: str
    start: datetime
    duration_ms: float | None
    spans: int
    model_calls: int
    tool_calls: int
    agent: str | None
    errors: int


def _root_name(trace: Trace) -> str:
    agents = trace.of_type("agent_run")
    if agents:
        return agents[0].name
    return trace.roots[0].name if trace.roots else trace.spans[0].name


def trace_rows(traces: Sequence[Trace]) -> list[TraceRow]:
    """A row per trace: its root's name, when it started, and what it holds."""
    rows = []
    for trace in traces:
        end = trace.end_time
        agent = next((s.gen_ai.agent_name for s in trace.walk() if s.gen_ai.agent_name), None)
        rows.append(
            TraceRow(
                trace_id=trace.trace_id,
                root_name=_root_name(trace),
                start=trace.start_time,
                duration_ms=(end - trace.start_time).total_seconds() * 1000 if end else None,
                spans=len(trace.spans),
                model_calls=sum(1 for s in trace.spans if s.type == "model_generation"),
                tool_calls=sum(1 for s in trace.spans if s.type == "tool_call"),
                agent=agent,
                errors=sum(1 for s in trace.spans if s.status == "error"),
            )
        )
    return rows


def trace_label(row: TraceRow) -> str:
    """A trace in one line for pickers: "weather-agent · 12 Jun 09:15 · 4bf92f35…"."""
    return f"{row.root_name} · {row.start:%d %b %H:%M:%S} · {short_id(row.trace_id)}"


def short_id(identifier: str, length: int = 8) -> str:
    """The start of a long id, enough to tell traces apart."""
    return identifier if len(identifier) <= length + 1 else identifier[:length] + "…"


def format_duration(ms: float | None) -> str:
    """A duration for people: "850 ms", "1.2 s", "2 min 5 s", "—" when unknown."""
    if ms is None:
        return "—"
    if ms < 1000:
        return f"{ms:.0f} ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


@dataclass(frozen=True, slots=True)
class SpanLine:
    """One span of the tree: how deep it sits and what it did."""

    span: Span
    depth: int

    @property
    def type_words(self) -> str:
        """The span's type in plain words ("Model call")."""
        return SPAN_TYPE_WORDS.get(self.span.type, self.span.type)

    @property
    def icon(self) -> str:
        """A Material icon for the span's type."""
        return SPAN_TYPE_ICONS.get(self.span.type, SPAN_TYPE_ICONS["other"])

    def label(self) -> str:
        """The one-line label: indentation, name, type, duration, and an error mark."""
        indent = "\u2003" * self.depth + ("↳ " if self.depth else "")
        what = self.span.gen_ai.model or self.span.gen_ai.tool_name
        detail = f"{self.type_words}" + (f" ({what})" if what else "")
        failed = " · :red[failed]" if self.span.status == "error" else ""
        return (
            f"{indent}{self.span.name} · {detail} · "
            f"{format_duration(self.span.duration_ms)}{failed}"
        )

    def facts(self) -> dict[str, Any]:
        """What the span says besides its input and output, for its details."""
        info = self.span.gen_ai
        facts: dict[str, Any] = {
            "Span id": self.span.span_id,
            "Started": f"{self.span.start_time:%Y-%m-%d %H:%M:%S.%f}"[:-3] + " UTC",
            "Took": format_duration(self.span.duration_ms),
            "Agent": info.agent_name,
            "Model": info.model,
            "Tool": info.tool_name,
            "Tokens in / out": (
                f"{info.input_tokens or 0} / {info.output_tokens or 0}"
                if info.input_tokens is not None or info.output_tokens is not None
                else None
            ),
            "Error": self.span.error,
        }
        return {k: v for k, v in facts.items() if v is not None}


def span_lines(trace: Trace) -> list[SpanLine]:
    """The spans depth first (a span before its children), each with its depth."""
    depths: dict[str, int] = {}
    lines = []
    for span in trace.walk():
        parent = trace.parent(span)
        depth = depths[parent.span_id] + 1 if parent is not None else 0
        depths[span.span_id] = depth
        lines.append(SpanLine(span, depth))
    return lines
