"""Importing trace files: OTLP JSON or Mastra spans, one JSON document or JSON lines.

:func:`load_traces` reads a file, :func:`parse_traces` text; both raise
:class:`TraceImportError` listing every problem. :func:`read_traces` (text) and
:func:`read_trace_file` never raise for bad content: they return the traces they could read
*and* the problems, for an import that keeps the good spans and shows what was left out.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from scorer_runtime import safe_json
from scorer_runtime.input_files import UnreadableFile, read_limited
from scorer_runtime.input_text import NotText, decode_input, json_lines
from scorer_runtime.limits import MAX_TRACE_FILE_BYTES, MAX_TRACE_NESTING
from scorer_runtime.traces.errors import TraceImportError, TraceProblem
from scorer_runtime.traces.expected import expected_in_spans
from scorer_runtime.traces.mastra import spans_from_mastra
from scorer_runtime.traces.model import Span, Trace
from scorer_runtime.traces.otlp import spans_from_otlp
from scorer_runtime.traces.received_evaluations import ExternalEvaluation, evaluations_in_spans

FormatOption: TypeAlias = Literal["auto", "otlp", "mastra"]
"""Which format to read; ``auto`` decides per JSON document."""

_EXPECTED = (
    "expected OTLP JSON (an object with resourceSpans), Mastra span records (a list, an "
    "object with a spans list, or one record per line)"
)
_DOCUMENT_KEYS = frozenset({"resourceSpans", "spans", "traceId"})


@dataclass(frozen=True, slots=True)
class TraceImport:
    """What :func:`read_traces` found: the traces, the problems of what was left out, and
    the evaluation events of other tools its OTLP spans carry."""

    traces: list[Trace] = field(default_factory=list)
    problems: list[TraceProblem] = field(default_factory=list)
    source: str | None = None
    evaluations: list[ExternalEvaluation] = field(default_factory=list)
    """``gen_ai.evaluation.result`` span events (see :mod:`received_evaluations`)."""

    @property
    def ok(self) -> bool:
        """True when nothing was left out."""
        return not self.problems

    def raise_for_problems(self) -> None:
        """Raise :class:`TraceImportError` listing the problems, if there are any."""
        if self.problems:
            raise TraceImportError(self.problems, source=self.source)


def read_traces(
    text: str, *, format: FormatOption = "auto", source: str | None = None
) -> TraceImport:
    """The traces in ``text`` (OTLP JSON or Mastra spans; one document or JSON lines).

    Spans with problems are left out and reported in ``problems``; the others are grouped
    into traces by trace id, in the order they first appear. ``source`` names the text in
    messages (a file name).
    """
    if format not in ("auto", "otlp", "mastra"):
        raise ValueError(f"format must be 'auto', 'otlp' or 'mastra', not {format!r}")
    problems: list[TraceProblem] = []
    spans: list[Span] = []
    evaluations: list[ExternalEvaluation] = []
    lines: dict[tuple[str, str], int | None] = {}
    for line, document in _documents(text, problems):
        found = _spans_of(document, line, format, problems, evaluations)
        for span in found:
            lines.setdefault((span.trace_id, span.span_id), line)
        spans.extend(found)

    def line_of(span: Span) -> int | None:
        line = lines.get((span.trace_id, span.span_id))
        return line if line is not None else _span_line(text, span.span_id)

    traces = _group(spans, problems, line_of)
    # JSON errors are found before span problems: list them all in file order.
    problems.sort(key=lambda p: (p.line is None, p.line or 0))
    return TraceImport(traces, problems, source, evaluations)


def read_otlp_document(document: Any, *, source: str | None = None) -> TraceImport:
    """The traces of one OTLP JSON document already decoded (as a receiver gets it from an
    exporter): spans with problems are left out and reported, the others grouped by trace id
    exactly as :func:`read_traces` groups a file's."""
    problems: list[TraceProblem] = []
    evaluations: list[ExternalEvaluation] = []
    spans = _spans_of(document, None, "otlp", problems, evaluations)
    traces = _group(spans, problems, lambda span: None)
    return TraceImport(traces, problems, source, evaluations)


