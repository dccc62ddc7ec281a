"""What a person does on the Examples page, as reusable browser steps: create a dataset, enter
examples in the grid, change a cell, save, read back what the grid and the picker show.

The grid is a canvas (Glide Data Grid), so a cell is reached the way a person reaches it: a
click on it (its place computed from the canvas box, the fixed row height and the grid's own
scroll position, once the page has stopped scrolling), then the keyboard. Several examples
go in as one paste of tab-separated rows, as from a spreadsheet: typing many cells in a row
with the keyboard at machine speed loses a cell now and then in this Streamlit version, and
so does a bare ``st.data_editor`` alone on a page with no reruns (the grid's own editor drops
keys or a commit when keys come with no pause between them), so the test of saving does not
depend on it; typing at a person's pace is tested on its own.
The grid sends its edits with the next click (Save); reading it back uses its own Download as
CSV.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from playwright.sync_api import Locator
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from studio import state
from studio.app_pages.examples.logic.grid import ROW_HEIGHT_PX, TEXT_COLUMN_WIDTH_PX
from tests.e2e.browser import StudioPage

COLUMNS = ("input", "output", "ground_truth")
"""The grid's first columns, left to right (after the row markers)."""
FIRST_COLUMN_X = 32 + 60
"""Where to click, from the grid's left edge, to land in the Input column: past the row
marker (about 32 px), well inside Input (the grid shows no "#" column)."""
_SCROLLER = ".dvn-scroller"
_SCROLL_TO = """async (el, to) => {
    // Scroll the grid itself, then let it handle the scroll event and draw (a click before
    // that would land where the rows were).
    if (to.left !== null) el.scrollLeft = to.left;
    if (to.top !== null) el.scrollTop = to.top;
    for (let frame = 0; frame < 3; frame++) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
    }
}"""
_STEADY = """async (el) => {
    // Resolve once the element has stayed put for a few frames: adding a row scrolls the
    // page (smoothly) to show it, and a click during that scroll lands on another row.
    let last = null, same = 0;
    for (let frame = 0; frame < 600 && same < 3; frame++) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const box = el.getBoundingClientRect();
        const now = `${box.x},${box.y},${box.height}`;
        same = now === last ? same + 1 : 0;
        last = now;
    }
}"""


def open_examples(studio: StudioPage) -> None:
    """Go to the Examples page with the sidebar."""
    studio.navigate("Examples", title="Examples")


def create_dataset(studio: StudioPage, name: str, description: str = "") -> None:
    """Create an empty dataset with the New dataset popover; it closes and the dataset is
    chosen."""
    opener = studio.widget(state.EXAMPLES_NEW.name).get_by_role("button").first
    opener.click()
    studio.widget(state.EXAMPLES_NEW_NAME.name).wait_for(state="visible")
    studio.type(state.EXAMPLES_NEW_NAME.name, name)
    if description:
        studio.type(state.EXAMPLES_NEW_DESCRIPTION.name, description)
    studio.click(state.EXAMPLES_NEW_CREATE.name)
    studio.widget(state.EXAMPLES_NEW_NAME.name).wait_for(state="hidden")
    assert picker_label(studio).startswith(f"{name} ("), picker_label(studio)


def picker_label(studio: StudioPage) -> str:
    """What the dataset picker shows: "support-june (5 examples)"."""
    return studio.widget(state.EXAMPLES_DATASET.name).locator("input").first.input_value()


def grid(studio: StudioPage) -> Locator:
    """The examples grid of the dataset shown."""
    return studio.page.locator(f"[class*='{_grid_class()}'] [data-testid='stDataFrame']").first


def _canvas(studio: StudioPage) -> Locator:
    return grid(studio).get_by_test_id("data-grid-canvas")


def _grid_class() -> str:
    return "st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", state.EXAMPLES_GRID.name) + "-"


