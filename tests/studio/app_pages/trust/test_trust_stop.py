"""Stopping a stability check from the Stability tab, driven through AppTest on a real SQLite
file. The runner is the store calls a runner makes (it claims a repeat, then honours the
cancel), so the test decides when each repeat ends."""

from __future__ import annotations

from scorer_runtime.store import (
    claim_queued,
    finish_run,
    latest_flip_evidence,
    latest_stability_check,
    read_session,
    repeat_runs,
    runner_beat,
    session_scope,
)
from studio import state
from tests.studio.app_pages.runs.test_runs_helpers import (
    KEY_ENV,
    judge_spec,
    make_dataset,
    save_spec,
)
from tests.studio.app_pages.trust.test_trust_tabs import OUTPUTS, _texts

RUNNER = "another-host:1"  # a runner on another host is judged by its heartbeat alone


def _progress(at) -> str:
    return "\n".join(bar.proto.text for bar in at.get("progress"))


def _latest(engine, version_id):
    with read_session(engine) as session:
        check = latest_stability_check(session, scorer_version_id=version_id)
        assert check is not None
        return check, repeat_runs(session, check_id=check.id)


def test_a_check_is_stopped_from_the_tab_and_a_new_one_can_start(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    dataset_id = make_dataset(studio_db, "answers", OUTPUTS)
    scorer_id, version_id = save_spec(studio_db, judge_spec(fake_judge.base_url))
    start = state.TRUST_STABILITY_START.child(scorer_id).name
    stop = state.TRUST_STABILITY_STOP.child(scorer_id).name

    at = open_page("trust")
    at.selectbox(key=state.TRUST_SCORER.name).set_value(scorer_id).run()
    at.selectbox(key=state.TRUST_STABILITY_DATASET.child(scorer_id).name).set_value(dataset_id)
    at.number_input(key=state.TRUST_STABILITY_REPEATS.child(scorer_id).name).set_value(2).run()
    at.button(key=start).click().run()
    assert not at.exception, at.exception
    check, (first, second) = _latest(studio_db, version_id)
    with session_scope(studio_db) as session:  # a runner takes the first repeat
        runner_beat(session, name=RUNNER)
        assert claim_queued(session, runner=RUNNER) == first.id

    at.run()
    assert "The check is under way: 0 of 2 repeats have ended." in _progress(at)
    assert at.button(key=start).disabled
    assert not at.button(key=stop).disabled
    at.button(key=stop).click().run()
    assert not at.exception, at.exception

    _, (first, second) = _latest(studio_db, version_id)
    assert (first.status, first.cancel_requested) == ("running", True)
    assert second.status == "cancelled"  # queued, never claimed: cancelled at once
    assert "Stopping the check: 1 of 2 repeats have ended" in _progress(at)
    assert at.button(key=stop).disabled
    assert at.button(key=start).disabled

    with session_scope(studio_db) as session:  # the runner honours the cancel
        finish_run(session, run_id=first.id, status="cancelled")
    at.run()
    assert not at.exception, at.exception
    text = _texts(at)
    assert "Latest check of version 1: stopped." in text
    assert "This check was stopped before its 2 repeats finished." in text
    assert "a stopped check does not count as evidence for the trust policy" in text
    assert "version 1 has no complete stability check" in text
    assert "Flip rate" not in text  # no figure is offered as if it counted
    with read_session(studio_db) as session:
        assert latest_flip_evidence(session, version_id) is None

    assert not at.button(key=start).disabled
    at.button(key=start).click().run()
    assert not at.exception, at.exception
    again, runs = _latest(studio_db, version_id)
    assert again.id != check.id
    assert [run.status for run in runs] == ["queued", "queued"]