def parse_traces(
    text: str, *, format: FormatOption = "auto", source: str | None = None
) -> list[Trace]:
    """The traces in ``text``; raises :class:`TraceImportError` listing every problem."""
    found = read_traces(text, format=format, source=source)
    found.raise_for_problems()
    return found.traces


def read_trace_file(path: str | os.PathLike[str], *, format: FormatOption = "auto") -> TraceImport:
    """:func:`read_traces` of a file: the traces it holds and the problems of what was left
    out (a file that cannot be read, or is not UTF-8, is one problem and no traces)."""
    source = os.fspath(path)
    try:
        text = decode_input(read_limited(path, limit=MAX_TRACE_FILE_BYTES, what="trace file"))
    except UnreadableFile as e:
        return TraceImport(problems=[TraceProblem(e.words)], source=source)
    except OSError as e:
        problem = TraceProblem(f"cannot read the file: {e.strerror or e}")
        return TraceImport(problems=[problem], source=source)
    except NotText as e:
        return TraceImport(problems=[TraceProblem(e.words, e.line)], source=source)
    return read_traces(text, format=format, source=source)


def load_traces(path: str | os.PathLike[str], *, format: FormatOption = "auto") -> list[Trace]:
    """The traces in a file (OTLP JSON or Mastra spans; one document or JSON lines).

    Raises :class:`TraceImportError` naming the file and listing every problem, each with
    its line (JSON lines), span id and JSON path.
    """
    found = read_trace_file(path, format=format)
    found.raise_for_problems()
    return found.traces


def group_traces(spans: Iterable[Span]) -> list[Trace]:
    """Spans grouped into traces by trace id (in order of first appearance).

    Raises :class:`TraceImportError` when a span id appears twice with different content
    or spans form a parent cycle.
    """
    problems: list[TraceProblem] = []
    traces = _group(list(spans), problems, lambda span: None)
    if problems:
        raise TraceImportError(problems)
    return traces


def _json_problem(error: json.JSONDecodeError, line: int | None) -> TraceProblem:
    where = f"line {error.lineno} " if line is None else ""
    return TraceProblem(f"not valid JSON: {error.msg} ({where}column {error.colno})", line)


def _loads(text: str) -> Any:
    """JSON with the depth checked before parsing, and no NaN (see :mod:`safe_json`)."""
    return safe_json.loads(text, max_depth=MAX_TRACE_NESTING, unique_keys=True)


def _is_document(line: str) -> bool:
    try:
        value = _loads(line)
    except ValueError:
        return False
    return isinstance(value, dict) and bool(_DOCUMENT_KEYS.intersection(value))


def _looks_like_json_lines(text: str) -> bool:
    """Several lines, one of which is a whole trace document on its own."""
    lines = [line for _, line in json_lines(text)]
    return len(lines) > 1 and any(map(_is_document, lines))


def _documents(text: str, problems: list[TraceProblem]) -> list[tuple[int | None, Any]]:
    """The JSON documents of ``text``: one (line None), or one per line (1-based line)."""
    if not text.strip():
        problems.append(TraceProblem(f"there is nothing to import: {_EXPECTED}"))
        return []
    try:
        return [(None, _loads(text))]
    except safe_json.JsonLimitError as e:
        if not _looks_like_json_lines(text):  # one document: too deep, or NaN in it
            problems.append(TraceProblem(e.message, e.line))
            return []
    except json.JSONDecodeError as e:
        # "Extra data" after a first complete document: a JSON-lines file.
        if not e.msg.startswith("Extra data") and not _looks_like_json_lines(text):
            problems.append(_json_problem(e, None))
            return []
    documents: list[tuple[int | None, Any]] = []
    for number, raw in json_lines(text):
        try:
            documents.append((number, _loads(raw)))
        except safe_json.JsonLimitError as e:
            problems.append(TraceProblem(e.message, number))
        except json.JSONDecodeError as e:
            problems.append(_json_problem(e, number))
    return documents


