"""The Review page, driven through AppTest on a real SQLite file: grading blind, in order."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ExampleData,
    add_examples,
    add_label,
    add_scores,
    create_dataset,
    create_run,
    latest_labels,
    list_labels,
    read_session,
    review_example_ids,
    save_scorer_version,
    save_trust_policy,
    session_scope,
)
from studio import state

DEMO = Path(__file__).resolve().parents[4] / "data" / "scorers"


@dataclass(frozen=True)
class Seeded:
    polite: int
    number: int
    version: int
    dataset: int
    examples: list[int]


@pytest.fixture
def seeded(studio_db) -> Seeded:
    """The politeness scorer (polite / neutral / rude), a 0-1 number scorer, three replies,
    and the judge's verdict on the first reply ("rude")."""
    with session_scope(studio_db) as session:
        polite = save_scorer_version(session, spec=load_spec(DEMO / "tone-politeness.json"))
        number = save_scorer_version(session, spec=load_spec(DEMO / "faithfulness.json"))
        dataset = create_dataset(session, name="replies")
        add_examples(
            session,
            dataset_id=dataset.id,
            examples=[
                ExampleData(input=f"question {i}", output=f"reply {i}", ground_truth=f"gold {i}")
                for i in range(3)
            ],
        )
        ids = review_example_ids(session, dataset_id=dataset.id)
        add_scores(
            session,
            rows=[
                {
                    "scorer_id": polite.scorer_id,
                    "scorer_version_id": polite.id,
                    "dataset_id": dataset.id,
                    "example_id": ids[0],
                    "score": 0.0,
                    "outcome": "scored",
                    "reason": "it shouts at the user",
                }
            ],
        )
    return Seeded(polite.scorer_id, number.scorer_id, polite.id, dataset.id, ids)


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += (
        [e.value for e in at.info] + [e.value for e in at.success] + [e.value for e in at.error]
    )
    parts += [s.value for s in at.subheader] + [t.value for t in at.text]
    return "\n".join(parts)


def _progress(at) -> str:
    return at.get("progress")[0].proto.text


def _grades(engine, scorer_id: int) -> dict[int, tuple[float, str, str]]:
    with read_session(engine) as session:
        found = latest_labels(session, scorer_id=scorer_id)
    return {k: (v.value, v.labeller, v.note) for k, v in found.items()}


def test_with_no_scorer_the_page_says_to_build_one(studio_db, open_page):
    at = open_page("review")
    assert not at.exception
    assert "No scorer to grade for yet" in _texts(at)


def test_the_graders_name_is_asked_once_and_stored_with_each_grade(seeded, studio_db, open_page):
    at = open_page("review")
    assert not at.exception
    at.selectbox(key=state.REVIEW_SCORER.name).set_value(seeded.polite).run()
    assert "Your name" in [t.label for t in at.text_input]
    assert not at.get("progress")  # nothing to grade before the name
    at.text_input(key=state.REVIEW_GRADER_NAME.name).input("Ann")
    at.get("form_submit_button")[0].click().run()
    assert not at.exception
    assert "Grading as **Ann**" in _texts(at)
    assert _progress(at) == "0 of 3 graded"
    assert "Example 1 of 3" in _texts(at)
    assert "reply 0" in _texts(at)
    assert "gold 0" in _texts(at)

    at.text_input(key=state.REVIEW_NOTE.child(seeded.examples[0]).name).input("thanks the user")
    at.button(key=state.REVIEW_GRADE.child(0).name).click().run()
    assert not at.exception
    assert _grades(studio_db, seeded.polite) == {
        seeded.examples[0]: (1.0, "Ann", "thanks the user")
    }
    assert _progress(at) == "1 of 3 graded"
    assert "Example 2 of 3" in _texts(at)  # on to the next ungraded example
    # The name is not asked again in the session.
    assert "Your name" not in [t.label for t in at.text_input]


def test_the_judges_verdict_is_hidden_until_the_person_grades(seeded, open_page):
    at = open_page("review")
    at.selectbox(key=state.REVIEW_SCORER.name).set_value(seeded.polite).run()
    at.text_input(key=state.REVIEW_GRADER_NAME.name).input("Ann")
    at.get("form_submit_button")[0].click().run()
    assert "The judge said" not in _texts(at)
    assert "hidden until you grade" in _texts(at)

    at.button(key=state.REVIEW_GRADE.child(0).name).click().run()  # polite
    recap = at.success[0].value
    assert "Example 1: you said **polite**" in recap
    assert "The judge said **rude** (score 0)" in recap
    assert "You disagree." in recap

    at.toggle(key=state.REVIEW_SHOW_JUDGE.name).set_value(True).run()
    assert "The judge has not scored this example yet" in _texts(at)  # example 2


