"""The Stability and Compare-versions tabs, driven through AppTest on a real SQLite file;
the repeats and runs are scored by a real runner process against the real-HTTP fake judge.

Every expectation is read from the database or derived from the inputs, never typed in.
"""

from __future__ import annotations

import time

import pytest

from scorer_runtime.money import format_dollars
from scorer_runtime.store import (
    latest_flip_evidence,
    latest_stability_check,
    list_runs,
    read_session,
    repeat_runs,
)
from studio import state
from tests.studio.app_pages.runs import test_runs_helpers as helpers
from tests.studio.app_pages.runs.test_runs_helpers import (
    KEY_ENV,
    judge_spec,
    make_dataset,
    save_spec,
)

runner = helpers.runner
OUTPUTS = ["Happy to help!", "That is a rude answer.", "Sure thing.", "Glad to help."]


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for e in at.info] + [e.value for e in at.warning]
    parts += [e.value for e in at.success] + [e.value for e in at.error]
    parts += [f"{m.label}: {m.value}" for m in at.metric]
    return "\n".join(parts)


def _wait(check, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            pytest.fail("the runner did not finish in time")
        time.sleep(0.2)


def test_the_trust_page_explains_what_is_missing_on_an_empty_database(studio_db, open_page):
    at = open_page("trust")
    assert not at.exception, at.exception
    assert "No scorer yet." in _texts(at)


def test_the_trust_page_renders_with_demo_data(demo_db, open_page):
    at = open_page("trust")
    assert not at.exception, at.exception
    assert "Compare versions" in [tab.label for tab in at.tabs]


def test_a_stability_check_is_queued_scored_by_the_runner_and_its_flip_shown(
    studio_db, open_page, runner, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "no"}, when="rude", times=1)  # then yes: one flip
    fake_judge.reply({"verdict": "yes"})
    dataset_id = make_dataset(studio_db, "answers", OUTPUTS)
    scorer_id, version_id = save_spec(studio_db, judge_spec(fake_judge.base_url))

    at = open_page("trust")
    at.selectbox(key=state.TRUST_SCORER.name).set_value(scorer_id).run()
    at.selectbox(key=state.TRUST_STABILITY_DATASET.child(scorer_id).name).set_value(dataset_id)
    at.number_input(key=state.TRUST_STABILITY_REPEATS.child(scorer_id).name).set_value(2).run()
    assert not at.exception, at.exception
    assert "4 examples × 2 repeats × 1 judge step = 8 judge calls." in _texts(at)
    assert "has not been checked on this dataset yet" in _texts(at)

    at.button(key=state.TRUST_STABILITY_START.child(scorer_id).name).click().run()
    assert not at.exception, at.exception
    with read_session(studio_db) as session:
        check = latest_stability_check(session, scorer_version_id=version_id)
    assert check is not None

    def ended() -> bool:
        with read_session(studio_db) as session:
            runs = repeat_runs(session, check_id=check.id)
        return all(run.status == "done" for run in runs)

    _wait(ended)
    at.run()
    assert not at.exception, at.exception
    with read_session(studio_db) as session:
        evidence = latest_flip_evidence(session, version_id)
    assert evidence is not None
    assert (evidence.flipped, evidence.examples) == (1, 4)
    text = _texts(at)
    assert "1 of 4 examples changed verdict between repeats" in text
    assert "Flip rate: 25%" in text
    assert f"{evidence.ci_low:.0%} to {evidence.ci_high:.0%}" in text
    assert fake_judge.request_count == 8
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")  # flip rate per version


