"""The Traces page's reads and writes: a page of the list, score counts, a trace with its
spans, the chosen traces' lines, the agent scorers to score with and what each already scored,
the stored scores of traces (each cached per database and store revision), and the writes
(import, delete, an expected answer), each through ``services.writing()``, which clears the
caches."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from scorer_runtime.store import (
    NotFoundError,
    ScorerVersionInfo,
    TraceSaveSummary,
    TraceSummary,
    database_url,
    delete_traces,
    get_trace,
    get_version_by_id,
    save_traces,
    scored_trace_ids,
    set_trace_expected,
    trace_summaries,
)
from scorer_runtime.store.views import TraceScoreLine, trace_score_counts, trace_scores
from scorer_runtime.traces import ExternalEvaluation, Trace
from studio import services
from studio.app_pages.traces.logic import TracePage, trace_page
from studio.app_pages.traces.scoring import (
    AgentScorerOption,
    agent_scorer_options,
    trace_score_data,
)

_cached = services.cached(ttl=30)


def page(search: str, number: int) -> TracePage:
    """One page of matching stored traces."""
    return _page(database_url(), search, number)


@_cached
def _page(url: str, search: str, number: int) -> TracePage:
    with services.reading() as session:
        return trace_page(session, search=search, page=number)


def score_counts(trace_ids: Sequence[str]) -> dict[str, int]:
    """How many stored scores each of these traces has."""
    return _score_counts(database_url(), tuple(trace_ids))


@_cached
def _score_counts(url: str, trace_ids: tuple[str, ...]) -> dict[str, int]:
    with services.reading() as session:
        return trace_score_counts(session, trace_ids=trace_ids)


def trace(trace_id: str) -> Trace | None:
    """A stored trace with its spans, or None when it is no longer stored."""
    return _trace(database_url(), trace_id)


@_cached
def _trace(url: str, trace_id: str) -> Trace | None:
    with services.reading() as session:
        try:
            return get_trace(session, trace_id=trace_id)
        except NotFoundError:
            return None


def summaries(trace_ids: Sequence[str]) -> list[TraceSummary]:
    """The list lines of these stored traces (ids no longer stored are left out)."""
    return _summaries(database_url(), tuple(trace_ids))


@_cached
def _summaries(url: str, trace_ids: tuple[str, ...]) -> list[TraceSummary]:
    with services.reading() as session:
        return trace_summaries(session, trace_ids=trace_ids)


def scorer_options() -> list[AgentScorerOption]:
    """Versions of live agent scorers."""
    return _scorer_options(database_url())


@_cached
def _scorer_options(url: str) -> list[AgentScorerOption]:
    with services.reading() as session:
        return agent_scorer_options(session)


def scored(version_id: int) -> frozenset[str]:
    """The traces this scorer version already has a stored result for."""
    return _scored(database_url(), version_id)


@_cached
def _scored(url: str, version_id: int) -> frozenset[str]:
    with services.reading() as session:
        return frozenset(scored_trace_ids(session, scorer_version_id=version_id))


def scores(trace_ids: Sequence[str]) -> list[TraceScoreLine]:
    """The stored scores of these traces, newest first."""
    return _scores(database_url(), tuple(trace_ids))


@_cached
def _scores(url: str, trace_ids: tuple[str, ...]) -> list[TraceScoreLine]:
    with services.reading() as session:
        return trace_scores(session, trace_ids=trace_ids)


def score_data(score_id: int) -> dict[str, Any]:
    """One stored score in full, with what the scorer saw of the stored trace, read now."""
    with services.reading() as session:
        return trace_score_data(session, score_id=score_id)


def version(version_id: int) -> ScorerVersionInfo:
    """A scorer version, read now (to score traces with)."""
    with services.reading() as session:
        return get_version_by_id(session, version_id=version_id)


def save(
    traces: Iterable[Trace], source: str, evaluations: Sequence[ExternalEvaluation] = ()
) -> TraceSaveSummary:
    """Store imported traces (a trace already stored merges, never doubles), and the
    evaluation events of other tools they carried, as external scores."""
    with services.writing() as session:
        return save_traces(session, traces=traces, source=source, evaluations=evaluations)


def delete(trace_ids: Sequence[str]) -> int:
    """Delete these traces and their scores; how many traces were deleted."""
    with services.writing() as session:
        return delete_traces(session, trace_ids=trace_ids)


def set_expected(trace_id: str, expected: Any) -> None:
    """Save (or, with None, remove) a trace's expected answer."""
    with services.writing() as session:
        set_trace_expected(session, trace_id=trace_id, expected=expected)