def test_ungraded_examples_come_first_and_j_k_s_move(seeded, studio_db, open_page):
    with session_scope(studio_db) as session:
        add_label(
            session,
            example_id=seeded.examples[0],
            scorer_id=seeded.polite,
            value=0.5,
            labeller="Bo",
        )
    at = open_page("review")
    at.selectbox(key=state.REVIEW_SCORER.name).set_value(seeded.polite).run()
    at.text_input(key=state.REVIEW_GRADER_NAME.name).input("Ann")
    at.get("form_submit_button")[0].click().run()
    assert _progress(at) == "1 of 3 graded"
    assert "reply 1" in _texts(at)  # the graded first example waits at the end
    at.button(key=state.REVIEW_NEXT.name).click().run()
    assert "reply 2" in _texts(at)
    at.button(key=state.REVIEW_NEXT.name).click().run()
    assert "reply 0" in _texts(at)
    assert "Graded before by Bo" in _texts(at)
    assert "The judge said **rude**" in _texts(at)  # graded: the verdict is shown
    at.button(key=state.REVIEW_PREVIOUS.name).click().run()
    assert "reply 2" in _texts(at)
    at.button(key=state.REVIEW_SKIP.name).click().run()
    assert "reply 1" in _texts(at)  # skips to the next one not graded yet

    at.button(key=state.REVIEW_NEXT.name).click().run()
    at.button(key=state.REVIEW_NEXT.name).click().run()
    at.button(key=state.REVIEW_GRADE.child(2).name).click().run()  # re-grade reply 0: rude
    with read_session(studio_db) as session:
        history = list_labels(session, scorer_id=seeded.polite, example_id=seeded.examples[0])
    assert [(label.value, label.labeller) for label in history] == [(0.0, "Ann"), (0.5, "Bo")]
    assert "You agree." in at.success[0].value


def test_a_number_scale_is_graded_with_a_number_in_its_range(seeded, studio_db, open_page):
    at = open_page("review")
    at.selectbox(key=state.REVIEW_SCORER.name).set_value(seeded.number).run()
    at.text_input(key=state.REVIEW_GRADER_NAME.name).input("Ann")
    at.get("form_submit_button")[0].click().run()
    assert at.button(key=state.REVIEW_NUMBER_SAVE.name).proto.disabled  # no number yet
    box = at.number_input(key=state.REVIEW_NUMBER.child(seeded.examples[0]).name)
    box.set_value(0.8).run()
    at.button(key=state.REVIEW_NUMBER_SAVE.name).click().run()
    assert not at.exception
    assert _grades(studio_db, seeded.number) == {seeded.examples[0]: (0.8, "Ann", "")}
    assert "you said **0.8 (pass)**" in at.success[0].value


def test_a_number_scale_has_five_grade_buttons_on_keys_and_its_pass_mark(
    seeded, studio_db, open_page
):
    with session_scope(studio_db) as session:
        save_trust_policy(
            session, scorer_id=seeded.number, min_graded=30, min_kappa_low=0.6,
            max_flip_rate=0.1, pass_mark=0.8,
        )  # fmt: skip
    at = open_page("review")
    at.selectbox(key=state.REVIEW_SCORER.name).set_value(seeded.number).run()
    at.text_input(key=state.REVIEW_GRADER_NAME.name).input("Ann")
    at.get("form_submit_button")[0].click().run()
    buttons = [at.button(key=state.REVIEW_GRADE.child(i).name) for i in range(5)]
    assert [(b.label, b.proto.shortcut) for b in buttons] == [
        ("0 (fail)", "1"),
        ("0.25 (fail)", "2"),
        ("0.5 (fail)", "3"),
        ("0.75 (fail)", "4"),
        ("1 (pass)", "5"),
    ]  # the policy's pass mark, 0.8, as agreement counts it
    assert "Keys: the number keys grade" in _texts(at)
    buttons[3].click().run()
    assert not at.exception
    assert _grades(studio_db, seeded.number) == {seeded.examples[0]: (0.75, "Ann", "")}
    assert "you said **0.75 (fail)**" in at.success[0].value
    assert "Example 2 of 3" in _texts(at)
    # Any other number still goes through the box.
    box = at.number_input(key=state.REVIEW_NUMBER.child(seeded.examples[1]).name)
    assert box.label == "Or any number from 0 to 1"
    box.set_value(0.9).run()
    at.button(key=state.REVIEW_NUMBER_SAVE.name).click().run()
    assert _grades(studio_db, seeded.number)[seeded.examples[1]] == (0.9, "Ann", "")
    assert "you said **0.9 (pass)**" in at.success[0].value


