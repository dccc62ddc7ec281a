"""Grades as a CSV file: download the latest grade of each example, or import a file of them
(a spreadsheet of question, answer and grade finds its examples by their content)."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.datasets import ImportFailure, label_columns
from studio import state
from studio.app_pages.review import data
from studio.words import plural

_WHICH = {
    "example_id": "Example id",
    "number": "Example number (#)",
    "input": "Input (the question)",
    "output": "Output (the answer)",
}
"""The fields that say which example a row grades: any one is enough (an id first)."""
_GRADE = {
    "grade": "Grade (a score or a grade's name)",
    "grader": "Who graded it (else you)",
    "note": "Note (optional)",
    "time": "When it was graded (optional)",
}
"""The fields of the grade itself (grade_name is read when grade is empty)."""
_NONE = "(none)"


def _upload_key() -> state.Key:
    """The uploader's key: renewed after an import, so the imported file leaves the screen."""
    return state.REVIEW_UPLOAD.child(state.get(state.REVIEW_IMPORT_GEN))


def _render_mapping(columns: list[str]) -> None:
    """One picker per field: which column holds it (found by its usual names by default)."""
    found = label_columns(columns, {})
    for title, fields in (("Which example each row grades", _WHICH), ("The grade", _GRADE)):
        st.markdown(f"**{title}**")
        for column, (field, label) in zip(st.columns(len(fields)), fields.items(), strict=True):
            key = state.REVIEW_MAP.child(field)
            options = [_NONE, *columns]
            if state.peek(key) not in options:
                state.put(key, found.get(field, _NONE))
            column.selectbox(label, options, key=key.name)


def _mapping() -> dict[str, str]:
    """The columns chosen; a field set to none is not read from any column."""
    mapping = {}
    for field in (*_WHICH, *_GRADE):
        chosen = state.peek(state.REVIEW_MAP.child(field))
        if chosen is not None:
            mapping[field] = "" if chosen == _NONE else str(chosen)
    return mapping


def _import(source: data.Source) -> None:
    upload = state.peek(_upload_key())
    if upload is None:
        state.put(state.REVIEW_IMPORT_REPORT, ("error", "Choose a file to import first."))
        return
    try:
        result = data.import_grades(
            source.scorer_id,
            upload.getvalue(),
            upload.name,
            _mapping(),
            dataset_id=source.dataset_id,
            grader=str(state.get(state.REVIEW_GRADER) or ""),
        )
    except ImportFailure as e:
        state.put(state.REVIEW_IMPORT_REPORT, ("error", str(e)))
        return
    text = result.words(upload.name)
    if result.skipped:
        rows = "\n".join(f"- {issue}" for issue in result.skipped)
        text += f" Left out {plural(len(result.skipped), 'row')}:\n{rows}"
    state.put(state.REVIEW_IMPORT_REPORT, ("ok", text))
    state.forget(_upload_key())  # the file is done with: the uploader starts empty
    state.put(state.REVIEW_IMPORT_GEN, state.get(state.REVIEW_IMPORT_GEN) + 1)


def render_grades_file(source: data.Source, scorer_name: str) -> None:
    """The download of the grades and the import of a grades file, in an expander."""
    report = state.get(state.REVIEW_IMPORT_REPORT)
    busy = report is not None or state.peek(_upload_key()) is not None
    # Open while a file is being imported, so what the import did is seen (the page above
    # changes when grades arrive, and the expander would otherwise be drawn closed again).
    with st.expander("Grades as a file (CSV): download or import", expanded=busy):
        st.markdown(
            "A spreadsheet of the **question**, the **answer** and a **grade** (a score or a "
            "grade's name) imports as it is: each row finds its example in these examples by "
            "its question and answer, or by its number in the dataset (1 for the first), or "
            "by an **example_id**. Columns for who graded, a note and when it was graded are "
            "optional (without one, the grades are yours). Rows that match no example, or "
            "several, are listed by their line and the others are imported; a grade already "
            "stored is not added again. "
            "The download has one row per graded example: example_id, a short input and "
            "output, grade and grade_name, note, grader and time (UTC unless it says its "
            "zone), and imports back as it is."
        )
        st.download_button(
            "Download the grades",
            data=data.grades_csv(source.scorer_id),
            file_name=f"{scorer_name}-grades.csv",
            mime="text/csv",
            key=state.REVIEW_DOWNLOAD.name,
            icon=":material/download:",
        )
        upload = st.file_uploader("A grades file to import", type=["csv"], key=_upload_key().name)
        if upload is not None:
            columns = data.file_columns(upload.getvalue(), upload.name)
            if columns:
                _render_mapping(columns)
        st.button(
            "Import the grades",
            key=state.REVIEW_IMPORT_GO.name,
            on_click=_import,
            args=(source,),
            icon=":material/upload:",
        )
        if report is not None:
            kind, text = report
            (st.success if kind == "ok" else st.error)(text)
