"""Imported agent traces: saved once, merged when imported again, listed, read back, scored
(by the agent scorer versions listed here), and a trace score read back with what it scored.

A trace's spans are stored as plain data (``Span.to_dict()``) with a summary beside them,
so a list of thousands of traces never reads a span. Importing a trace that is already
stored merges the spans by span id (a collector may write one trace across several files),
and importing the same file twice changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from scorer_runtime.store.canonical import jsonable
from scorer_runtime.store.errors import not_found
from scorer_runtime.store.external_scores import save_external_scores
from scorer_runtime.store.tables import (
    ScoreRecord,
    TraceRecord,
    utc_now,
)
from scorer_runtime.traces.agent_run import count_tool_calls
from scorer_runtime.traces.model import Span, Trace
from scorer_runtime.traces.received_evaluations import ExternalEvaluation


@dataclass(frozen=True, slots=True)
class TraceSaveSummary:
    """What saving imported traces did: trace ids added, merged with new spans, unchanged."""

    added: list[str]
    updated: list[str]
    unchanged: list[str]
    external_scores: int = 0
    """Evaluation events of other tools stored as new scores (see ``external_scores``)."""

    @property
    def saved(self) -> int:
        """Traces stored or changed by this import."""
        return len(self.added) + len(self.updated)


@dataclass(frozen=True, slots=True)
class TraceSummary:
    """A stored trace as a list shows it (without its spans)."""

    trace_id: str
    name: str
    agent: str | None
    source: str
    formats: str
    span_count: int
    agent_runs: int
    model_calls: int
    tool_calls: int
    errors: int
    started_at: datetime
    duration_ms: float | None
    imported_at: datetime
    expected: Any = None
    """The trace's expected answer (tool names in order, or a text), or None."""


_SUMMARY_COLUMNS = tuple(TraceSummary.__dataclass_fields__)


def _describe(record: TraceRecord, trace: Trace, source: str) -> None:
    """Fill the summary columns of ``record`` from ``trace``."""
    agents = trace.of_type("agent_run")
    first = agents[0] if agents else (trace.roots or trace.spans)[0]
    record.name = first.name[:300]
    agent = next((s.gen_ai.agent_name for s in trace.walk() if s.gen_ai.agent_name), None)
    record.agent = agent[:300] if agent else None
    record.source = source[:500]
    record.formats = ",".join(sorted({s.source for s in trace.spans if s.source}))
    record.span_count = len(trace.spans)
    record.agent_runs = len(agents)
    record.model_calls = sum(1 for s in trace.spans if s.type == "model_generation")
    record.tool_calls = count_tool_calls(trace).total  # as the agent scorers count them
    record.errors = sum(1 for s in trace.spans if s.status == "error")
    record.started_at = trace.start_time
    end = trace.end_time
    record.duration_ms = (end - trace.start_time).total_seconds() * 1000 if end else None
    record.spans = [jsonable(s.to_dict()) for s in trace.spans]


def _merged(stored: Trace, new: Trace) -> Trace:
    spans = {s.span_id: s for s in stored.spans}
    spans.update((s.span_id, s) for s in new.spans)  # a span exported again: the new copy
    # A file that gives an expected answer sets it; one that gives none keeps the stored one.
    expected = new.expected if new.expected is not None else stored.expected
    return Trace(stored.trace_id, tuple(spans.values()), expected)


def save_traces(
    session: Session,
    *,
    traces: Iterable[Trace],
    source: str = "",
    evaluations: Sequence[ExternalEvaluation] = (),
) -> TraceSaveSummary:
    """Store imported traces; a trace already stored gets the new spans merged in.

    ``source`` names where they came from (a file name), shown in lists. A trace's
    expected answer, when the file gives one, replaces the stored one (see :func:`_merged`).
    ``evaluations``, the evaluation events of other tools the spans carried, are stored in
    the same transaction as external scores (one already stored is not stored again).
    """
    status: dict[str, str] = {}  # trace id → added / updated / unchanged, in import order
    incoming = list(traces)
    existing = _records(session, [t.trace_id for t in incoming])
    for trace in incoming:
        record = existing.get(trace.trace_id)
        if record is None:
            record = TraceRecord(trace_id=trace.trace_id, started_at=trace.start_time, spans=[])
            _describe(record, trace, source)
            record.expected = jsonable(trace.expected)
            existing[trace.trace_id] = record
            status[trace.trace_id] = "added"
        else:
            merged = _merged(_trace_of(record), trace)
            expected = jsonable(merged.expected)
            same_spans = [jsonable(s.to_dict()) for s in merged.spans] == record.spans
            if same_spans and expected == record.expected:
                status.setdefault(trace.trace_id, "unchanged")
                continue
            _describe(record, merged, source)
            record.expected = expected
            record.updated_at = utc_now()
            if status.get(trace.trace_id) != "added":
                status[trace.trace_id] = "updated"
        session.add(record)
    session.flush()

    def having(state: str) -> list[str]:
        return [trace_id for trace_id, s in status.items() if s == state]

    new_scores = save_external_scores(session, evaluations=evaluations)
    return TraceSaveSummary(having("added"), having("updated"), having("unchanged"), new_scores)


_IDS_PER_QUERY = 500
"""Trace ids per ``IN (...)``: a file of many thousand traces stays within SQLite's limit of
bound parameters, and each query stays small."""


