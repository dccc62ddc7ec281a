"""The studio's cached reads are keyed on the store's revision: a grade, a policy or an
approval written outside the page (another tab, the command line, a runner) shows on the
next rerun of Trust, Scorers and Results, with no cache cleared and no reload."""

from __future__ import annotations

from scorer_runtime.store import (
    ExampleData,
    add_examples,
    add_label,
    add_scores,
    create_run,
    list_examples,
    save_trust_policy,
    session_scope,
)
from scorer_runtime.trust.policy import approve
from studio import state
from tests.trust.graded import Graded, agreeing, graded


def _text(at) -> str:
    parts = [m.value for m in (*at.markdown, *at.caption, *at.info, *at.warning, *at.error)]
    parts += [m.value for m in at.success]
    return " ".join(str(p) for p in parts)


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _grade_ten_more(engine, made: Graded) -> None:
    """Ten more examples scored by the version's run and graded by a person, as another tab
    or a runner would store them (outside the page under test)."""
    with session_scope(engine) as session:
        add_examples(
            session,
            dataset_id=made.dataset_id,
            examples=[ExampleData(input=f"n{i}", output=f"b{i}") for i in range(10)],
        )
        every = list_examples(session, dataset_id=made.dataset_id, limit=10_000)
        new = [e.id for e in every if e.id not in made.example_ids]
        rows = [
            dict(
                run_id=made.run_id,
                example_id=example_id,
                scorer_id=made.scorer_id,
                scorer_version_id=made.version_id,
                dataset_id=made.dataset_id,
                score=1.0,
                outcome="scored",
            )
            for example_id in new
        ]
        add_scores(session, rows=rows)
        for example_id in new:
            add_label(
                session, example_id=example_id, scorer_id=made.scorer_id, value=1.0, labeller="P"
            )


def test_trust_shows_grades_and_a_policy_stored_elsewhere_on_its_next_rerun(studio_db, open_page):
    made = graded(studio_db, agreeing(30))
    at = open_page("trust")
    assert _metrics(at)["Examples graded and scored"] == "30"
    _grade_ten_more(studio_db, made)
    at.run()
    assert not at.exception
    assert _metrics(at)["Examples graded and scored"] == "40"
    with session_scope(studio_db) as session:
        save_trust_policy(
            session, scorer_id=made.scorer_id, min_graded=60, min_kappa_low=0.6, max_flip_rate=0.1
        )
    at.run()
    assert "40 of the 60 graded examples the policy asks for" in _text(at)


def test_an_approval_made_elsewhere_shows_on_trust_and_the_badges(studio_db, open_page):
    made = graded(studio_db, agreeing(30))
    at = open_page("trust")
    assert "No version of this scorer has been approved yet." in _text(at)
    with session_scope(studio_db) as session:
        approve(session, scorer_version_id=made.version_id, approver="Priya", override_reason="ok")
    at.run()
    assert not at.exception
    assert "No version of this scorer has been approved yet." not in _text(at)
    assert "Priya" in _text(at)


def test_scorers_and_results_show_a_run_stored_elsewhere_on_their_next_rerun(studio_db, open_page):
    made = graded(studio_db, agreeing(4))
    at = open_page("results")
    at.selectbox(key=state.RESULTS_SCORER.name).set_value(made.scorer_id).run()
    before = at.selectbox(key=state.RESULTS_RUN.name).options
    with session_scope(studio_db) as session:
        create_run(session, scorer_version_id=made.version_id, dataset_id=made.dataset_id)
    at.run()
    assert not at.exception
    assert len(at.selectbox(key=state.RESULTS_RUN.name).options) == len(before) + 1
