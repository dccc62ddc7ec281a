"""Reads behind the Traces page: scores per trace, a trace's scores with their scorer, the
agent scorers that can score traces, and one trace score with what it scored."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from scorer_runtime.store.errors import NotFoundError
from scorer_runtime.store.lenient_spec import read_stored_spec
from scorer_runtime.store.scores import ScoreInfo, get_score
from scorer_runtime.store.tables import ScoreRecord, ScorerRecord, ScorerVersionRecord
from scorer_runtime.store.traces import get_trace
from scorer_runtime.traces.model import Trace
from scorer_runtime.types import Outcome

if TYPE_CHECKING:
    from scorer_runtime.spec import ScorerSpec


def trace_score_counts(session: Session, *, trace_ids: Sequence[str]) -> dict[str, int]:
    """How many stored scores each of these traces has (traces without any are left out)."""
    if not trace_ids:
        return {}
    query = (
        sa_select(col(ScoreRecord.trace_id), func.count())
        .where(col(ScoreRecord.trace_id).in_(list(trace_ids)))
        .group_by(col(ScoreRecord.trace_id))
    )
    return {str(trace_id): int(n) for trace_id, n in session.execute(query).all()}


@dataclass(frozen=True, slots=True)
class TraceScoreLine:
    """A stored score of a trace, with its scorer's name and version."""

    score_id: int
    trace_id: str
    span_id: str | None
    scorer: str
    version: int
    score: float | None
    outcome: Outcome
    reason: str | None
    error: str | None
    created_at: datetime
    label: str | None = None
    """The verdict in words another tool sent (external scores)."""
    external_name: str | None = None
    """Set when the score came from another tool: the name it sends its verdicts under."""

    @property
    def external(self) -> bool:
        """Whether the score came from another tool (an evaluation event)."""
        return self.external_name is not None


def trace_scores(
    session: Session, *, trace_ids: Sequence[str], limit: int = 500
) -> list[TraceScoreLine]:
    """The stored scores of these traces, newest first (at most ``limit``)."""
    if not trace_ids:
        return []
    query = (
        sa_select(
            col(ScoreRecord.id),
            col(ScoreRecord.trace_id),
            col(ScoreRecord.span_id),
            col(ScorerRecord.name),
            col(ScorerVersionRecord.version),
            col(ScoreRecord.score),
            col(ScoreRecord.outcome),
            col(ScoreRecord.reason),
            col(ScoreRecord.error),
            col(ScoreRecord.created_at),
            col(ScoreRecord.label),
            col(ScorerRecord.external_name),
        )
        .join(ScorerRecord, col(ScorerRecord.id) == col(ScoreRecord.scorer_id))
        .join(
            ScorerVersionRecord, col(ScorerVersionRecord.id) == col(ScoreRecord.scorer_version_id)
        )
        .where(col(ScoreRecord.trace_id).in_(list(trace_ids)))
        .order_by(col(ScoreRecord.created_at).desc(), col(ScoreRecord.id).desc())
        .limit(limit)
    )
    return [TraceScoreLine(*row) for row in session.execute(query).all()]


@dataclass(frozen=True, slots=True)
class AgentScorerVersion:
    """A saved version of a live agent scorer (``type: agent``): one that can score traces."""

    scorer_id: int
    name: str
    version_id: int
    version: int
    note: str
    spec: ScorerSpec


def agent_scorer_versions(session: Session) -> list[AgentScorerVersion]:
    """Every version of every agent scorer not archived, by scorer name, newest version
    first (one statement; the spec's ``type`` is read in the database)."""
    spec = col(ScorerVersionRecord.spec)
    query = (
        select(ScorerVersionRecord, ScorerRecord.name)
        .join(ScorerRecord, col(ScorerRecord.id) == col(ScorerVersionRecord.scorer_id))
        .where(
            col(ScorerRecord.archived_at).is_(None),
            col(ScorerRecord.external_name).is_(None),  # another tool's: nothing to run
            spec["type"].as_string() == "agent",
        )
        .order_by(col(ScorerRecord.name), col(ScorerVersionRecord.version).desc())
    )
    versions = []
    for version, name in session.exec(query).all():
        assert version.id is not None
        versions.append(
            AgentScorerVersion(
                scorer_id=version.scorer_id,
                name=name,
                version_id=version.id,
                version=version.version,
                note=version.note,
                spec=read_stored_spec(version.spec, fallback_id=name)[0],
            )
        )
    return versions


@dataclass(frozen=True, slots=True)
class StoredTraceScore:
    """A stored score with what it was made by and on: its scorer's name and version number
    (None when they are gone) and the stored trace (None when it was deleted since; the
    score stays)."""

    score: ScoreInfo
    scorer: str | None
    version: int | None
    trace: Trace | None


def stored_trace_score(session: Session, *, score_id: int) -> StoredTraceScore:
    """The score ``score_id`` with its scorer, version and trace; raises NotFoundError when
    there is no such score (a deleted trace is no error: ``trace`` is None)."""
    record = get_score(session, score_id=score_id)
    scorer = session.get(ScorerRecord, record.scorer_id)
    version = session.get(ScorerVersionRecord, record.scorer_version_id)
    trace = None
    if record.trace_id:
        try:
            trace = get_trace(session, trace_id=record.trace_id)
        except NotFoundError:  # the trace was deleted; its score stays
            trace = None
    return StoredTraceScore(
        score=record,
        scorer=scorer.name if scorer else None,
        version=version.version if version else None,
        trace=trace,
    )
