"""The Examples page in a real browser, as a person uses it: a question typed in the grid, Tab,
its answer, Enter, saved (both cells kept, the "#" column never takes a key); and a file
imported, then the same file again (the rows are stored once, and the page says so)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import select

from scorer_runtime.store import list_examples, make_engine, read_session
from scorer_runtime.store.tables import DatasetRecord
from studio import state
from tests.e2e import examples_actions as examples
from tests.e2e.browser import StudioPage

pytestmark = pytest.mark.e2e

HUMAN_KEY_DELAY_MS = 80
"""A quick typist's pace (see test_examples_grid)."""


def _stored(database_url: str, name: str) -> list[tuple[object, object]]:
    engine = make_engine(database_url)
    try:
        with read_session(engine) as session:
            dataset = session.exec(select(DatasetRecord).where(DatasetRecord.name == name)).one()
            rows = list_examples(session, dataset_id=int(dataset.id or 0), limit=100)
            return [(e.input, e.output) for e in rows]
    finally:
        engine.dispose()


def test_question_tab_answer_enter_keeps_both_cells(
    studio_page: StudioPage, studio_database: str
) -> None:
    studio = studio_page
    studio.open("/examples", title="Examples")
    examples.create_dataset(studio, "tabbed")
    typed = [
        ("Where is my parcel?", "It ships tomorrow."),
        ("Can I pay later?", "Yes, at checkout."),
    ]
    for row, (question, answer) in enumerate(typed):
        examples.add_row(studio)
        examples.start_typing(studio, row, "input", question, key_delay_ms=HUMAN_KEY_DELAY_MS)
        studio.page.keyboard.press("Tab")  # keeps the question, moves to the answer
        examples.type_in_selected_cell(studio, answer, key_delay_ms=HUMAN_KEY_DELAY_MS)
        studio.page.keyboard.press("Enter")  # keeps the answer
    studio.screenshot("typed with tab")
    examples.save(studio)
    studio.text("Saved: 2 added.")
    assert _stored(studio_database, "tabbed") == typed
    # The grid has no "#" column a Tab, a Shift+Tab or a new row could land in.
    assert examples.grid_csv(studio)[0][:2] == ["input", "output"]
    studio.check()


IMPORTED = "\n".join(["input,output"] + [f"Question {i}?,Answer {i}." for i in range(1, 31)]) + "\n"


def _import_file(studio: StudioPage, path: Path, generation: int) -> None:
    """Upload ``path`` into the import form's (renewed) uploader, add it to the dataset shown,
    and click Import once."""
    key = state.EXAMPLES_IMPORT_UPLOAD.child(generation).name
    uploader = studio.widget(key).locator("input[type=file]")
    studio.rerun(lambda: uploader.set_input_files(path))
    studio.text("30 examples are ready to import")
    studio.choose(state.EXAMPLES_IMPORT_TARGET.name, "“imported-twice” (add rows to it)")
    studio.click(state.EXAMPLES_IMPORT_GO.name)


def test_the_same_file_imported_twice_is_stored_once_and_the_page_says_so(
    studio_page: StudioPage, studio_database: str, tmp_path: Path
) -> None:
    studio = studio_page
    studio.open("/examples", title="Examples")
    examples.create_dataset(studio, "imported-twice")
    path = tmp_path / "thirty.csv"
    path.write_text(IMPORTED, encoding="utf-8")
    expected = [(f"Question {i}?", f"Answer {i}.") for i in range(1, 31)]
    studio.rerun(studio.page.get_by_role("tab", name="Import a file").click)

    _import_file(studio, path, 0)
    studio.text("Imported 30 examples from thirty.csv into dataset imported-twice.")
    assert _stored(studio_database, "imported-twice") == expected
    # The file has left the uploader, and the Import button with it: nothing to click twice.
    assert studio.widget(state.EXAMPLES_IMPORT_GO.name).count() == 0
    assert (
        studio.widget(state.EXAMPLES_IMPORT_UPLOAD.child(1).name)
        .locator("[data-testid='stFileUploaderFile']")
        .count()
        == 0
    )
    studio.screenshot("imported once")

    _import_file(studio, path, 1)  # the same file again, on purpose
    studio.text(
        "Nothing added from thirty.csv: its 30 examples are already stored in dataset "
        "imported-twice."
    )
    assert _stored(studio_database, "imported-twice") == expected
    assert examples.picker_label(studio) == "imported-twice (30 examples)"
    studio.screenshot("imported twice")
    studio.check()
