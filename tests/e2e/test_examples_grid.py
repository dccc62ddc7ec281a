"""The Examples grid in a real browser keeps every entry once: a new dataset, five examples
entered in the grid, saved, saved again, then one cell changed and saved while its editor is
still open (the fumbled edit of the walkthrough). Checked in the database and on the page:
five rows (said as "Examples 1-5 of 5"), no "None", and the picker counting them."""

from __future__ import annotations

import pytest
from sqlmodel import select

from scorer_runtime.store import list_examples, make_engine, read_session
from scorer_runtime.store.tables import DatasetRecord
from studio import state
from tests.e2e import examples_actions as examples
from tests.e2e.browser import StudioPage

pytestmark = pytest.mark.e2e

NAME = "grid-walkthrough"
EXAMPLES = [
    {
        "input": f"Where is my order number {i}?",
        "output": f"Your order {i} ships tomorrow.",
        "ground_truth": f"Order {i} ships tomorrow",
    }
    for i in range(1, 6)
]


def _stored(database_url: str, name: str = NAME) -> list[tuple[object, object, object]]:
    engine = make_engine(database_url)
    try:
        with read_session(engine) as session:
            dataset = session.exec(select(DatasetRecord).where(DatasetRecord.name == name)).one()
            rows = list_examples(session, dataset_id=int(dataset.id or 0), limit=100)
            return [(e.input, e.output, e.ground_truth) for e in rows]
    finally:
        engine.dispose()


def _expected(outputs: dict[int, str] | None = None) -> list[tuple[object, object, object]]:
    changed = outputs or {}
    return [
        (e["input"], changed.get(i, e["output"]), e["ground_truth"]) for i, e in enumerate(EXAMPLES)
    ]


def test_examples_entered_in_the_grid_are_saved_once(
    studio_page: StudioPage, studio_database: str
) -> None:
    studio = studio_page
    studio.open("/examples", title="Examples")
    examples.create_dataset(studio, NAME)
    assert examples.picker_label(studio) == f"{NAME} (0 examples)"
    studio.screenshot("new dataset")
    studio.check()

    examples.paste_examples(studio, EXAMPLES)
    studio.screenshot("five examples entered")
    examples.save(studio)
    studio.text("Saved: 5 added.")
    assert _stored(studio_database) == _expected()
    assert examples.picker_label(studio) == f"{NAME} (5 examples)"

    examples.save(studio)  # again: nothing new
    studio.text("Nothing to save")
    assert _stored(studio_database) == _expected()

    # A fumbled edit: the cell's editor is still open when Save is clicked.
    examples.start_typing(studio, 1, "output", " Sorry for the wait.")
    studio.click(state.EXAMPLES_SAVE.name)
    studio.settle()
    edited = EXAMPLES[1]["output"] + " Sorry for the wait."
    assert _stored(studio_database) == _expected({1: edited})
    examples.save(studio)
    assert _stored(studio_database) == _expected({1: edited})

    shown = examples.grid_csv(studio)
    assert shown[0][:3] == ["input", "output", "ground_truth"]  # no ids, no "#" column
    assert [row[:3] for row in shown[1:]] == [list(r) for r in _expected({1: edited})]
    assert not any(cell in ("None", "nan") for row in shown for cell in row)
    assert examples.picker_label(studio) == f"{NAME} (5 examples)"
    assert "Examples 1–5 of 5" in studio.page.inner_text("body")
    studio.screenshot("saved")
    studio.check()


HUMAN_KEY_DELAY_MS = 80
"""A quick typist's pace (about 12 keys a second); at no pause at all the grid's own editor
drops a key or a cell now and then, even as a bare st.data_editor on an empty page."""


def test_a_person_typing_cell_by_cell_keeps_every_cell(
    studio_page: StudioPage, studio_database: str
) -> None:
    studio = studio_page
    studio.open("/examples", title="Examples")
    examples.create_dataset(studio, "typed-by-hand")
    typed = EXAMPLES[:2]
    for row, example in enumerate(typed):
        examples.add_row(studio)
        for column in examples.COLUMNS:
            examples.start_typing(
                studio, row, column, example[column], key_delay_ms=HUMAN_KEY_DELAY_MS
            )
            studio.page.keyboard.press("Enter")  # keeps the cell
    examples.save(studio)
    studio.text("Saved: 2 added.")
    assert _stored(studio_database, "typed-by-hand") == _expected()[:2]
    studio.check()
