"""Importing a CSV or JSONL file: a preview of its first rows, which column is which field,
every bad row with its line before anything is written, and skip-or-all-or-nothing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from scorer_runtime.datasets import ImportFailure
from scorer_runtime.store import EXAMPLE_FIELDS, StoreError
from scorer_runtime.store.views import DatasetRow
from studio import state
from studio.app_pages.examples import data as examples_data
from studio.app_pages.examples.logic import (
    FIELD_LABELS,
    can_leave_out,
    check_file,
    decode_upload,
    file_format,
    guess_mapping,
    preview_file,
)
from studio.words import plural

NOT_IN_FILE = "(not in the file)"
MODES = {
    "all": "Import nothing unless every row is good",
    "skip": "Skip the bad rows and import the rest",
}
FORMATS_HELP = (
    "**CSV**: a header row, then one example per row. Columns named input, output, "
    "ground_truth, request_context and tags are found by themselves; others you map below. "
    "A cell that starts with { or [ is read as JSON.\n\n"
    '**JSONL**: one JSON object per line, e.g. `{"input": "…", "output": "…"}`.\n\n'
    "Every example needs an **output** (the answer to score). The file must be text in "
    "UTF-8 (in Excel: *Save as → CSV UTF-8*) or UTF-16 (Excel's *Unicode Text*)."
)


@dataclass(frozen=True, slots=True)
class FileCheck:
    """What the whole file gives with the chosen columns (kept small for the cache)."""

    good: int
    issues: list[str]
    fatal: bool
    left_out: tuple[str, ...] = ()
    """What the file holds that no field reads (columns or keys), in sentences."""


@st.cache_data(show_spinner=False, max_entries=4)
def _check(data: bytes, filename: str, mapping: tuple[tuple[str, str], ...]) -> FileCheck:
    text = decode_upload(data, filename)
    checked = check_file(text, file_format(filename), dict(mapping))
    issues = [str(i) for i in checked.issues]
    return FileCheck(checked.good, issues, checked.fatal, tuple(checked.left_out))


def _mapping(columns: list[str]) -> dict[str, str]:
    st.markdown("**Which column holds what?**")
    guessed = guess_mapping(columns)
    mapping: dict[str, str] = {}
    cells = st.columns(len(EXAMPLE_FIELDS))
    for cell, name in zip(cells, EXAMPLE_FIELDS, strict=True):
        options = ([] if not can_leave_out(name, columns) else [NOT_IN_FILE]) + columns
        default = guessed.get(name, NOT_IN_FILE if NOT_IN_FILE in options else columns[0])
        chosen = cell.selectbox(
            FIELD_LABELS[name],
            options,
            index=options.index(default),
            key=state.EXAMPLES_MAP.child(name).name,
            help="The column (CSV) or key (JSONL) of the file that holds this field."
            + ("" if can_leave_out(name, columns) or name == "output" else _SAME_NAME),
        )
        if chosen != NOT_IN_FILE:
            mapping[name] = str(chosen)
    return mapping


_SAME_NAME = " A column with exactly this field's name is always read as this field."


def _forget_old_choices(signature: tuple[str, int]) -> None:
    """A new file: the column choices of the previous one no longer apply."""
    if state.get(state.EXAMPLES_IMPORT_FILE) != signature:
        for name in EXAMPLE_FIELDS:
            state.forget(state.EXAMPLES_MAP.child(name))
        state.put(state.EXAMPLES_IMPORT_NAME, Path(signature[0]).stem)
        state.put(state.EXAMPLES_IMPORT_FILE, signature)


def upload_key() -> state.Key:
    """The uploader's key: renewed after an import, so the imported file leaves the screen
    (and its Import button with it) instead of inviting a second click."""
    return state.EXAMPLES_IMPORT_UPLOAD.child(state.get(state.EXAMPLES_IMPORT_GEN))


def import_section(current: DatasetRow | None) -> None:
    """The whole import flow; ``current`` is the dataset rows can be added to."""
    with st.expander("What files can I import?", key=state.EXAMPLES_IMPORT_FORMATS.name):
        st.markdown(FORMATS_HELP)
    _report()
    upload = st.file_uploader(
        "CSV or JSONL file",
        type=["csv", "jsonl", "ndjson"],
        key=upload_key().name,
        help="Examples to add: one per row (CSV) or per line (JSONL).",
    )
    if upload is None:
        return
    data, filename = upload.getvalue(), upload.name
    try:
        fmt = file_format(filename)
        text = decode_upload(data, filename)
    except ValueError as error:
        _failure(error)
        return
    _forget_old_choices((filename, len(data)))
    preview = preview_file(text, fmt)
    st.markdown(f"**First rows of the file** ({fmt.upper()})")
    st.dataframe(preview.rows, hide_index=True, key=state.EXAMPLES_IMPORT_PREVIEW.name)
    columns = preview.columns
    if not columns:
        st.error("The file has no columns to read: it is empty or not a CSV/JSONL file.")
        return
    mapping = _mapping(columns)
    check = _check(data, filename, tuple(sorted(mapping.items())))
    _show_check(check)
    if check.fatal:
        return
    _target_and_go(data, filename, mapping, check, current)


def _show_check(check: FileCheck) -> None:
    if check.fatal:
        st.error(
            "**This file cannot be imported.**\n\n" + "\n".join(f"- {i}" for i in check.issues),
            icon=":material/error:",
        )
        st.info("Fix the file (or the column choices above) and upload it again.")
        return
    for sentence in check.left_out:  # said before importing, not only after
        st.info(sentence, icon=":material/info:")
    bad = len(check.issues)
    message = f"{check.good:,} examples are ready to import"
    if not bad:
        st.success(message + ".", icon=":material/check_circle:")
        return
    st.warning(
        f"{message}; **{plural(bad, 'row has', 'rows have')} problems**:\n\n"
        + "\n".join(f"- {i}" for i in check.issues[:50])
        + (f"\n- … and {bad - 50:,} more" if bad > 50 else ""),
        icon=":material/warning:",
    )


def _target_and_go(
    data: bytes,
    filename: str,
    mapping: dict[str, str],
    check: FileCheck,
    current: DatasetRow | None,
) -> None:
    labels = {"new": "A new dataset"}
    if current is not None:
        labels["append"] = f"“{current.name}” (add rows to it)"
    target = st.radio(
        "Import into",
        list(labels),
        format_func=labels.__getitem__,
        key=state.EXAMPLES_IMPORT_TARGET.name,
        horizontal=True,
        help="A new dataset keeps this file's examples together; adding appends them.",
    )
    name = current.name if target == "append" and current else None
    if target == "new":
        if not state.has(state.EXAMPLES_IMPORT_NAME):  # forgotten while hidden
            state.put(state.EXAMPLES_IMPORT_NAME, Path(filename).stem)
        name = st.text_input(
            "Name of the new dataset",
            key=state.EXAMPLES_IMPORT_NAME.name,
            help="Defaults to the file's name; it must not be taken by another dataset.",
        )
    mode = st.radio(
        "If some rows have problems",
        list(MODES),
        format_func=MODES.__getitem__,
        key=state.EXAMPLES_IMPORT_MODE.name,
        help="All or nothing keeps a dataset complete; skipping imports what is usable "
        "and lists what was left out.",
    )
    _go(data, filename, mapping, check, name or "", mode == "skip", target == "append")


def _go(
    data: bytes,
    filename: str,
    mapping: dict[str, str],
    check: FileCheck,
    name: str,
    skip: bool,
    append: bool,
) -> None:
    count = check.good if (skip or not check.issues) else 0
    if st.button(
        f"Import {count:,} examples" if count else "Import",
        key=state.EXAMPLES_IMPORT_GO.name,
        type="primary",
        disabled=check.good == 0,
        icon=":material/upload:",
    ):
        _run_import(data, filename, mapping, name, skip, append)
    if check.issues and not skip:
        st.caption(
            "As chosen, nothing will be imported while rows have problems: fix them in the "
            "file and upload it again, or choose to skip the bad rows."
        )


def _run_import(
    data: bytes, filename: str, mapping: dict[str, str], name: str, skip: bool, append: bool
) -> None:
    try:
        result = examples_data.import_file(
            data,
            filename,
            dataset_name=name,
            mapping=mapping,
            skip_bad_rows=skip,
            append=append,
        )
    except ImportFailure as error:
        report = {"ok": False, "issues": [str(i) for i in error.issues], "file": filename}
    except (StoreError, ValueError) as error:
        report = {"ok": False, "error": str(error), "file": filename}
    else:
        report = {
            "ok": True,
            "words": result.words(filename),
            "imported": result.imported,
            "skipped": [str(i) for i in result.skipped],
            "file": filename,
        }
        state.put(state.SELECTED_DATASET_ID, result.dataset_id)
        state.flash(result.words(filename), icon=_icon(result.imported))
        state.forget(upload_key())  # the file is done with: the uploader starts empty
        state.put(state.EXAMPLES_IMPORT_GEN, state.get(state.EXAMPLES_IMPORT_GEN) + 1)
    state.put(state.EXAMPLES_IMPORT_REPORT, report)
    st.rerun()


def _report() -> None:
    report = state.get(state.EXAMPLES_IMPORT_REPORT)
    if not report:
        return
    if report["ok"]:
        skipped = report["skipped"]
        text = report["words"]
        if skipped:
            text += f" Skipped {len(skipped):,} rows:\n\n" + "\n".join(f"- {s}" for s in skipped)
        (st.success if report["imported"] else st.info)(text, icon=_icon(report["imported"]))
    elif "issues" in report:
        issues = report["issues"]
        st.error(
            f"**Nothing was imported from {report['file']}: "
            f"{plural(len(issues), 'row has', 'rows have')} problems.**\n\n"
            + "\n".join(f"- {i}" for i in issues[:50]),
            icon=":material/error:",
        )
        st.info(
            "Fix these lines in the file and upload it again, or choose "
            "“Skip the bad rows and import the rest”.",
            icon=":material/lightbulb:",
        )
    else:
        st.error(f"**Nothing was imported.** {_sentence(report['error'])}", icon=":material/error:")
        st.info("Change what the message names, then import again.", icon=":material/lightbulb:")
    if st.button("Dismiss", key=state.EXAMPLES_IMPORT_DISMISS.name):
        state.reset(state.EXAMPLES_IMPORT_REPORT)
        st.rerun()


def _icon(imported: int) -> str:
    """A tick when rows were added; an "i" when the file was already stored."""
    return ":material/check_circle:" if imported else ":material/info:"


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "."


def _failure(error: Exception) -> None:
    if isinstance(error, ImportFailure):
        st.error(
            "**This file cannot be imported.**\n\n" + "\n".join(f"- {i}" for i in error.issues),
            icon=":material/error:",
        )
        return
    st.error(f"**This file cannot be imported.** {_sentence(str(error))}", icon=":material/error:")
    st.info("Upload a .csv, .jsonl or .ndjson file saved as UTF-8.", icon=":material/lightbulb:")
