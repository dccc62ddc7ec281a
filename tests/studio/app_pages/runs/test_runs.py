"""The Runs page, driven through AppTest on a real SQLite file, with runs scored by a real
runner process (against the real-HTTP fake judge when the scorer asks one).

Every expectation is read from the database or derived from the inputs, never typed in.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from scorer_runtime.batch import stop_started_runners, summarize_run
from scorer_runtime.store import (
    ScoreFilter,
    count_examples,
    create_dataset,
    create_run,
    create_stability_check,
    dataset_example_ids,
    finish_run,
    get_dataset,
    get_scorer,
    latest_version,
    list_runs,
    list_scores,
    read_session,
    session_scope,
)
from studio import state
from studio.widgets.common import format_score
from tests.store.fixtures import add_repeat_run

from . import test_runs_helpers as helpers
from .test_runs_helpers import (
    KEY_ENV,
    finished,
    judge_spec,
    make_dataset,
    read_run,
    save_spec,
    wait_for,
)

ROOT = Path(__file__).resolve().parents[4]
runner = helpers.runner
"""Every test that starts a run uses this fixture: a runner serves it, stopped on teardown."""
SECRET = "sk-runs-secret-value-never-shown"


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for e in at.error] + [e.value for e in at.info]
    parts += [e.value for e in at.warning] + [e.value for e in at.success]
    parts += [f"{m.label}: {m.value}" for m in at.metric] + [h.value for h in at.subheader]
    return "\n".join(parts)


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _ids(engine, scorer: str, dataset: str) -> tuple[int, int]:
    with read_session(engine) as session:
        scorer_id = get_scorer(session, name=scorer).id
        dataset_id = get_dataset(session, name=dataset).id
    return scorer_id, dataset_id


def _choose(at, scorer_id: int, dataset_id: int, concurrency: int | None = None):
    at.selectbox(key=state.RUNS_SCORER.name).set_value(scorer_id).run()
    at.selectbox(key=state.RUNS_DATASET.name).set_value(dataset_id).run()
    if concurrency is not None:
        at.number_input(key=state.RUNS_CONCURRENCY.name).set_value(concurrency).run()
    assert not at.exception, at.exception
    return at


def _newest_run_id(engine) -> int:
    with read_session(engine) as session:
        return list_runs(session, limit=1)[0].id


# -- before a run ------------------------------------------------------------------------------


def test_an_empty_studio_explains_runs_and_loads_the_demo(studio_db, open_page):
    at = open_page("runs")
    assert not at.exception
    assert "What is a run?" in _texts(at)
    assert state.RUNS_START.name not in _keys(at)
    at.button(key=state.RUNS_LOAD_DEMO.name).click().run()
    assert not at.exception
    with read_session(studio_db) as session:
        assert latest_version(session, scorer_id=get_scorer(session, name="keyword-coverage").id)
    assert state.RUNS_START.name in _keys(at)


def _keys(at) -> set[str]:
    return {b.key for b in at.button}


def test_the_estimate_counts_judge_calls_and_says_whether_the_key_is_set(
    demo_db, open_page, monkeypatch
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    spec = json.loads((ROOT / "data/scorers/faithfulness.json").read_text())
    asks = sum(1 for step in spec["steps"] if "template" in step)
    scorer_id, dataset_id = _ids(demo_db, "faithfulness", "rag_answers")
    with read_session(demo_db) as session:
        examples = count_examples(session, dataset_id=dataset_id)
    at = _choose(open_page("runs"), scorer_id, dataset_id)
    text = _texts(at)
    assert f"asks the judge **{examples * asks:,} times**" in text
    assert f"{examples} examples in the dataset × {asks} questions each" in text
    assert "more if answers are re-asked or retried" in text
    assert "`OPENAI_API_KEY` (an environment variable), which is **not set**" in text
    assert any("judge's key is not set" in e.value for e in at.error)
    assert at.button(key=state.RUNS_START.name).disabled

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    at.run()
    text = _texts(at)
    assert "`OPENAI_API_KEY` (an environment variable), which is set" in text
    assert not at.error
    assert not at.button(key=state.RUNS_START.name).disabled
    assert SECRET not in text
    with read_session(demo_db) as session:
        assert not list_runs(session)  # choosing and estimating starts nothing


def test_a_scorer_without_judge_says_it_costs_nothing(demo_db, open_page):
    scorer_id, dataset_id = _ids(demo_db, "keyword-coverage", "customer_support")
    at = _choose(open_page("runs"), scorer_id, dataset_id)
    assert "makes no judge calls and costs nothing" in _texts(at)
    assert "API key" not in _texts(at)
    assert not at.button(key=state.RUNS_START.name).disabled


def test_an_empty_dataset_and_a_broken_scorer_are_explained(demo_db, open_page):
    with session_scope(demo_db) as session:
        empty_id = create_dataset(session, name="nothing-yet").id
    broken = {
        "id": "broken",
        "name": "Broken",
        "description": "A formula that calls a function that does not exist.",
        "steps": [{"step": "generate_score", "formula": "nope(output)"}],
    }
    scorer_id, _ = save_spec(demo_db, broken)
    at = _choose(open_page("runs"), scorer_id, empty_id)
    errors = [e.value for e in at.error]
    assert any("nothing-yet" in e and "empty" in e for e in errors)
    assert any("Version 1 of “broken”" in e and "'nope' is unknown" in e for e in errors)
    assert "Examples page" in _texts(at)
    assert "builder" in _texts(at)
    assert at.button(key=state.RUNS_START.name).disabled
    assert "Traceback" not in _texts(at)


# -- a run in the background -------------------------------------------------------------------


def test_a_run_goes_on_in_the_background_and_shows_its_summary(demo_db, open_page, runner):
    scorer_id, dataset_id = _ids(demo_db, "keyword-coverage", "customer_support")
    at = _choose(open_page("runs"), scorer_id, dataset_id, concurrency=2)
    at.button(key=state.RUNS_START.name).click().run()
    assert not at.exception, at.exception
    run_id = _newest_run_id(demo_db)
    assert read_run(demo_db, run_id).status in ("queued", "running", "done")  # queued by Start

    run = wait_for(demo_db, run_id, finished)
    assert run.status == "done"
    assert run.concurrency == 2
    assert run.done_count == run.total > 0

    at = open_page("runs")  # a new browser session: nothing was lost
    assert not at.exception, at.exception
    assert (
        at.selectbox(key=state.RUNS_SCORER.name).value == scorer_id
    )  # it starts from the run on show
    assert at.selectbox(key=state.RUNS_DATASET.name).value == dataset_id
    with read_session(demo_db) as session:
        summary = summarize_run(session, run_id=run_id, threshold=0.5)
    text = _texts(at)
    assert f"Run #{run_id}: Key facts mentioned, version 1" in text  # its display name
    assert "Every example of the dataset has a result" in text
    assert _metric(at, "Mean score") == format_score(summary.mean)
    assert _metric(at, "Median score") == format_score(summary.median)
    assert _metric(at, "Pass rate") == f"{summary.pass_rate:.0%}"
    assert f"How the {summary.done} results ended" in text
    verdict = "Passes at 0.5" if summary.mean >= 0.5 else "Below the pass mark 0.5"
    assert verdict in text

    at.number_input(key=state.RUNS_THRESHOLD_SLIDER.child(run_id).name).set_value(1.0).run()
    with read_session(demo_db) as session:
        strict = summarize_run(session, run_id=run_id, threshold=1.0)
    assert _metric(at, "Pass rate") == f"{strict.pass_rate:.0%}"

    at.button(key=state.RUNS_RESULTS.name).click().run()
    assert not at.exception, at.exception
    assert at.session_state["results.filters"]["run_id"] == run_id
    assert any(t.value == "Results" for t in at.title)


def test_a_run_asks_the_fake_judge_with_the_key_from_the_environment(
    studio_db, open_page, runner, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "no"}, when="rude")
    fake_judge.reply({"verdict": "yes"})
    outputs = ["Happy to help!", "That is a rude question.", "Sure thing.", "Glad to help."]
    dataset_id = make_dataset(studio_db, "answers", outputs)
    scorer_id, _ = save_spec(studio_db, judge_spec(fake_judge.base_url))

    at = _choose(open_page("runs"), scorer_id, dataset_id)
    assert "asks the judge **4 times**" in _texts(at)
    at.button(key=state.RUNS_START.name).click().run()
    run_id = _newest_run_id(studio_db)
    run = wait_for(studio_db, run_id, finished)
    assert run.status == "done", run.error

    assert fake_judge.request_count == len(outputs)
    assert all(r.headers["authorization"] == "Bearer sk-test" for r in fake_judge.chat_requests)
    at.run()
    assert _metric(at, "Mean score") == format_score(3 / 4)
    assert "4 scored" in _texts(at)


def test_cancel_a_slow_run_then_resume_it(studio_db, open_page, runner, fake_judge, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "yes"}, latency_s=0.4)
    outputs = [f"Answer number {i}." for i in range(12)]
    dataset_id = make_dataset(studio_db, "slow", outputs)
    scorer_id, _ = save_spec(studio_db, judge_spec(fake_judge.base_url))

    at = _choose(open_page("runs"), scorer_id, dataset_id, concurrency=1)
    at.button(key=state.RUNS_START.name).click().run()
    run_id = _newest_run_id(studio_db)
    wait_for(studio_db, run_id, lambda r: r.status == "running" and r.done_count >= 2)

    at.run()  # the live view: progress and the cancel button
    assert not at.exception, at.exception
    bar = at.get("progress")[0].proto
    assert "of 12 examples have a result" in bar.text
    at.button(key=state.RUNS_CANCEL.name).click().run()
    run = wait_for(studio_db, run_id, finished, timeout_s=30)
    assert run.status == "cancelled"
    assert 2 <= run.done_count < len(outputs)

    at.run()
    text = _texts(at)
    left = len(outputs) - run.done_count
    assert "Cancelled." in text
    assert f"{left} of {len(outputs)} examples have no result yet" in text
    assert f"asks the judge **{left} times**: {left} examples left to score" in text

    fake_judge.reset()
    fake_judge.reply({"verdict": "yes"})
    at.button(key=state.RUNS_RESUME.name).click().run()
    assert not at.exception, at.exception
    run = wait_for(studio_db, run_id, lambda r: r.status == "done")
    assert fake_judge.request_count == left  # only what had no result was asked again
    with read_session(studio_db) as session:
        rows = list_scores(session, filter=ScoreFilter(run_id=run_id), limit=100).rows
    assert len(rows) == len({r.example_id for r in rows}) == len(outputs)
    at.run()
    assert "Every example of the dataset has a result" in _texts(at)


def test_a_killed_run_can_be_resumed(studio_db, open_page, runner, fake_judge, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "yes"}, latency_s=0.3)
    outputs = [f"Reply {i}." for i in range(10)]
    dataset_id = make_dataset(studio_db, "crashy", outputs)
    scorer_id, _ = save_spec(studio_db, judge_spec(fake_judge.base_url))
    at = _choose(open_page("runs"), scorer_id, dataset_id, concurrency=1)
    at.button(key=state.RUNS_START.name).click().run()
    run_id = _newest_run_id(studio_db)
    wait_for(studio_db, run_id, lambda r: r.status == "running" and r.done_count >= 1)

    pid = int(read_run(studio_db, run_id).runner.rsplit(":", 1)[1])
    os.kill(pid, signal.SIGKILL)  # the runner crashes: no chance to clean up
    stop_started_runners()  # reaps it
    assert read_run(studio_db, run_id).status == "running"  # what the killed runner left

    at.run()
    assert "Stopped unexpectedly" in _texts(at)
    fake_judge.reset()
    fake_judge.reply({"verdict": "yes"})
    at.button(key=state.RUNS_RESUME.name).click().run()
    assert not at.exception, at.exception
    assert read_run(studio_db, run_id).status == "queued"
    assert "No runner is running" in _texts(at)  # said in words, with a way out
    at.button(key=state.RUNS_START_RUNNER.child("live").name).click().run()
    assert not at.exception, at.exception
    run = wait_for(studio_db, run_id, lambda r: r.status == "done")
    assert run.done_count == len(outputs)
    with read_session(studio_db) as session:
        rows = list_scores(session, filter=ScoreFilter(run_id=run_id), limit=100).rows
    assert sorted(r.example_id for r in rows) == sorted({r.example_id for r in rows})
    assert len(rows) == len(outputs)


def test_the_list_pages_runs_in_the_database_and_opens_one(demo_db, open_page):
    scorer_id, dataset_id = _ids(demo_db, "keyword-coverage", "customer_support")
    with session_scope(demo_db) as session:
        version_id = latest_version(session, scorer_id=scorer_id).id
        ids = [
            create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id
            for _ in range(13)
        ]
        for run_id in ids:
            finish_run(session, run_id=run_id, status="cancelled")
    at = open_page("runs")
    shown = {b.key for b in at.button if b.key and b.key.startswith(state.RUNS_OPEN.name + ".")}
    assert shown == {state.RUNS_OPEN.child(i).name for i in ids[-10:]}
    at.button(key=state.RUNS_OLDER.name).click().run()
    shown = {b.key for b in at.button if b.key and b.key.startswith(state.RUNS_OPEN.name + ".")}
    assert shown == {state.RUNS_OPEN.child(i).name for i in ids[:3]}
    at.button(key=state.RUNS_OPEN.child(ids[0]).name).click().run()
    assert f"Run #{ids[0]}:" in _texts(at)
    at.button(key=state.RUNS_NEWER.name).click().run()
    assert state.RUNS_OPEN.child(ids[-1]).name in _keys(at)


def test_the_list_leaves_out_the_repeats_of_a_stability_check(demo_db, open_page):
    scorer_id, dataset_id = _ids(demo_db, "keyword-coverage", "customer_support")
    with session_scope(demo_db) as session:
        version_id = latest_version(session, scorer_id=scorer_id).id
        create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
        check = create_stability_check(
            session,
            scorer_version_id=version_id,
            dataset_id=dataset_id,
            example_ids=dataset_example_ids(session, dataset_id=dataset_id)[:3],
            repeats=2,
        )
        add_repeat_run(session, check_id=check.id, concurrency=1)
    at = open_page("runs")
    rows = [m.value for m in at.markdown if "(version " in m.value and " on " in m.value]
    said = "Key facts mentioned (version 1) on customer_support"
    assert rows == [said]  # the repeats belong to the check, on the Trust page


def test_cancel_right_after_start_stops_the_run_before_or_as_it_begins(
    studio_db, open_page, runner, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "yes"}, latency_s=1.0)
    dataset_id = make_dataset(studio_db, "quick-cancel", [f"Answer {i}." for i in range(8)])
    scorer_id, _ = save_spec(studio_db, judge_spec(fake_judge.base_url))
    at = _choose(open_page("runs"), scorer_id, dataset_id, concurrency=1)
    at.button(key=state.RUNS_START.name).click().run()
    at.button(key=state.RUNS_CANCEL.name).click().run()  # queued, or just claimed
    assert not at.exception, at.exception
    run_id = _newest_run_id(studio_db)
    run = wait_for(studio_db, run_id, finished, timeout_s=30)
    assert run.status == "cancelled"
    assert run.done_count < 8
    time.sleep(1)  # the runner polls several times a second: it would have taken it by now
    assert read_run(studio_db, run_id).status == "cancelled"  # nothing started it again
    at.run()
    assert "Cancelled." in _texts(at)


def test_the_live_panel_lists_each_score_as_it_lands(
    studio_db, open_page, runner, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "yes"}, latency_s=0.4)
    outputs = [f"Answer {i}." for i in range(8)]
    dataset_id = make_dataset(studio_db, "trickle", outputs)
    scorer_id, _ = save_spec(studio_db, judge_spec(fake_judge.base_url))
    at = _choose(open_page("runs"), scorer_id, dataset_id, concurrency=1)
    at.button(key=state.RUNS_START.name).click().run()
    run_id = _newest_run_id(studio_db)
    try:
        seen = []
        for at_least in (2, 4):
            wait_for(studio_db, run_id, lambda r, n=at_least: r.done_count >= n)
            at.run()
            assert not at.exception, at.exception
            table = next(d.value for d in at.dataframe if "Input" in d.value.columns)
            assert set(table["Input"]) <= {f"question {i}" for i in range(len(outputs))}
            assert set(table["Score"]) == {"1.00"}
            seen.append(len(table))
        assert seen[0] >= 2
        assert seen[1] > seen[0]  # the list grew while the run went on
    finally:
        wait_for(studio_db, run_id, finished)


def test_the_form_opens_on_the_scorer_being_worked_on_by_its_display_name(
    studio_db, open_page, fake_judge
):
    make_dataset(studio_db, "some", ["An answer."])
    first, _ = save_spec(studio_db, judge_spec(fake_judge.base_url, name="aaa-first"))
    other = judge_spec(fake_judge.base_url, name="zzz-second")
    other["name"] = "Solves the problem"
    second, _ = save_spec(studio_db, other)
    at = open_page("home")
    at.session_state[state.CURRENT_SCORER_ID.name] = second  # just saved in the builder
    at.switch_page("app_pages/runs/page.py").run()
    picker = at.selectbox(key=state.RUNS_SCORER.name)
    assert picker.value == second
    assert set(picker.options) == {"Polite check", "Solves the problem"}  # names, not ids
    picker.set_value(first).run()
    assert at.session_state[state.CURRENT_SCORER_ID.name] == first


def test_a_missing_key_leads_to_the_scorers_own_judge(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.delenv(KEY_ENV, raising=False)
    dataset_id = make_dataset(studio_db, "some", ["An answer."])
    scorer_id, _ = save_spec(studio_db, judge_spec(fake_judge.base_url))
    at = _choose(open_page("runs"), scorer_id, dataset_id)
    text = _texts(at)
    assert f"The judge needs an API key in `{KEY_ENV}`" in text
    assert "restart the studio" not in text
    assert at.button(key=state.RUNS_START.name).disabled
    # Its judge is its own settings (no saved judge): the way out is its Judge… panel.
    (fix,) = [b for b in at.button if b.label == "Use one of your judges, or add the key"]
    fix.click().run()
    assert at.session_state[state.SCORERS_PENDING.name] == ("judge", scorer_id)
    assert at.text_input(key=state.SCORERS_SEARCH.name).value == "polite-check"
    assert any("its own judge settings (openai/fake-judge)" in m.value for m in at.markdown)
    assert any(f"paste the key for {KEY_ENV}" in e.label for e in at.expander)
