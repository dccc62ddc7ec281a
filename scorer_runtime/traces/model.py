"""The trace model: spans of one agent interaction, whatever format they were imported from.

A :class:`Span` keeps what the source said (``attributes``, ``input``, ``output``) and adds
what the GenAI semantic conventions (or Mastra's span attributes) tell about it
(:class:`GenAIInfo`), so that turning a trace into an agent run never depends on the format.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, Literal, TypeAlias

SpanType: TypeAlias = Literal["agent_run", "model_generation", "tool_call", "other"]
"""What a span did: ran an agent, called a model, ran a tool, or anything else."""

SpanStatus: TypeAlias = Literal["unset", "ok", "error"]
"""OpenTelemetry's span status."""

TraceFormat: TypeAlias = Literal["otlp", "mastra"]
"""The file formats spans are imported from."""


@dataclass(frozen=True, slots=True)
class GenAIInfo:
    """What a span says about the agent, model or tool involved (None when it says nothing).

    Read from the OpenTelemetry GenAI semantic conventions (``gen_ai.*`` attributes) or from
    Mastra's span fields and attributes.
    """

    operation: str | None = None
    """``gen_ai.operation.name``: ``invoke_agent``, ``chat``, ``execute_tool``, ..."""
    agent_name: str | None = None
    model: str | None = None
    tool_name: str | None = None
    tool_call_id: str | None = None
    system_instructions: tuple[str, ...] = ()
    """The system prompt texts the span carries (an agent's instructions)."""
    input_tokens: int | None = None
    output_tokens: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The fields that are set, as plain data."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or value == ():
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GenAIInfo:
        """The inverse of :meth:`to_dict`."""
        values = dict(data)
        values["system_instructions"] = tuple(values.get("system_instructions") or ())
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Span:
    """One span: a timed operation inside a trace.

    ``input`` and ``output`` are what the source recorded (JSON strings decoded): for
    OpenTelemetry, ``gen_ai.input.messages`` / ``gen_ai.output.messages`` of agent and model
    spans and ``gen_ai.tool.call.arguments`` / ``gen_ai.tool.call.result`` of tool spans; for
    Mastra, the span's own ``input`` and ``output``. Times are timezone-aware (UTC).
    """

    trace_id: str
    span_id: str
    name: str
    type: SpanType
    start_time: datetime
    end_time: datetime | None = None
    """None for a span that never ended (or a Mastra event span)."""
    parent_span_id: str | None = None
    attributes: Mapping[str, Any] = field(default_factory=dict)
    input: Any = None
    output: Any = None
    status: SpanStatus = "unset"
    error: str | None = None
    """The error message of a failed span."""
    gen_ai: GenAIInfo = field(default_factory=GenAIInfo)
    source: TraceFormat | None = None
    source_type: str | None = None
    """The source's own name for the span's kind (``model_step``, ``chat``, ...)."""
    resource: Mapping[str, Any] = field(default_factory=dict)
    """OpenTelemetry resource attributes (``service.name``, ...)."""

    @property
    def duration_ms(self) -> float | None:
        """How long the span took, or None when it never ended."""
        if self.end_time is None:
            return None
        return (self.end_time - self.start_time).total_seconds() * 1000

    def to_dict(self) -> dict[str, Any]:
        """The span as JSON-ready plain data (times as ISO 8601 strings)."""
        return {
            "trace_id": self.trace_id,
            "span_id": self.span_id,
            "parent_span_id": self.parent_span_id,
            "name": self.name,
            "type": self.type,
            "start_time": self.start_time.isoformat(),
            "end_time": self.end_time.isoformat() if self.end_time else None,
            "status": self.status,
            "error": self.error,
            "attributes": dict(self.attributes),
            "input": self.input,
            "output": self.output,
            "gen_ai": self.gen_ai.to_dict(),
            "source": self.source,
            "source_type": self.source_type,
            "resource": dict(self.resource),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Span:
        """The inverse of :meth:`to_dict` (e.g. to read spans back from storage)."""
        values = dict(data)
        values["start_time"] = datetime.fromisoformat(values["start_time"])
        end = values.get("end_time")
        values["end_time"] = datetime.fromisoformat(end) if end else None
        values["gen_ai"] = GenAIInfo.from_dict(values.get("gen_ai") or {})
        return cls(**values)


def _start_key(span: Span) -> tuple[datetime, str]:
    return (span.start_time, span.span_id)


@dataclass(frozen=True)
class Trace:
    """The spans of one trace id, ordered by start time, with tree helpers.

    A span whose parent is not in the trace (a remote parent, or a span that was not
    exported) counts as a root.
    """

    trace_id: str
    spans: tuple[Span, ...]
    expected: Any = None
    """The expected answer given for this trace (the scorer's ground truth): a list of tool
    names in the order they should be called, or the answer text; None when none was given."""
    _by_id: dict[str, Span] = field(init=False, repr=False, compare=False)
    _children: dict[str, tuple[Span, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.spans:
            raise ValueError(f"trace {self.trace_id!r} has no spans; a trace needs at least one")
        spans = tuple(sorted(self.spans, key=_start_key))
        by_id: dict[str, Span] = {}
        for span in spans:
            if span.trace_id != self.trace_id:
                raise ValueError(
                    f"span {span.span_id!r} belongs to trace {span.trace_id!r}, "
                    f"not {self.trace_id!r}"
                )
            if span.span_id in by_id:
                raise ValueError(
                    f"span id {span.span_id!r} appears twice in trace {self.trace_id!r}"
                )
            by_id[span.span_id] = span
        children: dict[str, list[Span]] = {}
        for span in spans:
            if span.parent_span_id is not None and span.parent_span_id in by_id:
                children.setdefault(span.parent_span_id, []).append(span)
        # Frozen: set the derived lookups once, here.
        object.__setattr__(self, "spans", spans)
        object.__setattr__(self, "_by_id", by_id)
        object.__setattr__(self, "_children", {k: tuple(v) for k, v in children.items()})

    @property
    def roots(self) -> tuple[Span, ...]:
        """Spans without a parent in this trace, by start time."""
        return tuple(s for s in self.spans if self.parent(s) is None)

    @property
    def start_time(self) -> datetime:
        """When the first span started."""
        return self.spans[0].start_time

    @property
    def end_time(self) -> datetime | None:
        """When the last span ended (None when no span ended)."""
        ends = [s.end_time for s in self.spans if s.end_time is not None]
        return max(ends) if ends else None

    def get(self, span_id: str) -> Span | None:
        """The span with this id, or None."""
        return self._by_id.get(span_id)

    def span(self, span_id: str) -> Span:
        """The span with this id; ``KeyError`` naming the trace when there is none."""
        found = self._by_id.get(span_id)
        if found is None:
            raise KeyError(f"trace {self.trace_id!r} has no span {span_id!r}")
        return found

    def parent(self, span: Span) -> Span | None:
        """The span's parent, when it is in this trace."""
        return None if span.parent_span_id is None else self._by_id.get(span.parent_span_id)

    def children(self, span: Span | str) -> tuple[Span, ...]:
        """The direct children of a span (or span id), by start time."""
        span_id = span if isinstance(span, str) else span.span_id
        return self._children.get(span_id, ())

    def walk(self, start: Span | str | None = None) -> Iterator[Span]:
        """Spans depth first (a span before its children, siblings by start time).

        From ``start`` (included) or, by default, from every root. A span in a parent cycle
        is never reached.
        """
        if start is None:
            stack = list(reversed(self.roots))
        else:
            stack = [self.span(start) if isinstance(start, str) else start]
        seen: set[str] = set()
        while stack:
            span = stack.pop()
            if span.span_id in seen:
                continue
            seen.add(span.span_id)
            yield span
            stack.extend(reversed(self.children(span)))

    def descendants(self, span: Span | str) -> Iterator[Span]:
        """Every span below ``span`` (not itself), depth first."""
        walk = self.walk(span)
        next(walk)
        yield from walk

    def of_type(self, span_type: SpanType) -> list[Span]:
        """The spans of one type, depth first."""
        return [s for s in self.walk() if s.type == span_type]

    def to_dict(self) -> dict[str, Any]:
        """The trace as JSON-ready plain data (``expected`` only when one was given)."""
        data: dict[str, Any] = {
            "trace_id": self.trace_id,
            "spans": [s.to_dict() for s in self.spans],
        }
        if self.expected is not None:
            data["expected"] = self.expected
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Trace:
        """The inverse of :meth:`to_dict`."""
        spans = tuple(Span.from_dict(s) for s in data["spans"])
        return cls(data["trace_id"], spans, data.get("expected"))
