"""The pass mark reaches the Runs page only once the trust policy is saved: a value typed on
the Trust page's Policy tab and left unsaved changes nothing there, and a value typed on the
Runs page holds for that run only."""

from __future__ import annotations

from scorer_runtime.store import (
    ExampleData,
    add_scores,
    create_run,
    finish_run,
    list_examples,
    read_session,
    session_scope,
)
from scorer_runtime.trust.policy import policy_of
from studio import state
from tests.store.fixtures import make_dataset, make_version

SCORES = (0.3, 0.6, 0.9)
"""Mean 0.6: passes at 0.5 (2 of 3), fails at 0.8 (1 of 3), passes at 0 (3 of 3)."""


def _finished_run(engine) -> tuple[int, int]:
    """A number scorer's finished run scoring ``SCORES``; returns (scorer_id, run_id)."""
    dataset_id = make_dataset(engine, "answers", [ExampleData(output=str(s)) for s in SCORES])
    scorer_id, version_id = make_version(engine, "graded")
    with session_scope(engine) as session:
        run = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
        examples = list_examples(session, dataset_id=dataset_id)
        rows = [
            dict(
                run_id=run.id,
                example_id=example.id,
                scorer_id=scorer_id,
                scorer_version_id=version_id,
                dataset_id=dataset_id,
                score=score,
                outcome="scored",
            )
            for example, score in zip(examples, SCORES, strict=True)
        ]
        add_scores(session, rows=rows)
        finish_run(session, run_id=run.id, status="done")
    return scorer_id, run.id


def _text(at) -> str:
    return " ".join(str(m.value) for m in (*at.success, *at.error, *at.warning))


def _pass_rate(at) -> str:
    return next(m.value for m in at.metric if m.label == "Pass rate")


def test_a_pass_mark_typed_on_trust_and_not_saved_never_reaches_runs(studio_db, open_page):
    scorer_id, run_id = _finished_run(studio_db)
    at = open_page("trust")
    assert not at.exception
    assert not [n for n in at.number_input if n.label == "Passes from"]  # unticked: not shown
    at.checkbox(key=state.TRUST_USE_PASS_MARK.child(scorer_id).name).check().run()
    at.number_input(key=state.TRUST_PASS_MARK.child(scorer_id).name).set_value(0.0).run()
    assert not at.exception

    at.switch_page("app_pages/runs/page.py").run()  # left without saving
    assert not at.exception
    assert at.number_input(key=state.RUNS_THRESHOLD_SLIDER.child(run_id).name).value == 0.5
    assert "Passes at 0.5" in _text(at)
    assert _pass_rate(at) == "67%"
    with read_session(studio_db) as session:
        assert policy_of(session, scorer_id).pass_mark is None


def test_runs_shows_the_saved_pass_mark_and_a_typed_one_only_for_that_run(studio_db, open_page):
    scorer_id, run_id = _finished_run(studio_db)
    at = open_page("trust")
    at.checkbox(key=state.TRUST_USE_PASS_MARK.child(scorer_id).name).check().run()
    at.number_input(key=state.TRUST_PASS_MARK.child(scorer_id).name).set_value(0.8).run()
    at.button(key="FormSubmitter:trust.save_policy.form-Save the policy").click().run()
    assert not at.exception
    with read_session(studio_db) as session:
        assert policy_of(session, scorer_id).pass_mark == 0.8

    at.switch_page("app_pages/runs/page.py").run()
    assert "Below the pass mark 0.8" in _text(at)
    assert _pass_rate(at) == "33%"
    at.number_input(key=state.RUNS_THRESHOLD_SLIDER.child(run_id).name).set_value(0.0).run()
    assert _pass_rate(at) == "100%"  # a look at this run only: nothing is stored
    at.switch_page("app_pages/trust/page.py").run()
    at.switch_page("app_pages/runs/page.py").run()
    assert at.number_input(key=state.RUNS_THRESHOLD_SLIDER.child(run_id).name).value == 0.8


def test_the_runs_pass_mark_box_starts_from_the_saved_mark_even_in_a_browser_that_missed_it(
    studio_db, open_page
):
    """The box's default (what a browser shows when it holds no value of its own, e.g. when
    a rerun replaced the run that first drew the box) is the saved pass mark, never 0: a
    browser showing 0 sends 0 back on the next click ("Passes at 0, pass rate 100 %")."""
    _, run_id = _finished_run(studio_db)
    at = open_page("runs")
    box = at.number_input(key=state.RUNS_THRESHOLD_SLIDER.child(run_id).name)
    assert box.value == 0.5
    assert box.proto.default == 0.5
    assert not box.proto.set_value  # nothing preset that only one run's message carries
