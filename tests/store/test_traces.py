"""Stored traces: saved with a summary, merged when imported again, listed, searched, read
back as the same trace, deleted without touching their scores."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from scorer_runtime.store import (
    NotFoundError,
    ScoreFilter,
    add_scores,
    all_trace_ids,
    count_traces,
    delete_traces,
    get_trace,
    get_traces,
    list_scores,
    list_traces,
    save_scorer_version,
    save_traces,
    scored_trace_ids,
    session_scope,
    set_trace_expected,
    trace_summaries,
)
from scorer_runtime.store.views import trace_score_counts, trace_scores
from scorer_runtime.traces import Span, Trace, load_traces
from tests.store.fixtures import valid_spec

FIXTURES = Path(__file__).resolve().parents[1] / "traces" / "fixtures"
SUPPORT_TRACE = "5b8aa5a2d2c872e8321cf37308d69df2"
SUMMARY_TRACE = "0af7651916cd43dd8448eb211c80319c"
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def small_trace(n: int, name: str = "agent") -> Trace:
    span = Span(
        trace_id=f"{n:032x}",
        span_id=f"{n:016x}",
        name=name,
        type="agent_run",
        start_time=T0 + timedelta(minutes=n),
        end_time=T0 + timedelta(minutes=n, seconds=2),
    )
    return Trace(span.trace_id, (span,))


def test_imported_traces_come_back_the_same_with_their_summary(engine):
    traces = load_traces(FIXTURES / "support_agent.otlp.jsonl")
    with session_scope(engine) as session:
        saved = save_traces(session, traces=traces, source="support_agent.otlp.jsonl")
    assert saved.added == [SUPPORT_TRACE, SUMMARY_TRACE]
    assert saved.saved == 2
    with session_scope(engine) as session:
        assert get_traces(session, trace_ids=[SUMMARY_TRACE, SUPPORT_TRACE]) == [
            traces[1],
            traces[0],
        ]
        rows = {r.trace_id: r for r in list_traces(session)}
    support = rows[SUPPORT_TRACE]
    # 3 tool spans, and 1 call the model asked for with no span of its own: 4, as the agent
    # scorers count them (traces.agent_run.count_tool_calls).
    assert (support.span_count, support.model_calls, support.tool_calls) == (9, 5, 4)
    assert (support.agent_runs, support.errors) == (1, 1)
    assert support.agent == "support-agent"
    assert support.name == "invoke_agent support-agent"
    assert support.formats == "otlp"
    assert support.source == "support_agent.otlp.jsonl"
    assert support.duration_ms == pytest.approx(6450)
    assert rows[SUMMARY_TRACE].agent_runs == 0


def test_importing_again_changes_nothing_and_new_spans_are_merged(engine):
    trace = load_traces(FIXTURES / "weather.otlp.json")[0]
    first_half = Trace(trace.trace_id, trace.spans[:3])
    with session_scope(engine) as session:
        assert save_traces(session, traces=[first_half], source="a.json").added == [trace.trace_id]
    with session_scope(engine) as session:
        again = save_traces(session, traces=[first_half], source="a.json")
        assert (again.added, again.updated, again.unchanged) == ([], [], [trace.trace_id])
    with session_scope(engine) as session:
        more = save_traces(session, traces=[trace], source="b.json")
        assert more.updated == [trace.trace_id]
    with session_scope(engine) as session:
        assert get_trace(session, trace_id=trace.trace_id) == trace
        (row,) = list_traces(session)
        assert (row.span_count, row.source) == (len(trace.spans), "b.json")


def test_a_span_exported_again_with_changes_keeps_the_new_copy(engine):
    trace = small_trace(1)
    ended_later = replace(trace.spans[0], end_time=T0 + timedelta(minutes=1, seconds=9))
    with session_scope(engine) as session:
        save_traces(session, traces=[trace])
    with session_scope(engine) as session:
        assert save_traces(session, traces=[Trace(trace.trace_id, (ended_later,))]).updated
    with session_scope(engine) as session:
        assert get_trace(session, trace_id=trace.trace_id).spans == (ended_later,)
        assert list_traces(session)[0].duration_ms == pytest.approx(9000)


def test_mastra_and_otlp_spans_of_one_trace_record_both_formats(engine):
    otlp = load_traces(FIXTURES / "weather.otlp.json")[0]
    mastra = load_traces(FIXTURES / "weather.mastra.json")[0]
    renamed = Trace(otlp.trace_id, tuple(replace(s, trace_id=otlp.trace_id) for s in mastra.spans))
    with session_scope(engine) as session:
        save_traces(session, traces=[otlp])
        save_traces(session, traces=[renamed])
    with session_scope(engine) as session:
        assert list_traces(session)[0].formats == "mastra,otlp"


def test_lists_are_newest_first_paginated_and_searchable(engine):
    with session_scope(engine) as session:
        save_traces(session, traces=[small_trace(n) for n in range(1, 8)], source="day1.jsonl")
        save_traces(session, traces=[small_trace(9, name="billing-agent")], source="day2.jsonl")
    with session_scope(engine) as session:
        assert count_traces(session) == 8
        first = list_traces(session, limit=3)
        assert [r.trace_id for r in first] == [f"{n:032x}" for n in (9, 7, 6)]
        second = list_traces(session, limit=3, offset=3)
        assert [r.trace_id for r in second] == [f"{n:032x}" for n in (5, 4, 3)]
        assert [r.name for r in list_traces(session, search="BILLING")] == ["billing-agent"]
        assert count_traces(session, search="day1") == 7
        assert all_trace_ids(session, search="day2") == [f"{9:032x}"]
        assert count_traces(session, search="  ") == 8


def test_missing_traces_are_named(engine):
    with session_scope(engine) as session:
        save_traces(session, traces=[small_trace(1)])
    with session_scope(engine) as session, pytest.raises(NotFoundError, match="nope"):
        get_traces(session, trace_ids=[f"{1:032x}", "nope"])


def test_deleting_traces_keeps_their_scores(engine):
    with session_scope(engine) as session:
        save_traces(session, traces=[small_trace(1), small_trace(2)])
        version = save_scorer_version(session, spec=valid_spec("fn"))
        row = {
            "scorer_id": version.scorer_id,
            "scorer_version_id": version.id,
            "trace_id": f"{1:032x}",
            "span_id": f"{1:016x}",
            "score": 1.0,
            "outcome": "scored",
        }
        add_scores(session, rows=[row])
    with session_scope(engine) as session:
        assert delete_traces(session, trace_ids=[f"{1:032x}", "unknown"]) == 1
    with session_scope(engine) as session:
        assert all_trace_ids(session) == [f"{2:032x}"]
        assert scored_trace_ids(session, scorer_version_id=version.id) == {f"{1:032x}"}
        (line,) = trace_scores(session, trace_ids=[f"{1:032x}"])
        assert (line.scorer, line.version, line.score) == ("fn", 1, 1.0)
        page = list_scores(session, filter=ScoreFilter(trace_ids=(f"{1:032x}",)))
        assert [r.span_id for r in page.rows] == [f"{1:016x}"]
        assert list_scores(session, filter=ScoreFilter(trace_ids=("other",))).rows == []


def test_score_counts_per_trace(engine):
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=valid_spec("fn"))
        row = {"scorer_id": version.scorer_id, "scorer_version_id": version.id}
        rows = [{**row, "trace_id": t, "score": 1.0, "outcome": "scored"} for t in "aab"]
        add_scores(session, rows=rows)
    with session_scope(engine) as session:
        assert trace_score_counts(session, trace_ids=[]) == {}
        assert trace_score_counts(session, trace_ids=["a", "b", "c"]) == {"a": 2, "b": 1}
        assert list_traces(session, search="nothing") == []


def test_search_finds_the_agent_by_name(engine):
    trace = load_traces(FIXTURES / "support_agent.otlp.jsonl")
    with session_scope(engine) as session:
        save_traces(session, traces=trace, source="x.jsonl")
    with session_scope(engine) as session:
        assert [r.trace_id for r in list_traces(session, search="SUPPORT-AGENT")] == [SUPPORT_TRACE]


def test_a_trace_keeps_its_expected_answer_from_the_file_and_the_page(engine):
    with_answer = replace(small_trace(1), expected=["lookup_order", "issue_refund"])
    with session_scope(engine) as session:
        save_traces(session, traces=[with_answer, small_trace(2)], source="a.jsonl")
    with session_scope(engine) as session:
        assert get_trace(session, trace_id=with_answer.trace_id) == with_answer
        lines = {line.trace_id: line.expected for line in list_traces(session)}
        assert lines == {with_answer.trace_id: ["lookup_order", "issue_refund"], f"{2:032x}": None}
        # Given on the page: a text, then tool names as typed.
        set_trace_expected(session, trace_id=f"{2:032x}", expected="  Refunded.  ")
        assert get_trace(session, trace_id=f"{2:032x}").expected == "Refunded."
        set_trace_expected(session, trace_id=f"{2:032x}", expected=[])  # no tool call expected
    with session_scope(engine) as session:
        assert get_trace(session, trace_id=f"{2:032x}").expected == []
        # A file without one keeps the stored answer; a file with one replaces it.
        again = save_traces(session, traces=[small_trace(1), small_trace(2)], source="a.jsonl")
        assert again.unchanged == [with_answer.trace_id, f"{2:032x}"]
        changed = replace(small_trace(2), expected="Cancelled.")
        assert save_traces(session, traces=[changed], source="a.jsonl").updated == [f"{2:032x}"]
    with session_scope(engine) as session:
        (line,) = trace_summaries(session, trace_ids=[f"{2:032x}", "not-stored"])
        assert line.expected == "Cancelled."
        assert get_trace(session, trace_id=with_answer.trace_id).expected == [
            "lookup_order",
            "issue_refund",
        ]
        set_trace_expected(session, trace_id=with_answer.trace_id, expected=None)
        assert get_trace(session, trace_id=with_answer.trace_id).expected is None
        with pytest.raises(NotFoundError):
            set_trace_expected(session, trace_id="not-stored", expected="x")
