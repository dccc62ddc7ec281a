"""Datasets on the Examples page: choosing one, creating one, the overview, renaming,
archiving (after a question that says what is affected) and restoring."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.store import StoreError
from scorer_runtime.store.views import DatasetRow
from studio import state
from studio.app_pages.examples import data as examples_data
from studio.widgets.common import empty_state, show_error
from studio.words import plural

TABS = ("Examples", "Import a file", "Export", "Settings")
WHAT_IS_AN_EXAMPLE = (
    "**An example is one answer to judge.** It holds the *input* (what the user asked), the "
    "*output* (what your AI answered) and, when you know it, the *ground truth* (the right "
    "answer). A **dataset** is a set of examples you score together, so you can compare "
    "scorers, judges and versions on the same answers."
)


def open_import() -> None:
    """Switch to the import tab (a button callback)."""
    state.put(state.EXAMPLES_TAB, "Import a file")


def _load_demo() -> None:
    try:
        loaded = examples_data.load_demo_datasets()
    except Exception as error:  # shown on the page, never a traceback
        state.flash(f"The demo datasets could not be loaded: {error}", icon=":material/error:")
        return
    if loaded:
        state.flash(f"Loaded the demo datasets: {', '.join(loaded)}.")
    else:
        state.flash("The demo datasets are already here.", icon=":material/info:")


def empty_page() -> None:
    """What an example is, and the two ways to get some."""
    empty_state(
        WHAT_IS_AN_EXAMPLE
        + "\n\nThere are no datasets yet. Import a CSV or JSONL file of your own, or load "
        "the demo datasets (customer-support answers, RAG answers with sources, agent tool "
        "calls) to look around."
    )
    left, right, _ = st.columns([1, 1, 2])
    left.button(
        "Import a file",
        key=state.EXAMPLES_EMPTY_IMPORT.name,
        type="primary",
        on_click=open_import,
        icon=":material/upload_file:",
    )
    right.button(
        "Load the demo datasets",
        key=state.EXAMPLES_LOAD_DEMO.name,
        on_click=_load_demo,
        icon=":material/dataset:",
    )


def _on_pick() -> None:
    state.put(state.SELECTED_DATASET_ID, state.peek(state.EXAMPLES_DATASET))
    state.reset(state.EXAMPLES_CONFIRM_ARCHIVE)
    state.reset(state.EXAMPLES_GRID_PROBLEMS)


def _label(row: DatasetRow) -> str:
    return f"{row.name} ({plural(row.examples, 'example')})"


def picker(rows: list[DatasetRow]) -> DatasetRow:
    """The dataset selector; the choice is kept in ``SELECTED_DATASET_ID``, which other pages
    may set to open a dataset here."""
    ids = [row.id for row in rows]
    by_id = {row.id: row for row in rows}
    wanted = state.get(state.SELECTED_DATASET_ID)
    if state.peek(state.EXAMPLES_DATASET) not in ids:
        state.put(state.EXAMPLES_DATASET, wanted if wanted in ids else ids[0])
    elif wanted in ids and wanted != state.peek(state.EXAMPLES_DATASET):
        state.put(state.EXAMPLES_DATASET, wanted)  # another page chose a dataset
    labels = {row.id: _label(row) for row in rows}
    if state.get(state.EXAMPLES_PICKER_LABELS) != labels:
        # The browser keeps the choice as its label: after a count changed it would show the
        # old label and, at the next click anywhere, send a label that no longer exists (the
        # picker then fell back to the first dataset). Setting the value again sends the new
        # label with it.
        state.put(state.EXAMPLES_PICKER_LABELS, labels)
        state.put(state.EXAMPLES_DATASET, state.peek(state.EXAMPLES_DATASET))
    chosen = st.selectbox(
        "Dataset",
        ids,
        format_func=lambda i: labels[i],
        key=state.EXAMPLES_DATASET.name,
        on_change=_on_pick,
        help="The set of examples to look at, edit, import into or export.",
    )
    state.put(state.SELECTED_DATASET_ID, chosen)
    return by_id[int(chosen)]


def _create() -> None:
    name = state.peek(state.EXAMPLES_NEW_NAME, "")
    description = state.peek(state.EXAMPLES_NEW_DESCRIPTION, "")
    try:
        record = examples_data.create(name, description)
    except StoreError as error:
        words = str(error)  # capitalize() would lower the name it quotes
        state.put(state.EXAMPLES_CREATE_ERROR, f"{words[:1].upper()}{words[1:]}.")
        return
    state.reset(state.EXAMPLES_CREATE_ERROR)
    state.put(state.EXAMPLES_NEW_NAME, "")
    state.put(state.EXAMPLES_NEW_DESCRIPTION, "")
    state.put(state.SELECTED_DATASET_ID, record.id)
    state.put(state.EXAMPLES_NEW, False)  # close the popover: the new dataset is chosen
    state.flash(f"Created the dataset {record.name}. Add rows in the grid or import a file.")


def create_form() -> None:
    """A small form for a new, empty dataset."""
    with st.popover(
        "New dataset", icon=":material/add:", key=state.EXAMPLES_NEW.name, on_change="rerun"
    ):
        st.text_input(
            "Name",
            key=state.EXAMPLES_NEW_NAME.name,
            placeholder="support-answers-june",
            help="A short name you will recognise in lists of runs and results.",
        )
        st.text_area(
            "Description (optional)",
            key=state.EXAMPLES_NEW_DESCRIPTION.name,
            placeholder="Answers of the support bot sampled in June, labelled by the QA team.",
            help="What these examples are and where they come from.",
        )
        st.button(
            "Create dataset", key=state.EXAMPLES_NEW_CREATE.name, type="primary", on_click=_create
        )
        problem = state.get(state.EXAMPLES_CREATE_ERROR)
        if problem:
            st.error(problem, icon=":material/error:")


def overview(rows: list[DatasetRow]) -> None:
    """Every dataset with its size, in a small table."""
    with st.expander(f"All datasets ({len(rows)})", key=state.EXAMPLES_OVERVIEW.name):
        st.dataframe(
            [
                {
                    "Dataset": row.name,
                    "Examples": row.examples,
                    "Description": row.description,
                    "Created": row.created_at.strftime("%Y-%m-%d"),
                }
                for row in rows
            ],
            hide_index=True,
            key=state.EXAMPLES_OVERVIEW_TABLE.name,
        )


def settings(dataset: DatasetRow) -> None:
    """Rename and describe the dataset; archive it after a question."""
    name = st.text_input(
        "Name",
        value=dataset.name,
        key=state.EXAMPLES_RENAME.child(dataset.id).name,
        help="Runs and results keep pointing at the dataset when you rename it.",
    )
    description = st.text_area(
        "Description",
        value=dataset.description,
        key=state.EXAMPLES_DESCRIBE.child(dataset.id).name,
        help="What these examples are and where they come from.",
    )
    if st.button("Save name and description", key=state.EXAMPLES_RENAME_SAVE.name):
        try:
            examples_data.rename(dataset.id, name, description)
        except StoreError as error:
            show_error(error)
        else:
            state.flash("Saved the dataset's name and description.")
            st.rerun()
    st.divider()
    _archive(dataset)


def _archive(dataset: DatasetRow) -> None:
    st.markdown("**Archive this dataset**")
    if state.get(state.EXAMPLES_CONFIRM_ARCHIVE) != dataset.id:
        st.caption("Hides the dataset from lists; nothing is deleted and it can be restored.")
        if st.button("Archive…", key=state.EXAMPLES_ARCHIVE.name, icon=":material/archive:"):
            state.put(state.EXAMPLES_CONFIRM_ARCHIVE, dataset.id)
            st.rerun()
        return
    impact = examples_data.impact(dataset.id)
    st.warning(impact.sentence(dataset.name), icon=":material/warning:")
    yes, no, _ = st.columns([1, 1, 3])
    if yes.button("Yes, archive it", key=state.EXAMPLES_ARCHIVE_YES.name, type="primary"):
        examples_data.set_archived(dataset.id, True)
        state.reset(state.EXAMPLES_CONFIRM_ARCHIVE)
        state.reset(state.SELECTED_DATASET_ID)
        state.flash(f"Archived {dataset.name}. Restore it from Settings → Archived datasets.")
        st.rerun()
    if no.button("Cancel", key=state.EXAMPLES_ARCHIVE_NO.name):
        state.reset(state.EXAMPLES_CONFIRM_ARCHIVE)
        st.rerun()


def archived() -> None:
    """The archived datasets, each with a button to bring it back."""
    rows = [row for row in examples_data.datasets(include_archived=True) if row.archived]
    if not rows:
        return
    with st.expander(f"Archived datasets ({len(rows)})", key=state.EXAMPLES_ARCHIVED.name):
        for row in rows:
            left, right = st.columns([3, 1])
            left.markdown(f"**{row.name}** · {row.examples:,} examples")
            if right.button("Restore", key=state.EXAMPLES_RESTORE.child(row.id).name):
                examples_data.set_archived(row.id, False)
                state.put(state.SELECTED_DATASET_ID, row.id)
                state.flash(f"Restored {row.name}.")
                st.rerun()
