"""The editable grid of a dataset's examples: one page at a time (read in the database),
edits saved all together or not at all, rows added and deleted."""

from __future__ import annotations

import math
from typing import Any

import streamlit as st

from scorer_runtime.store import EXAMPLE_FIELDS
from scorer_runtime.store.views import DatasetRow
from studio import services, state
from studio.app_pages.examples import data as examples_data
from studio.app_pages.examples.logic import (
    COLUMN_HELP,
    COLUMN_LABELS,
    PAGE_SIZE,
    ExamplePage,
    GridChanges,
    GridSaveError,
    changes_from_editor,
    save_changes,
)
from studio.words import plural


def grid_key(dataset_id: int, page: int) -> state.Key:
    """The editor's key: one per dataset and page, renewed after a save or a discard."""
    return (
        state.EXAMPLES_GRID.child(dataset_id).child(page).child(state.get(state.EXAMPLES_GRID_GEN))
    )


def _columns() -> dict[str, Any]:
    config: dict[str, Any] = {
        "id": st.column_config.NumberColumn(
            "#", help="The example's number in the database (set when it is saved).", width=60
        )
    }
    for name in EXAMPLE_FIELDS:
        wide = name in ("input", "output", "ground_truth")
        config[name] = st.column_config.TextColumn(
            COLUMN_LABELS[name],
            help=COLUMN_HELP[name],
            width="large" if wide else "medium",
            required=name == "output",
        )
    return config


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
        f"{page.label()}. Click a cell to edit it; text that starts with {{ or [ is read "
        "as JSON. Add a row at the bottom; select rows to delete them. Nothing is stored "
        "until you save."
    )
    key = grid_key(dataset.id, page.page)
    # Named columns of text: an empty page still has every column to add rows in.
    import pandas as pd  # loaded with Streamlit anyway

    table = pd.DataFrame(
        [{"id": row.id, **row.cells} for row in page.rows],
        columns=["id", *EXAMPLE_FIELDS],
        dtype=object,
    )
    st.data_editor(
        table,
        key=key.name,
        num_rows="dynamic",
        hide_index=True,
        height=min(38 * (len(page.rows) + 2), 640),
        disabled=["id"],
        column_config=_columns(),
        width="stretch",
    )
    changes = changes_from_editor(page.rows, state.peek(key))
    _actions(dataset, page, changes)


def _actions(dataset: DatasetRow, page: ExamplePage, changes: GridChanges) -> None:
    save, discard, summary = st.columns([1, 1, 3], vertical_alignment="center")
    if save.button(
        "Save changes",
        key=state.EXAMPLES_SAVE.name,
        type="primary",
        disabled=changes.empty,
        icon=":material/save:",
    ):
        _save(dataset, page, changes)
    if discard.button("Discard changes", key=state.EXAMPLES_DISCARD.name, disabled=changes.empty):
        state.put(state.EXAMPLES_GRID_GEN, state.get(state.EXAMPLES_GRID_GEN) + 1)
        state.reset(state.EXAMPLES_GRID_PROBLEMS)
        st.rerun()
    summary.caption(f"Unsaved: {changes.summary()}." if not changes.empty else "No unsaved edits.")
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


def _save(dataset: DatasetRow, page: ExamplePage, changes: GridChanges) -> None:
    try:
        with services.writing() as session:
            result = save_changes(
                session,
                dataset_id=dataset.id,
                rows=page.rows,
                changes=changes,
                first_number=page.first_number or 1,
            )
    except GridSaveError as error:
        state.put(state.EXAMPLES_GRID_PROBLEMS, [str(p) for p in error.problems])
        st.rerun()
    state.reset(state.EXAMPLES_GRID_PROBLEMS)
    state.put(state.EXAMPLES_GRID_GEN, state.get(state.EXAMPLES_GRID_GEN) + 1)
    state.flash(result.sentence())
    st.rerun()
