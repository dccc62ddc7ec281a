"""Scores another tool sent (OpenTelemetry evaluation events) beside ours on the same trace,
on the Results and Traces pages, driven through AppTest on a real SQLite file. The trace
and its events go through the same reading path as an OTLP trace file or a received export."""

from __future__ import annotations

import pytest

from studio import state

from .external_seed import TRACE, seed_compared
from .test_results_seed import seed_history


@pytest.fixture
def compared(studio_db) -> dict[str, int]:
    return seed_compared(studio_db)


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
    assert shown["relevance (external)"]["Outcome"] == "Verdict in words"
    assert shown["tone v1"]["Score"] == "0.50"
    assert {row["Input"] for row in shown.values()} == {f"(trace {TRACE})"}
    figures = _frame(at, "Judge cost")
    costs = dict(zip(figures["Scorer"], figures["Judge cost"], strict=True))
    assert costs["ragas (external)"] == costs["relevance (external)"] == "— (another tool)"

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


def test_compare_offers_no_version_of_another_tools_scorer(studio_db, open_page):
    seed_history(studio_db)  # runs to compare
    seed_compared(studio_db)
    at = open_page("compare")
    at.radio(key=state.COMPARE_MODE.name).set_value("versions").run()
    assert not at.exception
    offered = at.selectbox(key=state.COMPARE_SCORER.name).options
    assert len(offered) > 1  # ours are offered
    assert not any("(external)" in o for o in offered)