def test_grades_import_from_a_file_with_its_columns_mapped_and_bad_rows_listed(
    seeded, studio_db, open_page
):
    at = open_page("review")
    at.selectbox(key=state.REVIEW_SCORER.name).set_value(seeded.polite).run()
    at.text_input(key=state.REVIEW_GRADER_NAME.name).input("Ann")
    at.get("form_submit_button")[0].click().run()
    ids = seeded.examples
    text = f"example_id,verdict,who\n{ids[1]},neutral,Cy\n{ids[2]},0.3,Cy\n".encode()
    at.get("file_uploader")[0].set_value(("grades.csv", text, "text/csv"))
    at.run()
    assert at.selectbox(key=state.REVIEW_MAP.child("example_id").name).value == "example_id"
    assert at.selectbox(key=state.REVIEW_MAP.child("grade").name).value == "verdict"  # usual
    assert at.selectbox(key=state.REVIEW_MAP.child("grader").name).value == "(none)"
    at.selectbox(key=state.REVIEW_MAP.child("grade").name).set_value("(none)").run()
    at.button(key=state.REVIEW_IMPORT_GO.name).click().run()
    assert 'no column "grade" or "grade_name" for the grade' in at.error[-1].value
    assert _grades(studio_db, seeded.polite) == {}
    at.selectbox(key=state.REVIEW_MAP.child("grade").name).set_value("verdict")
    at.selectbox(key=state.REVIEW_MAP.child("grader").name).set_value("who").run()
    at.button(key=state.REVIEW_IMPORT_GO.name).click().run()
    assert not at.exception
    report = at.success[-1].value
    assert "Imported 1 grade from grades.csv. Left out 1 row:" in report
    assert f"line 3: example {ids[2]}: 0.3 is not a grade of this scorer" in report
    assert _grades(studio_db, seeded.polite) == {ids[1]: (0.5, "Cy", "")}
    assert _progress(at) == "1 of 3 graded"


def test_a_sheet_of_questions_answers_and_grades_finds_its_examples_by_content(
    seeded, studio_db, open_page
):
    """No example_id: the rows find their examples in the dataset being graded by question
    and answer; the person grading is the grader; a row that matches nothing is listed by its
    line; the file leaves the uploader once imported."""
    with session_scope(studio_db) as session:  # the same answers in another dataset
        other = create_dataset(session, name="copy")
        add_examples(
            session,
            dataset_id=other.id,
            examples=[ExampleData(input=f"question {i}", output=f"reply {i}") for i in range(3)],
        )
    at = open_page("review")
    at.selectbox(key=state.REVIEW_SCORER.name).set_value(seeded.polite).run()
    at.selectbox(key=state.REVIEW_DATASET.name).set_value(seeded.dataset).run()
    at.text_input(key=state.REVIEW_GRADER_NAME.name).input("Ann")
    at.get("form_submit_button")[0].click().run()
    text = (
        b"Question,Answer,Rating\n"
        b"question 0,reply 0,rude\n"
        b"question 2,reply 2,polite\n"
        b"question 9,reply 9,polite\n"
    )
    at.get("file_uploader")[0].set_value(("sheet.csv", text, "text/csv"))
    at.run()
    assert at.selectbox(key=state.REVIEW_MAP.child("input").name).value == "Question"
    assert at.selectbox(key=state.REVIEW_MAP.child("output").name).value == "Answer"
    assert at.selectbox(key=state.REVIEW_MAP.child("grade").name).value == "Rating"
    at.button(key=state.REVIEW_IMPORT_GO.name).click().run()
    assert not at.exception
    report = at.success[-1].value
    assert "Imported 2 grades from sheet.csv. Left out 1 row:" in report
    assert (
        'line 4: the example "question 9" / "reply 9": no example of dataset replies says this'
        in report
    )
    ids = seeded.examples
    assert _grades(studio_db, seeded.polite) == {ids[0]: (0.0, "Ann", ""), ids[2]: (1.0, "Ann", "")}
    assert at.get("file_uploader")[0].value is None  # gone: a second click has nothing to add
    assert _progress(at) == "2 of 3 graded"


