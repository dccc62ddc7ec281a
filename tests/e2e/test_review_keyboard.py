"""The Review page in a real browser, graded with the keyboard: the grader's name once, then
the number keys grade two examples (each moving on to the next; keys typed in the note stay
in the note), k goes back and j forward; on a number scale keys 1 to 5 grade, and a number
typed in the box is the box's.
Checked in the database (the grades, by whom) and on the page (progress, the judge's verdict
shown only once graded)."""

from __future__ import annotations

import pytest

from scorer_runtime.store import (
    get_scorer,
    latest_labels,
    list_datasets,
    make_engine,
    read_session,
    review_example_ids,
)
from studio import state
from tests.e2e.browser import StudioPage

pytestmark = pytest.mark.e2e

SCORER = "tone-politeness"  # grades: polite (1), neutral (2), rude (3)
DATASET = "customer_support"


def _grades(
    database_url: str, scorer: str = SCORER
) -> tuple[list[int], dict[int, tuple[float, str, str]]]:
    engine = make_engine(database_url)
    try:
        with read_session(engine) as session:
            scorer_id = get_scorer(session, name=scorer).id
            dataset = next(d for d in list_datasets(session) if d.name == DATASET)
            ids = review_example_ids(session, dataset_id=dataset.id)
            labels = latest_labels(session, scorer_id=scorer_id, example_ids=ids)
        return ids, {k: (v.value, v.labeller, v.note) for k, v in labels.items()}
    finally:
        engine.dispose()


def _key(studio: StudioPage, key: str) -> None:
    studio.rerun(lambda: studio.page.keyboard.press(key))


def test_two_examples_are_graded_with_the_number_keys(
    studio_page: StudioPage, studio_database: str
) -> None:
    studio = studio_page
    studio.open("/review", title="Review")
    studio.select(state.REVIEW_SCORER.name, "Tone and politeness")  # SCORER's display name
    studio.select(state.REVIEW_DATASET.name, f"{DATASET} (24 examples)")
    studio.widget(state.REVIEW_GRADER_NAME.name).locator("input").fill("Priya")
    studio.rerun(studio.page.get_by_role("button", name="Start grading").click)
    studio.text("0 of 24 graded")
    studio.text("The judge's verdict is hidden until you grade this example.")
    studio.screenshot("ready to grade")
    studio.check()

    studio.page.get_by_role("heading", name="Review").click()  # no text box has the keys
    _key(studio, "1")  # polite
    studio.text("1 of 24 graded")
    studio.text("Example 1: you said polite.")
    studio.text("Example 2 of 24")
    # Keys typed into the note are the note's: they neither grade nor move.
    note = studio.widget(state.REVIEW_NOTE.child(_grades(studio_database)[0][1]).name)
    note.locator("input").click()
    studio.page.keyboard.type("says 1 thing, just shouts", delay=20)
    studio.rerun(note.locator("input").blur)
    studio.text("Example 2 of 24")
    studio.text("1 of 24 graded")
    _key(studio, "3")  # rude
    studio.text("2 of 24 graded")
    studio.text("Example 2: you said rude.")
    studio.screenshot("two graded")

    ids, grades = _grades(studio_database)
    assert grades == {
        ids[0]: (1.0, "Priya", ""),
        ids[1]: (0.0, "Priya", "says 1 thing, just shouts"),
    }

    _key(studio, "k")
    studio.text("Example 2 of 24")
    studio.text("The latest grade is rude.")  # graded: the judge's side is shown
    _key(studio, "j")
    studio.text("Example 3 of 24")
    studio.check()


def test_a_number_scale_is_graded_with_keys_one_to_five_or_a_typed_number(
    studio_page: StudioPage, studio_database: str
) -> None:
    """faithfulness grades on a number from 0 to 1: keys 1-5 give 0, 0.25, 0.5, 0.75 and 1;
    digits typed in the number box are the box's, and any other number is saved from it."""
    studio = studio_page
    studio.open("/review", title="Review")
    studio.select(state.REVIEW_SCORER.name, "Faithfulness to the sources")
    studio.select(state.REVIEW_DATASET.name, f"{DATASET} (24 examples)")
    studio.widget(state.REVIEW_GRADER_NAME.name).locator("input").fill("Priya")
    studio.rerun(studio.page.get_by_role("button", name="Start grading").click)
    studio.text("0 of 24 graded")
    studio.screenshot("number scale ready")

    studio.page.get_by_role("heading", name="Review").click()  # no text box has the keys
    _key(studio, "4")
    studio.text("Example 1: you said 0.75 (pass).")
    _key(studio, "1")
    studio.text("Example 2: you said 0 (fail).")
    box = studio.page.get_by_label("Or any number from 0 to 1")
    box.click()
    studio.page.keyboard.type("0.3", delay=20)
    studio.rerun(lambda: studio.page.keyboard.press("Tab"))
    studio.text("2 of 24 graded")  # the 3 typed in the box graded nothing
    studio.rerun(studio.page.get_by_role("button", name="Save grade").click)
    studio.text("Example 3: you said 0.3 (fail).")
    studio.screenshot("three graded")

    ids, grades = _grades(studio_database, "faithfulness")
    assert grades == {
        ids[0]: (0.75, "Priya", ""),
        ids[1]: (0.0, "Priya", ""),
        ids[2]: (0.3, "Priya", ""),
    }
    studio.check()
