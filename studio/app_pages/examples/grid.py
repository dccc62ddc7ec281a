"""The editable grid of a dataset's examples: one page at a time (read in the database),
edits saved all together or not at all, rows added and deleted."""

from __future__ import annotations

import math
from typing import Any

import streamlit as st

from scorer_runtime.store import EXAMPLE_FIELDS
from scorer_runtime.store.views import DatasetRow
from studio import state
from studio.app_pages.examples import data as examples_data
from studio.app_pages.examples.logic import (
    COLUMN_HELP,
    COLUMN_LABELS,
    PAGE_SIZE,
    TEXT_COLUMN_WIDTH_PX,
    ExamplePage,
    GridChanges,
    GridSaveError,
    changes_from_editor,
    grid_height,
)
from studio.words import plural


def grid_key(dataset_id: int, page: int) -> state.Key:
    """The editor's key: one per dataset and page, renewed after a save or a discard."""
    return (
        state.EXAMPLES_GRID.child(dataset_id).child(page).child(state.get(state.EXAMPLES_GRID_GEN))
    )


def _columns() -> dict[str, Any]:
    # No "#" column: a cell a person cannot type in must not be a stop for Tab, Shift+Tab or
    # the toolbar's Add row (which selects a new row's first cell): keys typed there were lost.
    # Where a row sits is said by the caption ("Examples 51-100 of 240") and in problems.
    config: dict[str, Any] = {}
    for name in EXAMPLE_FIELDS:
        wide = name in ("input", "output", "ground_truth")
        config[name] = st.column_config.TextColumn(
            COLUMN_LABELS[name],
            help=COLUMN_HELP[name],
            width=TEXT_COLUMN_WIDTH_PX if wide else "medium",
            required=name == "output",
            default="",  # a new row's cells start blank, never "None"
        )
    return config


def _table(page: ExamplePage) -> Any:
    """The page's rows as the editor's table: text cells, indexed by their numbers from the
    page's first row (1, 2, 3… on the first page; the index is not shown); example ids stay
    out of sight."""
    import pandas as pd  # loaded with Streamlit anyway

    first = page.first_number or 1
    return pd.DataFrame(
        [row.cells for row in page.rows],
        columns=list(EXAMPLE_FIELDS),
        index=pd.RangeIndex(first, first + len(page.rows)),
        dtype=object,
    )


def grid(dataset: DatasetRow) -> None:
    """The page selector, the grid, and the save and discard buttons."""
    pages = max(1, math.ceil(dataset.examples / PAGE_SIZE))
    number = 1
    if pages > 1:
        number = st.pagination(
            pages, key=state.EXAMPLES_PAGE.child(dataset.id).name, width="stretch"
        )
    page = examples_data.page(dataset.id, int(number))
    if not page.rows:
        st.info(
            "This dataset has no examples yet. Add rows below (one row per answer to judge), "
            "or import a CSV or JSONL file in the **Import a file** tab.",
            icon=":material/lightbulb:",
        )
    st.caption(
        f"{page.label()}. Click a cell and type (Tab keeps the text and moves to the next "
        "cell, Enter keeps it); text that "
        "starts with { or [ is read as JSON. Add a row by clicking the empty row at the "
        "bottom or + above the grid; select rows at their left edge to delete them. "
        "Nothing is stored until you save."
    )
    key = grid_key(dataset.id, page.page)
    st.data_editor(
        _table(page),
        key=key.name,
        num_rows="dynamic",
        hide_index=True,
        height=grid_height(len(page.rows)),
        column_config=_columns(),
        placeholder="",  # an empty cell is blank, never "None"
        width="stretch",
        # Edits stay in the browser until Save (or another click) sends them: no page run
        # between two cells, so nothing a person types races a rerun and gets lost.
        on_change="ignore",
    )
    changes = changes_from_editor(page.rows, state.peek(key))
    _actions(dataset, page, changes, key)


def _actions(dataset: DatasetRow, page: ExamplePage, changes: GridChanges, key: state.Key) -> None:
    save, discard, summary = st.columns([1, 1, 3], vertical_alignment="center")
    # Never disabled: the grid's edits reach the page with the click itself (and a cell still
    # being typed in is left by that click); a disabled button would swallow it.
    if save.button(
        "Save changes", key=state.EXAMPLES_SAVE.name, type="primary", icon=":material/save:"
    ):
        _save(dataset, page, changes, key)
    if discard.button("Discard changes", key=state.EXAMPLES_DISCARD.name):
        _start_clean(key)
        state.reset(state.EXAMPLES_GRID_PROBLEMS)
        st.rerun()
    summary.caption("Edits stay in the grid until you click **Save changes**.")
    problems = state.get(state.EXAMPLES_GRID_PROBLEMS)
    if problems:
        listed = "\n".join(f"- {p}" for p in problems)
        st.error(
            f"**Nothing was saved: {plural(len(problems), 'cell needs', 'cells need')} "
            f"fixing.**\n\n{listed}",
            icon=":material/error:",
        )
        st.info(
            "Fix the cells named above and save again, or discard the changes.",
            icon=":material/lightbulb:",
        )


def _start_clean(key: state.Key) -> None:
    """Drop the editor's edits and give it a new key, so it starts again from the database.

    The editor keeps its edits (added, edited and deleted rows, by position) in its own state
    across reruns; after they are saved, replaying them on the saved rows would add the new
    rows a second time.
    """
    state.forget(key)
    state.put(state.EXAMPLES_GRID_GEN, state.get(state.EXAMPLES_GRID_GEN) + 1)


def _save(dataset: DatasetRow, page: ExamplePage, changes: GridChanges, key: state.Key) -> None:
    if changes.empty:
        state.reset(state.EXAMPLES_GRID_PROBLEMS)
        st.toast("Nothing to save: every example is as stored.", icon=":material/info:")
        return
    done = f"{key.name}:{changes.digest()}"
    if state.get(state.EXAMPLES_GRID_SAVED) == done:  # the same edits, already written
        _start_clean(key)
        st.rerun()
    try:
        result = examples_data.save_grid(dataset.id, page.rows, changes, page.first_number or 1)
    except GridSaveError as error:
        state.put(state.EXAMPLES_GRID_PROBLEMS, [str(p) for p in error.problems])
        st.rerun()
    state.put(state.EXAMPLES_GRID_SAVED, done)
    state.reset(state.EXAMPLES_GRID_PROBLEMS)
    _start_clean(key)
    state.flash(result.sentence())
    st.rerun()