def test_grades_import_with_the_time_they_were_given(seeded, studio_db, open_page):
    """A grade given last week and imported today is older than a grade given yesterday: the
    newer grade stays the latest; a time that cannot be read is a bad row, said by its line."""
    ids = seeded.examples
    with session_scope(studio_db) as session:
        add_label(
            session,
            example_id=ids[0],
            scorer_id=seeded.polite,
            value=0.0,
            labeller="Bo",
            created_at=datetime.now(UTC) - timedelta(days=1),
        )
    at = open_page("review")
    at.selectbox(key=state.REVIEW_SCORER.name).set_value(seeded.polite).run()
    at.text_input(key=state.REVIEW_GRADER_NAME.name).input("Ann")
    at.get("form_submit_button")[0].click().run()
    assert not at.expander[0].proto.expanded  # closed until a file is chosen
    week_ago = (datetime.now(UTC) - timedelta(days=7)).replace(microsecond=0)
    text = (
        "example_id,grade,grader,time\n"
        f"{ids[0]},polite,Cy,{week_ago.isoformat()}\n"
        f"{ids[1]},polite,Cy,last Tuesday\n"
        f"{ids[2]},neutral,Cy,{week_ago.replace(tzinfo=None).isoformat()}\n"
    ).encode()
    at.get("file_uploader")[0].set_value(("grades.csv", text, "text/csv"))
    at.run()
    assert at.selectbox(key=state.REVIEW_MAP.child("time").name).value == "time"
    at.button(key=state.REVIEW_IMPORT_GO.name).click().run()
    assert not at.exception
    assert at.expander[0].proto.expanded  # open: what the import did is seen
    report = at.success[-1].value
    assert "Imported 2 grades from grades.csv. Left out 1 row:" in report
    assert f'line 3: example {ids[1]}: the time "last Tuesday" is not a date and time' in report
    assert _grades(studio_db, seeded.polite) == {ids[0]: (0.0, "Bo", ""), ids[2]: (0.5, "Cy", "")}
    with read_session(studio_db) as session:
        imported = list_labels(session, scorer_id=seeded.polite, example_id=ids[2])[0]
    assert imported.created_at.replace(tzinfo=None) == week_ago.replace(tzinfo=None)


def test_grading_a_run_shows_that_runs_verdict(seeded, studio_db, open_page):
    row = {
        "scorer_id": seeded.polite,
        "scorer_version_id": seeded.version,
        "dataset_id": seeded.dataset,
        "example_id": seeded.examples[0],
        "outcome": "scored",
    }
    with session_scope(studio_db) as session:
        run = create_run(session, scorer_version_id=seeded.version, dataset_id=seeded.dataset)
        add_scores(session, rows=[{**row, "run_id": run.id, "score": 1.0}])
        add_scores(session, rows=[{**row, "score": 0.5}])  # later, outside the run
    at = open_page("review")
    at.selectbox(key=state.REVIEW_SCORER.name).set_value(seeded.polite).run()
    at.text_input(key=state.REVIEW_GRADER_NAME.name).input("Ann")
    at.get("form_submit_button")[0].click().run()
    at.toggle(key=state.REVIEW_SHOW_JUDGE.name).set_value(True).run()
    assert "The judge said **neutral**" in _texts(at)  # the version's latest result
    at.radio(key=state.REVIEW_SOURCE.name).set_value("run").run()
    assert at.selectbox(key=state.REVIEW_RUN.name).value == run.id
    assert "The judge said **polite**" in _texts(at)  # the run's own result
    assert not at.exception


def test_agent_runs_are_shown_as_turns_and_a_scorer_opens_on_examples_it_judges(
    seeded, studio_db, open_page
):
    runs = DEMO.parent / "datasets" / "agent_tool_runs.jsonl"
    first = json.loads(runs.read_text().splitlines()[0])
    with session_scope(studio_db) as session:
        tool_health = save_scorer_version(session, spec=load_spec(DEMO / "tool-health.json"))
        dataset = create_dataset(session, name="agent runs")  # after "replies" in the list
        add_examples(
            session,
            dataset_id=dataset.id,
            examples=[ExampleData(input=first["input"], output=first["output"])],
        )
    at = open_page("review")
    at.selectbox(key=state.REVIEW_SCORER.name).set_value(tool_health.scorer_id).run()
    at.text_input(key=state.REVIEW_GRADER_NAME.name).input("Ann")
    at.get("form_submit_button")[0].click().run()
    assert not at.exception, at.exception
    # An agent scorer opens on agent runs, not on the plain replies listed first.
    assert at.selectbox(key=state.REVIEW_DATASET.name).value == dataset.id
    shown = [t.value for t in at.text]
    assert "User: Where is my order A1042?" in "\n".join(shown)
    assert any(t.startswith('→ Called lookup_order(orderId: "A1042")') for t in shown)
    # A plain scorer opens on the plain replies.
    at.selectbox(key=state.REVIEW_SCORER.name).set_value(seeded.polite).run()
    assert at.selectbox(key=state.REVIEW_DATASET.name).value == seeded.dataset
