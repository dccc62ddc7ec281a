"""The Compare runs page, driven through AppTest on a real SQLite file with three runs."""

from __future__ import annotations

import pytest

from scorer_runtime.store import read_session
from scorer_runtime.store.views.compare import RunPair, compare_summary, iter_comparison
from studio import state
from tests.studio.app_pages.results.test_results_seed import History, seed_history


@pytest.fixture
def history(studio_db) -> History:
    return seed_history(studio_db)


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for e in at.info] + [e.value for e in at.warning]
    return "\n".join(parts)


def _table(at):
    return next(d.value for d in at.dataframe if "What changed" in d.value.columns)


def _expected(engine, pair: RunPair, threshold: float):
    with read_session(engine) as session:
        return (
            compare_summary(session, pair=pair, threshold=threshold),
            list(iter_comparison(session, pair=pair, threshold=threshold)),
        )


def test_fewer_than_two_runs_explains_what_a_comparison_needs(studio_db, open_page):
    at = open_page("compare")
    assert not at.exception
    assert "Two runs are needed to compare" in _texts(at)
    at.button(key=state.COMPARE_GO_RUNS.name).click().run()
    assert "Two runs are needed" not in _texts(at)


def test_opens_on_the_latest_two_runs_with_changed_verdicts_first(studio_db, history, open_page):
    at = open_page("compare")
    assert not at.exception
    assert at.selectbox(key=state.COMPARE_BEFORE.name).value == history.run1
    assert at.selectbox(key=state.COMPARE_AFTER.name).value == history.run2
    summary, rows = _expected(studio_db, RunPair(history.run1, history.run2), 0.5)
    assert _metric(at, "Examples") == "120"
    assert _metric(at, "Verdicts changed") == f"{summary.changed:,}"
    assert f"**{summary.pass_to_fail:,}** now fail" in _texts(at)
    table = _table(at)
    assert list(table["Example"]) == [history.number(r.example_id) for r in rows[:50]]
    assert table["What changed"].iloc[0] in {"Now fails", "Now passes"}
    assert "Page 1 of 3 · 120 examples" in _texts(at)


def test_only_changed_verdicts_and_a_new_pass_mark(studio_db, history, open_page):
    at = open_page("compare")
    at.slider(key=state.COMPARE_THRESHOLD.name).set_value(0.7).run()
    at.toggle(key=state.COMPARE_ONLY_CHANGED.name).set_value(True).run()
    summary, rows = _expected(studio_db, RunPair(history.run1, history.run2), 0.7)
    changed = [r for r in rows if r.change != "same"]
    assert _metric(at, "Verdicts changed") == f"{summary.changed:,}"
    assert list(_table(at)["Example"]) == [history.number(r.example_id) for r in changed[:50]]
    assert "Same verdict" not in set(_table(at)["What changed"])
    at.button(key=state.COMPARE_NEXT.name).click().run()
    assert list(_table(at)["Example"]) == [history.number(r.example_id) for r in changed[50:100]]


def test_one_example_side_by_side(studio_db, history, open_page):
    at = open_page("compare")
    position = int(_table(at)["Example"].iloc[0]) - 1
    at.selectbox(key=state.COMPARE_EXAMPLE.name).set_value(history.support_examples[position]).run()
    assert not at.exception
    headers = [h.value for h in at.subheader]
    assert f"A — run {history.run1}" in headers
    assert f"B — run {history.run2}" in headers
    text = _texts(at)
    assert f"**Reason:** v1 reason {position}" in text
    assert f"**Reason:** v2 {position}" in text


def test_two_versions_on_one_dataset(studio_db, history, open_page):
    at = open_page("compare")
    at.radio(key=state.COMPARE_MODE.name).set_value("versions").run()
    at.selectbox(key=state.COMPARE_SCORER.name).set_value(history.tone).run()
    at.selectbox(key=state.COMPARE_BEFORE_VERSION.name).set_value(history.tone_v1).run()
    at.selectbox(key=state.COMPARE_AFTER_VERSION.name).set_value(history.tone_v2).run()
    at.selectbox(key=state.COMPARE_DATASET.name).set_value(history.support).run()
    assert not at.exception
    assert _metric(at, "Examples") == "120"
    # tone as people call it (its latest version's display name, "Tone v2"), version 1.
    assert f"**A:** Run {history.run1} · Tone v2 v1" in _texts(at)
    # Neither version ran on the other dataset: say so and point to Runs.
    at.selectbox(key=state.COMPARE_DATASET.name).set_value(history.other).run()
    assert "Tone v2 v1 has not been run on other yet" in _texts(at)
    assert not at.metric


def test_runs_on_different_datasets_or_the_same_run_cannot_be_compared(history, open_page):
    at = open_page("compare")
    at.selectbox(key=state.COMPARE_AFTER.name).set_value(history.run3).run()
    assert "These runs scored different datasets (support and other)" in _texts(at)
    assert not at.metric
    at.selectbox(key=state.COMPARE_AFTER.name).set_value(history.run1).run()
    assert "A and B are the same run" in _texts(at)


def test_another_page_can_open_a_comparison(history, open_page):
    at = open_page("home")
    at.session_state["compare.selection"] = {
        "mode": "runs",
        "before": history.run2,
        "after": history.run1,
    }
    at.switch_page("app_pages/compare/page.py").run()
    assert not at.exception
    assert at.selectbox(key=state.COMPARE_BEFORE.name).value == history.run2
    assert at.selectbox(key=state.COMPARE_AFTER.name).value == history.run1
    # B is now the older run, so the mean change has the opposite sign.
    assert f"**A:** Run {history.run2}" in _texts(at)


def test_the_table_and_the_picker_lead_with_the_examples_input(studio_db, history, open_page):
    at = open_page("compare")
    table = _table(at)
    assert next(iter(table.columns)) == "Input"
    position = int(table["Example"].iloc[0]) - 1
    assert table["Input"].iloc[0] == f"support question {position}"
    label = at.selectbox(key=state.COMPARE_EXAMPLE.name).options[1]
    assert label.startswith(f"“support question {position}” · ")


def test_opens_on_the_versions_of_the_scorer_being_worked_on(studio_db, history, open_page):
    at = open_page("home")
    at.session_state[state.CURRENT_SCORER_ID.name] = history.tone  # just saved and run
    at.switch_page("app_pages/compare/page.py").run()
    assert not at.exception
    assert at.radio(key=state.COMPARE_MODE.name).value == "versions"
    assert at.selectbox(key=state.COMPARE_SCORER.name).value == history.tone
    assert at.selectbox(key=state.COMPARE_BEFORE_VERSION.name).value == history.tone_v1
    assert at.selectbox(key=state.COMPARE_AFTER_VERSION.name).value == history.tone_v2
    assert at.selectbox(key=state.COMPARE_DATASET.name).value == history.support
    # Scorers by their display names, not their ids.
    options = at.selectbox(key=state.COMPARE_SCORER.name).options
    assert "Tone v2" in options  # tone's display name (facts has none: its name)
    assert "tone" not in options
    at.selectbox(key=state.COMPARE_SCORER.name).set_value(history.facts).run()
    assert at.session_state[state.CURRENT_SCORER_ID.name] == history.facts