def _kind(document: Any) -> Literal["otlp", "mastra"] | None:
    if isinstance(document, Mapping):
        if "resourceSpans" in document:
            return "otlp"
        if isinstance(document.get("spans"), list) or "traceId" in document:
            return "mastra"
        return None
    return "mastra" if isinstance(document, list) else None


def _spans_of(
    document: Any,
    line: int | None,
    format: FormatOption,
    problems: list[TraceProblem],
    evaluations: list[ExternalEvaluation],
) -> list[Span]:
    kind = _kind(document)
    if kind is None or (format != "auto" and kind != format):
        expected = {
            "auto": _EXPECTED,
            "otlp": "expected OTLP JSON: an object with resourceSpans",
            "mastra": "expected Mastra span records: a list, or an object with a spans list",
        }[format]
        problems.append(TraceProblem(f"not a trace document: {expected}", line))
        return []
    if kind == "otlp":
        read = evaluations_in_spans(document, line=line)
        evaluations.extend(read.evaluations)
        problems.extend(read.problems)
        return spans_from_otlp(document, problems=problems, line=line)
    if isinstance(document, list):
        return spans_from_mastra(document, problems=problems, line=line, path="")
    if isinstance(document.get("spans"), list):
        return spans_from_mastra(document["spans"], problems=problems, line=line, path="spans")
    return spans_from_mastra([document], problems=problems, line=line)


def _trace(trace_id: str, spans: tuple[Span, ...]) -> Trace:
    """A trace of these spans, with the expected answer one of them carries (root first)."""
    trace = Trace(trace_id, spans)
    expected = expected_in_spans(trace.walk())
    return trace if expected is None else Trace(trace_id, trace.spans, expected)


def _group(
    spans: list[Span], problems: list[TraceProblem], line_of: Callable[[Span], int | None]
) -> list[Trace]:
    """The spans by trace id, without the spans that name themselves or one another as parent
    (each reported with its line): a cycle has no root, so such spans belong to no tree."""
    by_trace: dict[str, dict[str, Span]] = {}
    for span in spans:
        seen = by_trace.setdefault(span.trace_id, {})
        earlier = seen.get(span.span_id)
        if earlier is None:
            seen[span.span_id] = span
        elif earlier != span:  # the same span exported twice is harmless
            problems.append(
                TraceProblem(
                    f"span id appears twice in trace {span.trace_id!r} with different "
                    "content; the second copy was left out",
                    line_of(span),
                    span_id=span.span_id,
                )
            )
    traces = []
    for trace_id, found in by_trace.items():
        whole = Trace(trace_id, tuple(found.values()))
        reached = {span.span_id for span in whole.walk()}
        for span in whole.spans:
            if span.span_id not in reached:
                problems.append(TraceProblem(_loop_words(span), line_of(span), span.span_id))
        kept = tuple(span for span in whole.spans if span.span_id in reached)
        if kept:
            traces.append(_trace(trace_id, kept))
    return traces


def _loop_words(span: Span) -> str:
    if span.parent_span_id == span.span_id:
        return "it names itself as its parent, so it has no root; check parentSpanId"
    return "its parent chain loops back to itself, so it has no root; check parentSpanId"


def _span_line(text: str, span_id: str) -> int | None:
    """The line of the first ``"spanId"`` (OTLP) or ``"id"`` (Mastra) giving ``span_id``."""
    pattern = r'"(?:spanId|id)"\s*:\s*"' + re.escape(span_id) + '"'
    found = re.search(pattern, text)
    return None if found is None else safe_json.line_at(text, found.start())
