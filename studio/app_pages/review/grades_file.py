"""Grades as a CSV file: download the latest grade of each example, or import a file of them."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.datasets import ImportFailure
from studio import state
from studio.app_pages.review import data
from studio.words import plural

_MAPPED = {
    "example_id": "Example id",
    "grade": "Grade (a score or a grade's name)",
    "grader": "Who graded it",
    "note": "Note (optional)",
    "time": "When it was graded (optional)",
}
"""The fields a person maps to the file's columns (grade_name is read when grade is empty)."""
_NONE = "(none)"


def _default_column(field: str, columns: list[str]) -> str:
    if field in columns:
        return field
    if field == "grade" and "grade_name" in columns:
        return "grade_name"
    return _NONE


def _render_mapping(columns: list[str]) -> None:
    """One picker per field: which column holds it (the same name by default)."""
    st.markdown("**Which column holds what**")
    for column, (field, label) in zip(st.columns(len(_MAPPED)), _MAPPED.items(), strict=True):
        key = state.REVIEW_MAP.child(field)
        options = [_NONE, *columns]
        if state.peek(key) not in options:
            state.put(key, _default_column(field, columns))
        column.selectbox(label, options, key=key.name)


def _mapping() -> dict[str, str]:
    mapping = {}
    for field in _MAPPED:
        chosen = state.peek(state.REVIEW_MAP.child(field))
        if chosen and chosen != _NONE:
            mapping[field] = str(chosen)
    return mapping


def _import(scorer_id: int) -> None:
    upload = state.peek(state.REVIEW_UPLOAD)
    if upload is None:
        state.put(state.REVIEW_IMPORT_REPORT, ("error", "Choose a file to import first."))
        return
    try:
        result = data.import_grades(scorer_id, upload.getvalue(), upload.name, _mapping())
    except ImportFailure as e:
        state.put(state.REVIEW_IMPORT_REPORT, ("error", str(e)))
        return
    text = result.words(upload.name)
    if result.skipped:
        rows = "\n".join(f"- {issue}" for issue in result.skipped)
        text += f" Left out {plural(len(result.skipped), 'row')}:\n{rows}"
    state.put(state.REVIEW_IMPORT_REPORT, ("ok", text))


def render_grades_file(scorer_id: int, scorer_name: str) -> None:
    report = state.get(state.REVIEW_IMPORT_REPORT)
    busy = report is not None or state.peek(state.REVIEW_UPLOAD) is not None
    # Open while a file is being imported, so what the import did is seen (the page above
    # changes when grades arrive, and the expander would otherwise be drawn closed again).
    with st.expander("Grades as a file (CSV): download or import", expanded=busy):
        st.markdown(
            "The file has one row per graded example: **example_id**, a short **input** and "
            "**output**, the **grade** (its score) and **grade_name**, the **note**, the "
            "**grader** and the **time** it was graded. A file with the columns example_id, "
            "grade (a score or a grade's name), grader and an optional note and time imports "
            "back. Each grade keeps its time (UTC unless it says its zone), so the latest grade "
            "of an example stays the latest, and a grade already stored is not added again. "
            "Rows that cannot be read are listed by their line and the others are imported."
        )
        st.download_button(
            "Download the grades",
            data=data.grades_csv(scorer_id),
            file_name=f"{scorer_name}-grades.csv",
            mime="text/csv",
            key=state.REVIEW_DOWNLOAD.name,
            icon=":material/download:",
        )
        upload = st.file_uploader(
            "A grades file to import", type=["csv"], key=state.REVIEW_UPLOAD.name
        )
        if upload is not None:
            columns = data.file_columns(upload.getvalue(), upload.name)
            if columns:
                _render_mapping(columns)
        st.button(
            "Import the grades",
            key=state.REVIEW_IMPORT_GO.name,
            on_click=_import,
            args=(scorer_id,),
            icon=":material/upload:",
        )
        if report is not None:
            kind, text = report
            (st.success if kind == "ok" else st.error)(text)
