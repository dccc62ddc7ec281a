"""What a person does in the builder, as reusable browser actions (Chromium via StudioPage).

Every value a step reads is *chosen* (a drop-down of "Step 2, the judge's answer > solved"),
never typed as a path; names, questions and prompts are typed. Used by the builder's own
browser test and by the product manager's whole-path test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from studio import state
from tests.e2e.browser import StudioPage

ROW_HEIGHT = 35
"""The height of a row (and of the header) of Streamlit's data editor, in pixels."""
MARKER_WIDTH = 34
"""The width of the data editor's row-marker column (before the first column)."""
COLUMN_WIDTHS = (85, 90, 110, 110, 65)
"""The answer-fields editor's column widths (as the builder sets them)."""


def form(gen: int = 0) -> str:
    """The prefix of the builder's widget keys for a draft generation (0 for a fresh page)."""
    return state.BUILDER_FORM.child(gen).name


@dataclass(frozen=True)
class AnswerField:
    """One row of "What the judge answers"."""

    name: str
    kind: str = "text"
    choices: Sequence[str] = ()
    description: str = ""


def pick(studio: StudioPage, key: str, label: str) -> None:
    """Choose a radio option by its words, unless it is chosen already (no rerun then)."""
    radio = studio.widget(key).get_by_role("radio", name=label, exact=True)
    if radio.count() and radio.first.is_checked():
        return
    studio.choose(key, label)


def open_builder(studio: StudioPage) -> None:
    studio.navigate("Build a scorer", title="Build a scorer")


def basics(studio: StudioPage, name: str, description: str, *, gen: int = 0) -> None:
    """Stage 1 (where the builder opens): the scorer's name and what it judges."""
    studio.type(f"{form(gen)}.basics.name", name)
    studio.type(f"{form(gen)}.basics.description", description)


def judge_here(
    studio: StudioPage,
    *,
    model: str,
    key_env: str,
    base_url: str,
    instructions: str,
    describe_answer_in_prompt: bool = True,
    gen: int = 0,
) -> None:
    """Stage 2: set up the judge in the builder (not a saved one)."""
    f = form(gen)
    studio.choose(f"{f}.stage", "2 · Judge")
    pick(studio, f"{f}.judge.way", "Set up a judge here")
    studio.type(f"{f}.judge.settings.model", model)
    studio.type(f"{f}.judge.settings.env", key_env)
    studio.page.get_by_text("More judge settings", exact=True).click()
    studio.type(f"{f}.judge.settings.base", base_url)
    if describe_answer_in_prompt:
        studio.select(f"{f}.judge.settings.json", "Describe the answer in the prompt")
    studio.type(f"{f}.judge.settings.instructions", instructions)


def example_from_dataset(studio: StudioPage, dataset: str, *, gen: int = 0) -> None:
    pick(studio, f"{form(gen)}.example.way", "From a dataset")
    studio.select(f"{form(gen)}.example.dataset", dataset)


def steps_stage(studio: StudioPage, *, gen: int = 0) -> None:
    studio.choose(f"{form(gen)}.stage", "3 · Steps")


def how(studio: StudioPage, slot: str, label: str, *, gen: int = 0) -> None:
    """How a step is done: "Ask the judge", "Use a built-in check", "Write a formula"…"""
    pick(studio, f"{form(gen)}.steps.{slot}.how", label)


def ask_the_judge(
    studio: StudioPage,
    slot: str,
    *,
    question: str,
    prompt: str,
    fields: Sequence[str] = (),
    gen: int = 0,
) -> None:
    """A judge step's question and prompt; ``fields`` are then put in by choosing them
    ("The example > input"), each added at the end of the prompt."""
    prefix = f"{form(gen)}.steps.{slot}.judge"
    studio.type(f"{prefix}.description", question)
    studio.type(f"{prefix}.template", prompt)
    for label in fields:
        studio.select(f"{prefix}.insert", label)


def answer_fields(
    studio: StudioPage, slot: str, fields: Sequence[AnswerField], *, gen: int = 0
) -> None:
    """Fill "What the judge answers" row by row, as a person does in the grid: the rows
    already there are overwritten, more are added."""
    editor = f"{form(gen)}.steps.{slot}.judge.fields.editor"
    for row, field in enumerate(fields):
        if row >= _row_count(studio, editor):
            _add_row(studio, editor)
        _edit_cell(studio, editor, row, 0, field.name)
        _edit_cell(studio, editor, row, 1, field.kind, choose=True)
        _edit_cell(studio, editor, row, 2, field.description)
        _edit_cell(studio, editor, row, 3, ", ".join(field.choices))


def _row_count(studio: StudioPage, editor: str) -> int:
    rows = studio.widget(editor).locator("[role='row']")
    return max(rows.count() - 1, 0)  # the header is a row too


def _cell_point(studio: StudioPage, editor: str, row: int, column: int) -> tuple[float, float]:
    canvas = studio.widget(editor).locator("canvas").first
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    assert box is not None, "the answer-fields editor is not drawn"
    x = box["x"] + MARKER_WIDTH + sum(COLUMN_WIDTHS[:column]) + 20
    return x, box["y"] + ROW_HEIGHT * (row + 1.5)


_EDITOR_WAIT_MS = 8_000
"""How long a cell's editor may take to show after Enter before the cell is clicked again."""