def click_cell(studio: StudioPage, row: int, column: str) -> None:
    """Select the cell of ``row`` (0-based, on this page) in ``column``, scrolled into view."""
    canvas = _canvas(studio)
    scroller = grid(studio).locator(_SCROLLER).first
    scroller.evaluate(_SCROLL_TO, {"left": 0, "top": None})  # Input is the first column again
    canvas.evaluate(_STEADY)
    box = canvas.bounding_box()
    assert box is not None
    visible_rows = int(box["height"] // ROW_HEIGHT_PX) - 2  # the header, a partial last row
    top = max(0, row - visible_rows + 1) * ROW_HEIGHT_PX
    scroller.evaluate(_SCROLL_TO, {"left": None, "top": top})
    canvas.evaluate(_STEADY)
    scrolled = float(scroller.evaluate("el => el.scrollTop"))
    box = canvas.bounding_box()
    assert box is not None
    x = box["x"] + FIRST_COLUMN_X + TEXT_COLUMN_WIDTH_PX * COLUMNS.index(column)
    y = box["y"] + ROW_HEIGHT_PX * (row + 1) - scrolled + ROW_HEIGHT_PX / 2
    studio.page.mouse.click(x, y)


def _editor(studio: StudioPage) -> Locator:
    return studio.page.locator("textarea.gdg-input")


def start_typing(
    studio: StudioPage, row: int, column: str, text: str, *, key_delay_ms: float = 0
) -> None:
    """Open the editor of one cell and type ``text`` at the end of what it holds, leaving the
    editor open (what the next action does with it is the caller's choice: Enter keeps it,
    Escape drops it, a click elsewhere keeps it). ``key_delay_ms`` between keys types at a
    person's pace (0: as fast as the browser takes them)."""
    editor = _editor(studio)
    for attempt in range(3):  # a person whose click did not open the cell clicks again
        # The last cell's editor closes a moment after its Enter; an Enter pressed while it
        # is still there goes to it and opens nothing, and a wait for "the editor" would
        # find the closing one. So: the old editor gone, then click, Enter, the new one.
        editor.wait_for(state="detached", timeout=10_000)
        click_cell(studio, row, column)
        studio.page.keyboard.press("Enter")
        try:
            editor.wait_for(state="visible", timeout=8_000)  # late on a loaded machine
            editor.press("End", timeout=8_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
            if editor.count():
                studio.page.keyboard.press("Escape")  # nothing typed yet: close it, retry
    studio.page.keyboard.type(text, delay=key_delay_ms)
    assert editor.input_value().endswith(text), f"the cell holds {editor.input_value()!r}"


def add_row(studio: StudioPage) -> None:
    """Add an empty row at the end of the grid (its toolbar's Add row), and wait until the
    page has stopped scrolling to show it."""
    table = grid(studio)
    table.hover()
    table.get_by_role("button", name="Add row").click()
    _canvas(studio).evaluate(_STEADY)


def paste_examples(studio: StudioPage, examples: Sequence[Mapping[str, str]]) -> None:
    """Paste examples into the grid as a person pastes rows copied from a spreadsheet: the
    Input cell of the first empty row selected, then tab-separated rows pasted (the grid adds
    the rows it needs). One paste, so nothing depends on the pace of typing."""
    start = shown_rows(studio)
    add_row(studio)  # the row the paste starts in
    click_cell(studio, start, COLUMNS[0])
    text = "\n".join("\t".join(e.get(c, "") for c in COLUMNS) for e in examples)
    assert all("\t" not in v and "\n" not in v for e in examples for v in e.values())
    studio.page.context.grant_permissions(
        ["clipboard-read", "clipboard-write"], origin=studio.base_url
    )
    studio.page.evaluate("text => navigator.clipboard.writeText(text)", text)
    studio.page.keyboard.press("ControlOrMeta+V")
    _canvas(studio).evaluate(_STEADY)


def shown_rows(studio: StudioPage) -> int:
    """How many stored rows the page says it shows (its caption "Examples 1 to 5 of 5", with
    a dash; none: 0)."""
    caption = studio.page.get_by_text(re.compile(r"^(Examples \d|No examples yet)")).first
    found = re.match(r"Examples ([\d,]+)–([\d,]+)", caption.inner_text())
    if not found:
        return 0
    first, last = (int(n.replace(",", "")) for n in found.groups())
    return last - first + 1


def save(studio: StudioPage) -> None:
    """Click Save changes and wait for the page to show the saved rows."""
    studio.click(state.EXAMPLES_SAVE.name)
    studio.settle()


def grid_csv(studio: StudioPage) -> list[list[str]]:
    """What the grid shows, read through its own Download as CSV (rows of cells, the header
    first): the grid is drawn on a canvas, so this is how a test reads it."""
    studio.page.evaluate("() => { delete window.showSaveFilePicker; }")  # a plain download
    table = grid(studio)
    table.hover()
    with studio.page.expect_download() as started:
        table.get_by_role("button", name="Download as CSV").click()
    text = Path(started.value.path()).read_text(encoding="utf-8-sig")
    return list(csv.reader(io.StringIO(text)))


def type_in_selected_cell(studio: StudioPage, text: str, *, key_delay_ms: float = 0) -> None:
    """Type ``text`` into the cell the grid has selected (after a Tab, say) as a person does:
    the first key opens its editor, the rest go into it."""
    editor = _editor(studio)
    editor.wait_for(state="detached", timeout=10_000)  # the last cell's editor has closed
    studio.page.keyboard.type(text[0])
    editor.wait_for(state="visible", timeout=8_000)
    studio.page.keyboard.type(text[1:], delay=key_delay_ms)
    assert editor.input_value() == text, f"the cell holds {editor.input_value()!r}"
