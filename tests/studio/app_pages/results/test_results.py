"""The Results page, driven through Streamlit's AppTest on a real SQLite file.

The page is checked against the rows written by the seed (and against the store's own
queries), never against numbers typed into the test.
"""

from __future__ import annotations

import json
import statistics
from datetime import timedelta

import pytest
from streamlit.proto.Dataframe_pb2 import Dataframe as DataframeProto

from scorer_runtime.store import ScoreFilter, list_scores, read_session
from scorer_runtime.store.views import get_score_with_example
from studio import state
from studio.widgets.common import format_score

from .test_results_seed import DAY0, History, add_stability_repeats, seed_history


@pytest.fixture
def history(studio_db) -> History:
    return seed_history(studio_db)


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += (
        [e.value for e in at.info] + [e.value for e in at.warning] + [e.value for e in at.error]
    )
    return "\n".join(parts)


def _frame(at, column: str):
    """The table that has ``column`` (AppTest does not keep a dataframe's key)."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _table_ids(at) -> list[int]:
    return [int(i) for i in _frame(at, "Result")["Result"]]


def _page_ids(engine, flt: ScoreFilter, page: int) -> list[int]:
    """The ids of page ``page`` (0-based) of 50, as the store pages them."""
    with read_session(engine) as session:
        after = None
        for _ in range(page):
            after = list_scores(session, filter=flt, after=after).next_cursor
        return [r.id for r in list_scores(session, filter=flt, after=after).rows]


def _charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]


def test_an_empty_database_explains_and_leads_to_runs(studio_db, open_page):
    at = open_page("results")
    assert not at.exception
    assert "No results yet" in _texts(at)
    assert not at.metric
    at.button(key=state.RESULTS_GO_RUNS.name).click().run()
    assert not at.exception
    assert "No results yet" not in _texts(at)  # we are on the Runs page now


def _one_scorer(at, scorer_id: int):
    at.selectbox(key=state.RESULTS_SCORER.name).set_value(scorer_id).run()
    return at


def test_numbers_come_with_count_spread_and_outcome_mix(history, open_page):
    at = _one_scorer(open_page("results"), history.tone)
    assert not at.exception
    rows = [r for r in history.rows if r["scorer_id"] == history.tone]
    scores = [r["score"] for r in rows if r["outcome"] == "scored"]
    assert _metric(at, "Results") == f"{len(rows):,}"
    assert _metric(at, "Mean score") == format_score(statistics.mean(scores))
    assert _metric(at, "Median score") == format_score(statistics.median(scores))
    assert _metric(at, "Spread") == f"± {statistics.pstdev(scores):.2f}"
    passed = sum(s >= 0.5 for s in scores)
    assert _metric(at, "Pass rate") == f"{passed / len(scores):.0%}"
    text = _texts(at)
    assert f"{passed:,} of {len(scores):,} pass at 0.5" in text
    share = f"{len(scores) / len(rows):.0%}"
    assert f"Scored {len(scores):,} ({share})" in text
    assert f"Judge unavailable 6 ({6 / len(rows):.0%})" in text


def test_all_scorers_are_never_averaged_into_one_mean(history, open_page):
    at = open_page("results")
    assert not at.exception
    labels = [m.label for m in at.metric]
    assert "Mean score" not in labels  # no one mean of two scorers that measure other things
    assert "results from 2 scorers" in _texts(at)
    table = _frame(at, "Mean score")
    for scorer_id in (history.tone, history.facts):
        scores = [
            r["score"]
            for r in history.rows
            if r["scorer_id"] == scorer_id and r["outcome"] == "scored"
        ]
        line = table[table["Results"] == sum(r["scorer_id"] == scorer_id for r in history.rows)]
        assert list(line["Mean score"]) == [format_score(statistics.mean(scores))]
        assert list(line["Scored"]) == [len(scores)]
    # The charts that would mix them are left out: the outcome mix and the trend per version.
    assert len(_charts(at)) == 2
    assert "Pick one scorer above to see how its scores are spread" in _texts(at)


def test_the_pass_mark_changes_the_pass_rate_and_the_histogram(history, open_page):
    at = _one_scorer(open_page("results"), history.tone)
    at.slider(key=state.RESULTS_THRESHOLD_SLIDER.name).set_value(0.8).run()
    rows = [r for r in history.rows if r["scorer_id"] == history.tone]
    scores = [r["score"] for r in rows if r["outcome"] == "scored"]
    passed = sum(s >= 0.8 for s in scores)
    assert _metric(at, "Pass rate") == f"{passed / len(scores):.0%}"
    histogram = next(c for c in _charts(at) if "layer" in c)
    assert histogram["layer"][1]["mark"]["type"] == "rule"
    # The pass mark is remembered when the page is left and opened again.
    at.switch_page("app_pages/compare/page.py").run()
    at.switch_page("app_pages/results/page.py").run()
    assert at.slider(key=state.RESULTS_THRESHOLD_SLIDER.name).value == pytest.approx(0.8)


def test_filters_by_scorer_version_and_outcome(history, open_page):
    at = open_page("results")
    at.selectbox(key=state.RESULTS_SCORER.name).set_value(history.tone).run()
    assert _metric(at, "Results") == "240"
    versions = at.selectbox(key=state.RESULTS_VERSION.name).options
    assert versions == ["All versions", "Version 2", "Version 1"]
    at.selectbox(key=state.RESULTS_VERSION.name).set_value(history.tone_v2).run()
    assert _metric(at, "Results") == "120"
    # The scorer as people call it: its latest version's display name.
    assert set(_frame(at, "Result")["Scorer"]) == {"Tone v2 v2"}
    runs = at.selectbox(key=state.RESULTS_RUN.name).options
    assert len(runs) == 2
    assert runs[1].startswith(f"Run {history.run2} · Tone v2 v2 on support")
    at.multiselect(key=state.RESULTS_OUTCOMES.name).select("provider_error").run()
    assert _metric(at, "Results") == "6"
    assert _metric(at, "Mean score") == "—"
    assert "None of these results has a score" in _texts(at)


def test_dates_filter_whole_utc_days_and_a_wrong_range_is_explained(history, open_page):
    at = open_page("results")
    day1, day2 = (DAY0 + timedelta(days=1)).date(), (DAY0 + timedelta(days=2)).date()
    at.date_input(key=state.RESULTS_SINCE.name).set_value(day1).run()
    at.date_input(key=state.RESULTS_UNTIL.name).set_value(day2).run()
    expected = sum(1 for r in history.rows if day1 <= r["created_at"].date() <= day2)
    assert _metric(at, "Results") == f"{expected:,}"
    at.date_input(key=state.RESULTS_SINCE.name).set_value(day2 + timedelta(days=1)).run()
    assert not at.exception
    assert "is after the end date" in _texts(at)
    assert not at.metric


def test_nothing_matching_offers_to_clear_the_filters(history, open_page):
    at = open_page("results")
    at.selectbox(key=state.RESULTS_SCORER.name).set_value(history.facts).run()
    at.multiselect(key=state.RESULTS_OUTCOMES.name).select("step_error").run()
    assert "No results match these filters" in _texts(at)
    at.button(key=state.RESULTS_CLEAR.name).click().run()
    assert f"{len(history.rows):,} results from 2 scorers" in _texts(at)
    assert at.selectbox(key=state.RESULTS_SCORER.name).value is None


def test_pages_of_fifty_forward_and_back(studio_db, history, open_page):
    at = open_page("results")
    everything = ScoreFilter()
    assert _table_ids(at) == _page_ids(studio_db, everything, 0)
    assert "Page 1 of 6 · results 1–50 of 260" in _texts(at)
    at.button(key=state.RESULTS_NEXT.name).click().run()
    at.button(key=state.RESULTS_NEXT.name).click().run()
    assert _table_ids(at) == _page_ids(studio_db, everything, 2)
    assert "Page 3 of 6 · results 101–150 of 260" in _texts(at)
    at.button(key=state.RESULTS_PREVIOUS.name).click().run()
    assert _table_ids(at) == _page_ids(studio_db, everything, 1)
    for _ in range(4):
        at.button(key=state.RESULTS_NEXT.name).click().run()
    assert len(_table_ids(at)) == 10
    assert at.button(key=state.RESULTS_NEXT.name).disabled
    # A new filter starts again at page 1.
    at.selectbox(key=state.RESULTS_RUN.name).set_value(history.run1).run()
    assert _table_ids(at) == _page_ids(studio_db, ScoreFilter(run_id=history.run1), 0)
    assert "Page 1 of 3" in _texts(at)


def test_opening_a_failed_result_explains_it_in_plain_words(studio_db, history, open_page):
    at = open_page("results")
    at.multiselect(key=state.RESULTS_OUTCOMES.name).select("provider_error").run()
    first = _table_ids(at)[0]
    at.selectbox(key=state.RESULTS_OPEN.name).set_value(first).run()
    assert not at.exception
    text = _texts(at)
    assert "The judge could not answer in the analysis step" in text
    assert "rate-limiting you" in text
    assert "2. Analyse — failed here" in [e.label for e in at.expander]
    calls = _frame(at, "HTTP status")
    assert list(calls["HTTP status"]) == ["429"] * 4
    assert set(calls["Result"]) == {"Failed (rate-limited)"}
    at.button(key=state.RESULTS_CLOSE.name).click().run()
    assert "The judge could not answer" not in _texts(at)


def test_another_page_can_open_results_for_one_run(history, open_page):
    # What results_links.open_results does from another page: preset the filters, switch.
    at = open_page("home")
    at.session_state["results.filters"] = {"run_id": history.run3}
    at.switch_page("app_pages/results/page.py").run()
    assert not at.exception
    assert at.selectbox(key=state.RESULTS_RUN.name).value == history.run3
    assert _metric(at, "Results") == "20"
    # The choice is kept while visiting another page.
    at.switch_page("app_pages/home/page.py").run()
    at.switch_page("app_pages/results/page.py").run()
    assert at.selectbox(key=state.RESULTS_RUN.name).value == history.run3


def test_charts_are_drawn_from_aggregates(history, open_page):
    at = _one_scorer(open_page("results"), history.tone)
    charts = _charts(at)
    assert len(charts) == 3  # outcome mix, histogram, trend
    trend = next(c for c in charts if c.get("mark", {}).get("type") == "line")
    assert trend["encoding"]["color"]["field"] == "version"
    text = _texts(at)
    assert "Days are UTC" in text


def test_count_axes_have_whole_numbers_only(history, open_page):
    at = _one_scorer(open_page("results"), history.tone)
    charts = _charts(at)
    outcome = next(c for c in charts if c.get("mark", {}).get("type") == "bar")
    histogram = next(c for c in charts if "layer" in c)["layer"][0]
    for axis in (outcome["encoding"]["x"]["axis"], histogram["encoding"]["y"]["axis"]):
        assert axis["tickMinStep"] == 1
        assert axis["format"] == "d"


def test_the_table_and_the_picker_lead_with_the_examples_input(studio_db, history, open_page):
    at = _one_scorer(open_page("results"), history.tone)
    table = _frame(at, "Result")
    assert next(iter(table.columns)) == "Input"
    with read_session(studio_db) as session:
        first = list_scores(session, filter=ScoreFilter(scorer_id=history.tone), limit=1).rows[0]
        _, example = get_score_with_example(session, score_id=first.id)
    assert example is not None
    assert table["Input"][0] == example.input
    label = at.selectbox(key=state.RESULTS_OPEN.name).options[1]
    assert label.startswith(f"“{example.input}”")
    at.selectbox(key=state.RESULTS_OPEN.name).set_value(first.id).run()
    assert not at.exception
    assert "**Input**" in [m.value for m in at.markdown]
    assert example.input in [t.value for t in at.text]


def test_results_open_on_the_scorer_being_worked_on_and_a_pick_makes_it_current(history, open_page):
    at = open_page("home")
    at.session_state[state.CURRENT_SCORER_ID.name] = history.facts  # saved in the builder
    at.switch_page("app_pages/results/page.py").run()
    assert at.selectbox(key=state.RESULTS_SCORER.name).value == history.facts
    assert _metric(at, "Results") == f"{sum(r['scorer_id'] == history.facts for r in history.rows)}"
    at.selectbox(key=state.RESULTS_SCORER.name).set_value(history.tone).run()
    assert at.session_state[state.CURRENT_SCORER_ID.name] == history.tone
    # "All scorers" chosen here stays chosen while the current scorer does not change.
    at.selectbox(key=state.RESULTS_SCORER.name).set_value(None).run()
    at.switch_page("app_pages/home/page.py").run()
    at.switch_page("app_pages/results/page.py").run()
    assert at.selectbox(key=state.RESULTS_SCORER.name).value is None


async def test_a_judged_result_shows_the_exact_prompt_and_raw_answer(
    studio_db, fake_judge, monkeypatch, open_page
):
    from tests.studio.widgets.test_score_view import ANSWER, _batch_run

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    score_id = await _batch_run(studio_db, fake_judge)
    sent = fake_judge.chat_requests[-1].json["messages"]
    at = open_page("results")
    at.selectbox(key=state.RESULTS_OPEN.name).set_value(score_id).run()
    assert not at.exception
    code = [c.value for c in at.code]
    assert ANSWER in code
    assert [m["content"] for m in sent] == [c for c in code if c in {m["content"] for m in sent}]
    assert "**Reason:** polite: it thanks the customer" in _texts(at)
    calls = _frame(at, "HTTP status")
    assert list(calls["Result"]) == ["Failed (rate-limited)", "OK"]
    assert "2 calls to the judge" in _texts(at)


def test_a_stability_checks_repeats_stay_out_of_the_results(studio_db, history, open_page):
    repeats = add_stability_repeats(studio_db, history, repeats=2, sample=10)
    at = open_page("results")
    assert not at.exception
    # The repeats are the newest scores, yet the table and its counts are people's runs only.
    assert "Page 1 of 6 · results 1–50 of 260" in _texts(at)
    own = ScoreFilter(repeats=False)
    assert _table_ids(at) == _page_ids(studio_db, own, 0)
    runs = at.selectbox(key=state.RESULTS_RUN.name)
    assert not {f"Run {r} " for r in repeats} & {o.split("·")[0] for o in runs.options}
    assert len(runs.options) == 1 + 3  # "All runs" and the three runs people started
    _one_scorer(at, history.tone)
    at.selectbox(key=state.RESULTS_VERSION.name).set_value(history.tone_v2).run()
    assert _metric(at, "Results") == f"{len(history.of_run(history.run2))}"


def _table(at):
    return next(d for d in at.dataframe if "Result" in d.value.columns)


def test_the_table_rows_can_be_picked_and_show_the_result_open(studio_db, history, open_page):
    at = open_page("results")
    table = _table(at)
    assert list(table.proto.selection_mode) == [DataframeProto.SelectionMode.SINGLE_ROW]
    assert "Tick the box at the start of a row to open that result below" in _texts(at)
    ids = _table_ids(at)
    # Opened from the list below, the result's row is the one selected in the table.
    at.selectbox(key=state.RESULTS_OPEN.name).set_value(ids[3]).run()
    assert not at.exception
    assert at.session_state[state.RESULTS_TABLE.name]["selection"]["rows"] == [3]
    assert f"Result {ids[3]}" in [s.value for s in at.subheader]
    # On the next page that result is not listed: no row is selected, the result stays open.
    at.button(key=state.RESULTS_NEXT.name).click().run()
    assert at.session_state[state.RESULTS_TABLE.name]["selection"]["rows"] == []
    assert f"Result {ids[3]}" in [s.value for s in at.subheader]
    at.button(key=state.RESULTS_PREVIOUS.name).click().run()
    assert at.session_state[state.RESULTS_TABLE.name]["selection"]["rows"] == [3]
    at.button(key=state.RESULTS_CLOSE.name).click().run()
    assert at.session_state[state.RESULTS_TABLE.name]["selection"]["rows"] == []