def test_two_versions_are_scored_by_the_runner_then_compared(
    studio_db, open_page, runner, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    dataset_id = make_dataset(studio_db, "answers", OUTPUTS)
    spec = judge_spec(fake_judge.base_url)
    scorer_id, first = save_spec(studio_db, spec)
    spec["steps"][0]["template"] = "Strictly: is this answer polite? {{ output }}"
    _, second = save_spec(studio_db, spec)
    fake_judge.reply({"verdict": "no"}, when="Strictly: is this answer polite? Sure")
    fake_judge.reply({"verdict": "yes"})

    at = open_page("trust")
    at.selectbox(key=state.TRUST_SCORER.name).set_value(scorer_id).run()
    assert not at.exception, at.exception
    assert "No finished run of version 1 and version 2 on these examples yet" in _texts(at)
    at.button(key=state.TRUST_VERSIONS_SCORE.child(scorer_id).name).click().run()
    assert not at.exception, at.exception

    def both_done() -> bool:
        with read_session(studio_db) as session:
            runs = list_runs(session, dataset_id=dataset_id)
        return len(runs) == 2 and all(run.status == "done" for run in runs)

    _wait(both_done)
    at.run()
    assert not at.exception, at.exception
    text = _texts(at)
    assert "4 examples scored by both versions." in text
    assert "1 got a different verdict." in text
    assert "The difference could be chance (McNemar's exact test, p = 1)" in text
    (differences,) = [df.value for df in at.dataframe][1:]
    assert list(differences["Version 1 says"]) == ["yes"]
    assert list(differences["Version 2 says"]) == ["no"]
    assert {first, second} == {r.scorer_version_id for r in list_runs_of(studio_db, dataset_id)}


def list_runs_of(engine, dataset_id):
    with read_session(engine) as session:
        return list_runs(session, dataset_id=dataset_id)


def _priced_spec(base_url: str, cap: float) -> dict:
    spec = judge_spec(base_url)
    spec["judge"]["model"] = "openai/gpt-4o-mini"  # litellm's local price list has it
    spec["judge"]["default_max_cost"] = cap
    return spec


def test_the_trust_tabs_say_the_judges_default_cap_stops_their_runs(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    make_dataset(studio_db, "answers", OUTPUTS)
    spec = _priced_spec(fake_judge.base_url, 0.75)
    scorer_id, _ = save_spec(studio_db, spec)
    spec["steps"][0]["template"] = "Strictly: is this answer polite? {{ output }}"
    save_spec(studio_db, spec)

    at = open_page("trust")
    at.selectbox(key=state.TRUST_SCORER.name).set_value(scorer_id).run()
    assert not at.exception, at.exception
    text = _texts(at)
    cap = format_dollars(0.75)
    assert f"Each repeat stops at {cap} (the judge's default spend cap)." in text
    assert f"Each run stops at {cap} (the judge's default spend cap)." in text


def test_an_ab_run_the_cap_stopped_is_resumed_on_the_runs_page_not_scored_again(
    studio_db, open_page, fake_judge, monkeypatch
):
    from scorer_runtime.costs.cap import budget_words
    from scorer_runtime.store import create_run, finish_run, session_scope, set_run_cap

    monkeypatch.setenv(KEY_ENV, "sk-test")
    dataset_id = make_dataset(studio_db, "answers", OUTPUTS)
    spec = _priced_spec(fake_judge.base_url, 0.01)
    scorer_id, first = save_spec(studio_db, spec)
    spec["steps"][0]["template"] = "Strictly: is this answer polite? {{ output }}"
    save_spec(studio_db, spec)
    with session_scope(studio_db) as session:
        run_id = create_run(session, scorer_version_id=first, dataset_id=dataset_id).id
        set_run_cap(session, run_id=run_id, max_cost=0.01)
        finish_run(session, run_id=run_id, status="stopped", error=budget_words(0.0098, 0.01))

    at = open_page("trust")
    at.selectbox(key=state.TRUST_SCORER.name).set_value(scorer_id).run()
    assert not at.exception, at.exception
    text = _texts(at)
    assert f"Run #{run_id} of version 1 stopped: budget reached: $0.0098 spent" in text
    # Only the version with no run at all is offered to be scored from the start.
    score = at.button(key=state.TRUST_VERSIONS_SCORE.child(scorer_id).name)
    assert score.label == "Score version 2"
    at.button(key=state.TRUST_VERSIONS_RESUME.child(scorer_id).child(run_id).name).click().run()
    assert not at.exception, at.exception
    # The Runs page, open on the stopped run with its Resume button.
    assert at.session_state[state.SELECTED_RUN_ID.name] == run_id
    assert at.button(key=state.RUNS_RESUME.name).label == "Resume the run"
    assert "$0.0098 spent of the $0.0100 cap" in _texts(at)