def _edit_cell(
    studio: StudioPage, editor: str, row: int, column: int, text: str, *, choose: bool = False
) -> None:
    """Select the cell (a click on it), open its editor with Enter,
    put the text in (or choose the option), and commit with Enter."""
    if not text:
        return
    page = studio.page
    overlay = (
        page.get_by_role("option", name=text, exact=True)
        if choose
        else page.locator("textarea.gdg-input").first
    )
    for attempt in range(3):  # a grid being redrawn by a rerun drops the click: click again
        studio.settle()  # the last cell's rerun has drawn the grid anew
        page.mouse.click(*_cell_point(studio, editor, row, column))
        page.keyboard.press("Enter")  # opens the cell's editor over the grid
        try:
            try:  # a loaded machine draws the editor late: seconds, not a moment
                overlay.wait_for(state="visible", timeout=_EDITOR_WAIT_MS)
            except PlaywrightTimeout:
                if not choose:
                    raise
                page.keyboard.type(text)  # a choice list that opened closed: typing opens it
                overlay.wait_for(state="visible", timeout=_EDITOR_WAIT_MS)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                studio.screenshot(f"cell {row} {column} never opened")  # for the CI's record
                raise
            page.keyboard.press("Escape")
            studio.settle()
    if choose:
        try:  # the same kind as before changes nothing, and nothing reruns
            studio.rerun(overlay.click, timeout_s=5)
        except PlaywrightTimeout:
            studio.settle()
        return
    overlay.fill(text)
    studio.rerun(lambda: page.keyboard.press("Enter"))


def _add_row(studio: StudioPage, editor: str) -> None:
    """Press the grid's "Add row" and wait until the new row is drawn (its rerun ended)."""
    widget = studio.widget(editor)
    rows = _row_count(studio, editor)
    widget.hover()
    studio.act(lambda: widget.get_by_role("button", name="Add row").click())
    expect(widget.locator("[role='row']")).to_have_count(rows + 2)  # the header is a row too


def builtin(studio: StudioPage, slot: str, check: str, *, gen: int = 0) -> None:
    """Do a step with a built-in check, chosen by its words ("Judge labels · Turn …")."""
    how(studio, slot, "Use a built-in check", gen=gen)
    studio.select(f"{form(gen)}.steps.{slot}.builtin.use", check)


def chosen(studio: StudioPage, key: str) -> str:
    """The words of the option a drop-down shows as chosen."""
    box = studio.widget(key).get_by_role("combobox")
    return str(box.evaluate("el => el.value || el.getAttribute('aria-label') || el.innerText"))


def choose_field(studio: StudioPage, key: str, label: str) -> None:
    """Choose a value a step reads, by its words ("Step 2, the judge's answer > solved")."""
    studio.select(key, label)


def label_scores(
    studio: StudioPage, slot: str, read: str, scores: Mapping[str, float], *, gen: int = 0
) -> None:
    """ "Turn the judge's label into a score": which label (chosen), and each label's score."""
    prefix = f"{form(gen)}.steps.{slot}.builtin.label_to_score"
    if read not in chosen(studio, f"{prefix}.field"):
        choose_field(studio, f"{prefix}.field", read)
    for label, score in scores.items():
        set_number(studio, f"{prefix}.mapping.score.{label}", score)


def set_number(studio: StudioPage, key: str, value: float) -> None:
    """Type a number into a number box, unless it shows that number already (no rerun)."""
    shown = studio.widget(key).locator("input").first.input_value()
    if shown and float(shown) == value:
        return
    studio.type(key, f"{value:g}")


def formula(
    studio: StudioPage, slot: str, text: str, fields: Sequence[str] = (), *, gen: int = 0
) -> None:
    """A formula step: ``text`` typed, then each of ``fields`` put in by choosing it."""
    how(studio, slot, "Write a formula", gen=gen)
    prefix = f"{form(gen)}.steps.{slot}.formula"
    studio.type(f"{prefix}.text", text)
    for label in fields:
        studio.select(f"{prefix}.insert", label)


def retry_policy(
    studio: StudioPage, *, retries: int, first_wait_s: float | None = None, gen: int = 0
) -> None:
    """Stage 4: the scorer's retry policy (on, with this many retries)."""
    prefix = f"{form(gen)}.retries.scorer"
    studio.choose(f"{form(gen)}.stage", "4 · Retries")
    toggle = studio.widget(f"{prefix}.on").locator("input[type=checkbox]").first
    if not toggle.is_checked():
        studio.rerun(lambda: studio.widget(f"{prefix}.on").locator("label").first.click())
    set_number(studio, f"{prefix}.retries", retries)
    if first_wait_s is not None:
        set_number(studio, f"{prefix}.first", first_wait_s)


def try_it(studio: StudioPage, *, gen: int = 0) -> str:
    """Stage 5: Try it on the chosen example; returns the score shown."""
    studio.choose(f"{form(gen)}.stage", "5 · Try it")
    studio.click(f"{form(gen)}.try.run")
    score = studio.page.get_by_test_id("stMetric").filter(has_text="Score")
    return score.get_by_test_id("stMetricValue").first.inner_text()


def save(studio: StudioPage, note: str, *, gen: int = 0) -> None:
    """Stage 6: save a new version with a note."""
    studio.choose(f"{form(gen)}.stage", "6 · Save")
    studio.type(f"{form(gen)}.save.note", note)
    studio.click(f"{form(gen)}.save.save")
    studio.text("Saved version")
