"""What scores traces and what a trace score was made on: the agent scorer versions to pick
from (read in the database by the spec's type), and a stored trace score read back with its
scorer's name, version number and trace — also after the trace was deleted."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from scorer_runtime.spec import ScorerSpec
from scorer_runtime.store import (
    NotFoundError,
    add_scores,
    archive_scorer,
    delete_traces,
    read_session,
    save_scorer_version,
    save_traces,
    session_scope,
)
from scorer_runtime.store.views import agent_scorer_versions, stored_trace_score, trace_scores
from scorer_runtime.traces import Span, Trace
from tests.store.fixtures import valid_spec

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
TRACE_ID = f"{7:032x}"
SPAN_ID = f"{7:016x}"


def _agent_spec(name: str, note: str = "") -> ScorerSpec:
    return valid_spec(name, note or "an agent scorer", type="agent")


def test_agent_scorer_versions_by_name_newest_first(engine):
    with session_scope(engine) as session:
        save_scorer_version(session, spec=_agent_spec("tools"))
        save_scorer_version(session, spec=_agent_spec("tools", "second"), note="better")
        save_scorer_version(session, spec=_agent_spec("answers"))
        save_scorer_version(session, spec=valid_spec("plain", "not an agent"))
        gone = save_scorer_version(session, spec=_agent_spec("gone"))
        archive_scorer(session, scorer_id=gone.scorer_id)
    with read_session(engine) as session:
        versions = agent_scorer_versions(session)
    assert [(v.name, v.version, v.note) for v in versions] == [
        ("answers", 1, ""),
        ("tools", 2, "better"),
        ("tools", 1, ""),
    ]
    assert versions[1].spec.description == "second"
    assert versions[1].scorer_id == versions[2].scorer_id
    assert versions[1].version_id != versions[2].version_id


def test_no_agent_scorer_no_versions(engine):
    with session_scope(engine) as session:
        save_scorer_version(session, spec=valid_spec("plain", "not an agent"))
    with read_session(engine) as session:
        assert agent_scorer_versions(session) == []


def _stored_score(engine) -> int:
    span = Span(
        trace_id=TRACE_ID,
        span_id=SPAN_ID,
        name="agent",
        type="agent_run",
        start_time=T0,
        end_time=T0 + timedelta(seconds=2),
    )
    with session_scope(engine) as session:
        save_traces(session, traces=[Trace(TRACE_ID, (span,))], source="t.json")
        version = save_scorer_version(session, spec=_agent_spec("tools"))
        row = {
            "scorer_id": version.scorer_id,
            "scorer_version_id": version.id,
            "trace_id": TRACE_ID,
            "span_id": SPAN_ID,
            "score": 1.0,
            "outcome": "scored",
        }
        add_scores(session, rows=[row])
    with read_session(engine) as session:
        (line,) = trace_scores(session, trace_ids=[TRACE_ID])
    return line.score_id


def test_a_trace_score_comes_with_its_scorer_version_and_trace(engine):
    score_id = _stored_score(engine)
    with read_session(engine) as session:
        stored = stored_trace_score(session, score_id=score_id)
    assert (stored.scorer, stored.version) == ("tools", 1)
    assert (stored.score.id, stored.score.span_id, stored.score.score) == (score_id, SPAN_ID, 1.0)
    assert stored.trace is not None
    assert stored.trace.get(SPAN_ID) is not None


def test_a_deleted_trace_leaves_its_score_readable(engine):
    score_id = _stored_score(engine)
    with session_scope(engine) as session:
        assert delete_traces(session, trace_ids=[TRACE_ID]) == 1
    with read_session(engine) as session:
        stored = stored_trace_score(session, score_id=score_id)
        with pytest.raises(NotFoundError):
            stored_trace_score(session, score_id=score_id + 1)
    assert stored.trace is None
    assert (stored.scorer, stored.score.trace_id) == ("tools", TRACE_ID)