def _records(session: Session, trace_ids: Sequence[str]) -> dict[str, TraceRecord]:
    """The stored records of these trace ids, by id (ids not stored are left out)."""
    ids = list(dict.fromkeys(trace_ids))
    found: dict[str, TraceRecord] = {}
    for start in range(0, len(ids), _IDS_PER_QUERY):
        chunk = ids[start : start + _IDS_PER_QUERY]
        query = select(TraceRecord).where(col(TraceRecord.trace_id).in_(chunk))
        found.update((r.trace_id, r) for r in session.exec(query).all())
    return found


def _trace_of(record: TraceRecord) -> Trace:
    spans = tuple(Span.from_dict(s) for s in record.spans)
    return Trace(record.trace_id, spans, record.expected)


def set_trace_expected(session: Session, *, trace_id: str, expected: Any) -> None:
    """Give a stored trace its expected answer (the ground truth its scorers compare with):
    a list of tool names in the order they should be called, or the answer text; None
    removes it. Raises NotFoundError when the trace is not stored."""
    from scorer_runtime.traces.expected import normalise_expected

    record = _records(session, [trace_id]).get(trace_id)
    if record is None:
        raise not_found("trace", trace_id)
    record.expected = jsonable(normalise_expected(expected))
    record.updated_at = utc_now()
    session.add(record)
    session.flush()


def trace_summaries(session: Session, *, trace_ids: Sequence[str]) -> list[TraceSummary]:
    """The list lines of these stored traces, in the order asked (ids not stored are left
    out)."""
    ids = list(dict.fromkeys(trace_ids))
    found: dict[str, TraceSummary] = {}
    columns = [getattr(TraceRecord, name) for name in _SUMMARY_COLUMNS]
    for start in range(0, len(ids), _IDS_PER_QUERY):
        chunk = ids[start : start + _IDS_PER_QUERY]
        query = sa_select(*columns).where(col(TraceRecord.trace_id).in_(chunk))
        found.update((row[0], TraceSummary(*row)) for row in session.execute(query).all())
    return [found[t] for t in ids if t in found]


def _search_clause(search: str | None) -> Any:
    if not search or not search.strip():
        return None
    pattern = f"%{search.strip()}%"
    return or_(
        col(TraceRecord.trace_id).ilike(pattern),
        col(TraceRecord.name).ilike(pattern),
        col(TraceRecord.agent).ilike(pattern),
        col(TraceRecord.source).ilike(pattern),
    )


def list_traces(
    session: Session, *, search: str | None = None, limit: int = 100, offset: int = 0
) -> list[TraceSummary]:
    """Stored traces, the most recent first (by when they started); ``search`` matches the
    trace id, its name, its agent or the file it came from (case-insensitive, any part)."""
    query = sa_select(*(getattr(TraceRecord, name) for name in _SUMMARY_COLUMNS))
    clause = _search_clause(search)
    if clause is not None:
        query = query.where(clause)
    query = query.order_by(col(TraceRecord.started_at).desc(), col(TraceRecord.id).desc()).offset(
        offset
    )
    return [TraceSummary(*row) for row in session.execute(query.limit(limit)).all()]


def count_traces(session: Session, *, search: str | None = None) -> int:
    """How many traces are stored (matching ``search``, as :func:`list_traces` reads it)."""
    query = sa_select(func.count()).select_from(TraceRecord)
    clause = _search_clause(search)
    if clause is not None:
        query = query.where(clause)
    return int(session.execute(query).scalar_one())


def get_traces(session: Session, *, trace_ids: Sequence[str]) -> list[Trace]:
    """The stored traces with these ids, in the order asked; raises NotFoundError naming
    the first id that is not stored."""
    found = _records(session, trace_ids)
    for trace_id in trace_ids:
        if trace_id not in found:
            raise not_found("trace", trace_id)
    return [_trace_of(found[t]) for t in trace_ids]


def get_trace(session: Session, *, trace_id: str) -> Trace:
    """One stored trace; raises NotFoundError."""
    return get_traces(session, trace_ids=[trace_id])[0]


def all_trace_ids(session: Session, *, search: str | None = None) -> list[str]:
    """Every stored trace id (matching ``search``), the most recent first."""
    query = sa_select(col(TraceRecord.trace_id))
    clause = _search_clause(search)
    if clause is not None:
        query = query.where(clause)
    query = query.order_by(col(TraceRecord.started_at).desc(), col(TraceRecord.id).desc())
    return [str(t) for t in session.execute(query).scalars().all()]


def delete_traces(session: Session, *, trace_ids: Sequence[str]) -> int:
    """Forget stored traces (their scores stay); returns how many were deleted."""
    records = _records(session, trace_ids)
    for record in records.values():
        session.delete(record)
    session.flush()
    return len(records)


def scored_trace_ids(session: Session, *, scorer_version_id: int) -> set[str]:
    """Traces that already have a stored result (any outcome) of this scorer version."""
    query = (
        sa_select(col(ScoreRecord.trace_id))
        .where(
            col(ScoreRecord.scorer_version_id) == scorer_version_id,
            col(ScoreRecord.trace_id).is_not(None),
        )
        .distinct()
    )
    return {str(t) for t in session.execute(query).scalars().all()}
