"""Reading trace files and describing stored traces for the traces page, free of Streamlit.

An upload is read with :func:`scorer_runtime.traces.read_traces`, which keeps every good span
and lists what it left out; the good traces are then saved in the studio's database
(:func:`scorer_runtime.store.save_traces`). This module turns all that into what the page
shows: what an import did in plain words, each problem with its line, span and JSON path and
what to do, a page of stored traces (paginated in the database), and a trace's span tree
with depths and durations.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scorer_runtime.input_text import NotText, decode_input
from scorer_runtime.traces import (
    ExternalEvaluation,
    Span,
    ToolCallCount,
    Trace,
    TraceProblem,
    read_traces,
)
from studio.words import format_duration, noun, plural

if TYPE_CHECKING:
    from scorer_runtime.store import Session, TraceSaveSummary, TraceSummary

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
TRACES_PER_PAGE = 50
"""Stored traces listed per page."""


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
    evaluations: list[ExternalEvaluation] = field(default_factory=list)
    """Verdicts of other tools the spans carry (evaluation events), saved with the traces."""


def advice(*, imported: bool) -> str:
    """What to do about the problems of a file, whether or not some traces were imported."""
    if not imported:
        return (
            "Nothing could be imported. Export the traces again as OTLP JSON (an object "
            "with resourceSpans, or one per line) or as Mastra span records, then upload "
            "the file again."
        )
    return (
        "The other traces were imported without the spans named here. Fix those lines "
        "in the file and upload it again: the missing spans are added to the traces "
        "already stored. Or carry on without them."
    )


def _where(problem: TraceProblem) -> str:
    parts = []
    if problem.line is not None:
        parts.append(f"Line {problem.line}")
    if problem.span_id:
        parts.append(f"span “{problem.span_id}”")
    return " · ".join(parts) or "The file"


def read_upload(data: bytes, file_name: str) -> LoadedTraces:
    """The traces in an uploaded file, with every problem found (never raises for content)."""
    try:
        text = decode_input(data)
    except NotText as e:
        problem = PlainTraceProblem(f"Line {e.line}", e.words)
        return LoadedTraces(file_name, problems=[problem])
    found = read_traces(text, source=file_name)
    problems = [PlainTraceProblem(_where(p), p.message, p.path) for p in found.problems]
    return LoadedTraces(file_name, list(found.traces), problems, list(found.evaluations))


@dataclass(frozen=True)
class ImportReport:
    """What importing one uploaded file did: what was read, left out and saved.

    Kept in the session while the file stays in the uploader, so a rerun neither imports
    the file again nor forgets what happened.
    """

    file_name: str
    upload_id: str
    problems: list[PlainTraceProblem] = field(default_factory=list)
    read: int = 0
    """Traces read from the file (what was offered for saving)."""
    summary: TraceSaveSummary | None = None
    """What saving did; None when nothing was importable or saving failed."""
    error: BaseException | None = None
    """Why saving failed (shown in plain words), or None."""

    def what_to_do(self) -> str:
        """The advice shown under the problems."""
        return advice(imported=self.read > 0)

    def words(self) -> str | None:
        """ "Imported 2 traces from f.jsonl: 2 new." — or None when nothing was saved."""
        if self.summary is None:
            return None
        return import_words(self.file_name, self.summary)


def import_words(file_name: str, summary: TraceSaveSummary) -> str:
    """What an import did in plain words: "Imported 5 traces from f.jsonl: 1 new, 1 with new
    spans, 3 already stored."."""
    total = len(summary.added) + len(summary.updated) + len(summary.unchanged)
    parts = [
        f"{count} {words}"
        for count, words in (
            (len(summary.added), "new"),
            (len(summary.updated), "with new spans"),
            (len(summary.unchanged), "already stored"),
        )
        if count
    ]
    words = f"Imported {_traces(total)} from {file_name}: {', '.join(parts)}."
    if summary.external_scores:
        scores = plural(summary.external_scores, "score")
        words += f" Also {scores} another tool sent with the spans, shown in Results as (external)."
    return words


def _traces(count: int) -> str:
    return plural(count, "trace")


