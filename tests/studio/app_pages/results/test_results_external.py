"""Scores another tool sent (OpenTelemetry evaluation events) beside ours on the same trace,
on the Results and Traces pages, driven through AppTest on a real SQLite file. The trace
and its events go through the same reading path as an OTLP trace file or a received export."""

from __future__ import annotations

import pytest

from scorer_runtime.store import ScoreFilter, add_scores, list_scores, read_session, save_traces
from scorer_runtime.store import session_scope as writing
from scorer_runtime.traces import read_otlp_document
from studio import state
from tests.store.fixtures import make_version

TRACE, SPAN = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
START_NS = 1_764_936_000_000_000_000


def _value(value: object) -> dict[str, object]:
    return {"doubleValue": value} if isinstance(value, float) else {"stringValue": value}


def _event(offset_ns: int, **attributes: object) -> dict[str, object]:
    return {
        "name": "gen_ai.evaluation.result",
        "timeUnixNano": str(START_NS + offset_ns),
        "attributes": [
            {"key": "gen_ai.evaluation." + k.replace("_", "."), "value": _value(v)}
            for k, v in attributes.items()
        ],
    }


def _document() -> dict[str, object]:
    span = {
        "traceId": TRACE,
        "spanId": SPAN,
        "name": "invoke_agent support",
        "startTimeUnixNano": str(START_NS),
        "endTimeUnixNano": str(START_NS + 900_000_000),
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}],
        "events": [
            _event(
                1, name="ragas", score_value=0.8, score_label="faithful", explanation="Grounded."
            ),
            _event(2, name="relevance", score_label="on topic"),
        ],
    }
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}


@pytest.fixture
def compared(studio_db) -> dict[str, int]:
    """One trace scored by our scorer and, through its span events, by another tool."""
    found = read_otlp_document(_document())
    assert not found.problems
    with writing(studio_db) as session:
        save_traces(session, traces=found.traces, source="t.json", evaluations=found.evaluations)
    scorer_id, version_id = make_version(studio_db, "tone")
    row = {"scorer_id": scorer_id, "scorer_version_id": version_id, "trace_id": TRACE}
    with writing(studio_db) as session:
        add_scores(session, rows=[{**row, "span_id": SPAN, "score": 0.5, "outcome": "scored"}])
    with read_session(studio_db) as session:
        rows = list_scores(session, filter=ScoreFilter()).rows
    return {r.label or "ours": r.id for r in rows} | {
        "ragas_scorer": next(r.scorer_id for r in rows if r.label == "faithful")
    }


def _frame(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _texts(at) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption])


def test_results_show_another_tools_scores_beside_ours(compared, open_page):
    at = open_page("results")
    assert not at.exception
    table = _frame(at, "Result")
    shown = {row["Scorer"]: row for row in table.to_dict("records")}
    assert set(shown) == {"tone v1", "ragas (external)", "relevance (external)"}
    assert shown["ragas (external)"]["Score"] == "0.80 · faithful"
    assert shown["ragas (external)"]["Reason or problem"] == "Grounded."
    assert shown["relevance (external)"]["Score"] == "on topic"  # words, no invented number
    assert shown["tone v1"]["Score"] == "0.50"
    assert {row["Input"] for row in shown.values()} == {f"(trace {TRACE})"}

    at.selectbox(key=state.RESULTS_SCORER.name).set_value(compared["ragas_scorer"]).run()
    assert not at.exception
    assert "sent by another tool" in _texts(at)


def test_opening_another_tools_verdict_says_where_it_came_from(compared, open_page):
    at = open_page("results")
    at.selectbox(key=state.RESULTS_OPEN.name).set_value(compared["on topic"]).run()
    assert not at.exception
    assert [(m.label, m.value) for m in at.metric if m.label == "Verdict"] == [
        ("Verdict", "on topic")
    ]
    texts = _texts(at)
    assert "Sent by another tool" in texts
    assert "calls to the judge" not in texts  # no judge of ours was asked
    assert "Scorer: relevance (external)" in texts
    assert not at.error  # a verdict in words is no failure


def test_the_traces_page_lists_both_on_the_trace(compared, open_page):
    at = open_page("traces")
    assert not at.exception
    table = _frame(at, "Why")
    scorers = {row["Scorer"]: row["Score"] for row in table.to_dict("records")}
    assert scorers == {
        "tone · version 1": "0.50",
        "ragas (external)": "0.80 · faithful",
        "relevance (external)": "on topic",
    }
