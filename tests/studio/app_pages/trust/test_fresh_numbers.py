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
    create_stability_check,
    finish_run,
    get_run,
    list_examples,
    save_trust_policy,
    session_scope,
)
from scorer_runtime.trust.policy import approve
from studio import state
from studio.app_pages.trust import stability_data
from tests.store.fixtures import add_repeat_run
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


def _check_with_one_repeat_left(engine, made: Graded) -> int:
    """A stability check of the version on 4 examples: both repeats scored them alike, the
    first has ended, the second has not yet; the second repeat's run id."""
    with session_scope(engine) as session:
        check = create_stability_check(
            session,
            scorer_version_id=made.version_id,
            dataset_id=made.dataset_id,
            example_ids=made.example_ids[:4],
            repeats=2,
        )
        repeats = [add_repeat_run(session, check_id=check.id, concurrency=1) for _ in range(2)]
        for repeat in repeats:
            rows = [
                dict(
                    run_id=repeat.id,
                    example_id=example_id,
                    scorer_id=made.scorer_id,
                    scorer_version_id=made.version_id,
                    dataset_id=made.dataset_id,
                    score=float(i % 2),
                    outcome="scored",
                )
                for i, example_id in enumerate(made.example_ids[:4])
            ]
            add_scores(session, rows=rows)
        finish_run(session, run_id=repeats[0].id, status="done")
        return repeats[1].id


def test_a_check_that_ends_while_trust_is_drawn_gives_its_verdict_above_the_tabs(
    studio_db, open_page, monkeypatch
):
    """The runner ends the check's last repeat after the page read the verdicts above the
    tabs and before the Stability tab reads the check: the page draws itself again, so the
    banner and the badge never say "no complete stability check" under the check's results
    (with the check over, nothing else would draw them again)."""
    made = graded(studio_db, agreeing(30))
    last = _check_with_one_repeat_left(studio_db, made)
    read_check = stability_data.latest_report

    def ends_meanwhile(version_id: int, dataset_id: int):
        with session_scope(studio_db) as session:
            if get_run(session, run_id=last).status != "done":
                finish_run(session, run_id=last, status="done")
        return read_check(version_id, dataset_id)

    monkeypatch.setattr(stability_data, "latest_report", ends_meanwhile)
    at = open_page("trust")
    assert not at.exception
    assert "Latest check of version 1." in _text(at)
    assert [m.value for m in at.success if m.value.startswith("**Version 1")] == [
        "**Version 1: Trusted.**\n\n- Every check of the trust policy holds."
    ]
    assert "No complete stability check" not in _text(at)