@dataclass(frozen=True, slots=True)
class TracePage:
    """One page of the stored traces list, with where it sits among all matching traces."""

    lines: list[TraceSummary]
    total: int
    """Stored traces matching the search (all pages)."""
    page: int
    """0 is the first page."""
    per_page: int = TRACES_PER_PAGE

    @property
    def pages(self) -> int:
        """How many pages the matching traces fill (at least 1)."""
        return max(1, -(-self.total // self.per_page))

    def showing(self, search: str = "") -> str:
        """Where this page sits, e.g. "Showing 51 to 100 of 312 traces" in words (with the
        search named when there is one)."""
        first = self.page * self.per_page + 1
        last = self.page * self.per_page + len(self.lines)
        matching = f" matching “{search}”" if search else ""
        stored = f"{plural(self.total, 'stored trace')}{matching}"
        if self.total == 1:
            return f"{stored}."
        if self.total == len(self.lines):
            return f"{stored}, the most recent first."
        return f"Showing {first}–{last} of {stored}, the most recent first."


def trace_page(
    session: Session, *, search: str = "", page: int = 0, per_page: int = TRACES_PER_PAGE
) -> TracePage:
    """A page of stored traces, the most recent first; a page past the end (after traces
    were deleted) shows the last page instead."""
    from scorer_runtime.store import count_traces, list_traces

    total = count_traces(session, search=search or None)
    last = max(0, -(-total // per_page) - 1)
    page = min(max(page, 0), last)
    lines = list_traces(session, search=search or None, limit=per_page, offset=page * per_page)
    return TracePage(lines, total, page, per_page)


def list_row(line: TraceSummary, stored_scores: int, *, chosen: bool = False) -> dict[str, Any]:
    """One row of the traces table, in the words and units people read."""
    return {
        "Chosen": chosen,
        "Trace": line.trace_id,
        "What": line.name,
        "Expected answer": expected_words(line.expected, short=True),
        "Agent": line.agent or "—",
        "Started (UTC)": f"{line.started_at:%Y-%m-%d %H:%M:%S}",
        "Took": format_duration(_seconds(line.duration_ms)),
        "Spans": line.span_count,
        "Model calls": line.model_calls,
        "Tool calls": line.tool_calls,
        "Failed spans": line.errors,
        "Stored scores": stored_scores,
        "File": line.source or "—",
    }


_SHORT = 60
"""Characters of an expected answer text shown in the list."""


def expected_words(expected: Any, *, short: bool = False) -> str:
    """An expected answer as people read it: "lookup_order → issue_refund", "no tool call",
    the answer text (cut short in the list), or "—" when there is none."""
    if expected is None:
        return "—"
    if isinstance(expected, list) and all(isinstance(v, str) for v in expected):
        return " → ".join(expected) if expected else "no tool call"
    text = expected if isinstance(expected, str) else json.dumps(expected, ensure_ascii=False)
    if short and len(text) > _SHORT:
        return text[: _SHORT - 1] + "…"
    return text


def tool_names(text: str) -> list[str]:
    """Tool names typed in words: separated by commas, new lines or arrows."""
    return [name.strip() for name in re.split(r"[,\n→>]+", text) if name.strip()]


def trace_label(line: TraceSummary) -> str:
    """A trace in one line for pickers: "weather-agent · 12 Jun 09:15:02 · 4bf92f35…"."""
    return f"{line.name} · {line.started_at:%d %b %H:%M:%S} · {short_id(line.trace_id)}"


def delete_question(traces: int, scores: int) -> str:
    """The question asked before deleting: what goes, and that the scores stay."""
    if scores == 0:
        kept = noun(traces, "It has no stored score.", "None of them has a stored score.")
    else:
        owner = noun(traces, "Its", "Their")
        kept = f"{owner} {plural(scores, 'stored score')} {noun(scores, 'stays', 'stay')} in the "
        kept += "history."
    return f"Delete {_traces(traces)}? {kept}"


def _seconds(ms: float | None) -> float | None:
    """Milliseconds (as traces store them) in seconds, the unit of :func:`format_duration`."""
    return None if ms is None else ms / 1000


def short_id(identifier: str, length: int = 8) -> str:
    """The start of a long id, enough to tell traces apart."""
    return identifier if len(identifier) <= length + 1 else identifier[:length] + "…"


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
            f"{format_duration(_seconds(self.span.duration_ms))}{failed}"
        )

    def facts(self) -> dict[str, Any]:
        """What the span says besides its input and output, for its details."""
        info = self.span.gen_ai
        facts: dict[str, Any] = {
            "Span id": self.span.span_id,
            "Started": f"{self.span.start_time:%Y-%m-%d %H:%M:%S.%f}"[:-3] + " UTC",
            "Took": format_duration(_seconds(self.span.duration_ms)),
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


def tool_calls_words(count: ToolCallCount) -> str:
    """How many tool calls the agent made, as the scorers count them, and where the tree
    shows each (a call with no span of its own is in its model call's output)."""
    if count.total == 0:
        return "The agent called no tool."
    said = f"The agent made {plural(count.total, 'tool call')}, as the scorers count them"
    if not count.in_messages:
        return f"{said}: each is a Tool call span below."
    return (
        f"{said}: {count.spans} as Tool call spans below and {count.in_messages} that a model "
        "asked for in its answer with no span of its own (open that Model call span and "
        "read its output)."
    )
