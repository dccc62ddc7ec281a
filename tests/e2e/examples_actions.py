"""What a person does on the Examples page, as reusable browser steps: create a dataset, type
examples into the grid, save, read what the page says about the dataset.

The grid is a canvas (Glide Data Grid), so cells are reached the way a person reaches them: a
click on the cell (its place computed from the grid's box, the fixed row height and the
grid's own scroll position), then the keyboard. Enter opens a cell's editor before typing, so
no keystroke is lost while the editor opens; Tab moves to the next column; Enter on the last
column closes the last editor. The grid sends its edits with the next click (Save).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from playwright.sync_api import Locator

from studio import state
from studio.app_pages.examples.logic.grid import ROW_HEIGHT_PX
from tests.e2e.browser import StudioPage

COLUMNS = ("input", "output", "ground_truth")
"""The grid's first columns, left to right (after the row numbers)."""
FIRST_COLUMN_X = 88 + 60
"""Where to click, from the grid's left edge, to land in the Input column: past the row
marker (about 32 px) and the row numbers (56 px), well inside Input (400 px wide)."""
_SCROLLER = ".dvn-scroller"
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
    table = grid(studio)
    scroller = table.locator(_SCROLLER).first
    top = ROW_HEIGHT_PX * row
    scroller.evaluate(f"el => {{ if (el.scrollTop > {top}) el.scrollTop = {top}; }}")
    _canvas(studio).evaluate(_STEADY)
    height = _canvas(studio).bounding_box()
    assert height is not None
    visible_rows = int((height["height"] - ROW_HEIGHT_PX) // ROW_HEIGHT_PX) - 1
    if row >= visible_rows:
        scroller.evaluate(f"el => {{ el.scrollTop = {ROW_HEIGHT_PX * (row - visible_rows + 1)}; }}")
    scrolled = float(scroller.evaluate("el => el.scrollTop"))
    box = _canvas(studio).bounding_box()
    assert box is not None
    x = box["x"] + FIRST_COLUMN_X
    y = box["y"] + ROW_HEIGHT_PX + ROW_HEIGHT_PX * row - scrolled + ROW_HEIGHT_PX / 2
    studio.page.mouse.click(x, y)
    for _ in range(COLUMNS.index(column)):
        studio.page.keyboard.press("Tab")


def type_row(studio: StudioPage, row: int, values: Mapping[str, str]) -> None:
    """Type ``values`` (input, output, ground_truth) into ``row`` from its Input cell on. The
    grid keeps the row until Save sends it (no script run while typing)."""
    click_cell(studio, row, COLUMNS[0])
    keyboard = studio.page.keyboard
    for i, column in enumerate(COLUMNS):
        keyboard.press("Enter")  # open the cell's editor, then type into it
        studio.page.locator("textarea.gdg-input").first.wait_for(state="visible")
        keyboard.type(values.get(column, ""))
        keyboard.press("Tab" if i < len(COLUMNS) - 1 else "Enter")


def add_row(studio: StudioPage) -> None:
    """Add an empty row at the end of the grid (its toolbar's Add row)."""
    table = grid(studio)
    table.hover()
    table.get_by_role("button", name="Add row").click()


def type_examples(studio: StudioPage, examples: Sequence[Mapping[str, str]]) -> None:
    """Type examples into new rows after the rows already shown, one row each."""
    start = shown_rows(studio)
    for i, example in enumerate(examples):
        add_row(studio)
        type_row(studio, start + i, example)


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
