"""Import a scorer file (JSON or YAML): every problem listed first, then saved as a new scorer
or as a new version of an existing one."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from studio import state
from studio.app_pages.export import data
from studio.app_pages.export.logic import (
    ImportCheck,
    ImportMode,
)
from studio.widgets.common import show_error
from studio.words import plural, step_words

if TYPE_CHECKING:
    from scorer_runtime.spec import ScorerSpec

_MODES: dict[ImportMode, str] = {
    "new": "A new scorer",
    "version": "A new version of an existing scorer",
}


def render_import() -> None:
    """The upload, the check, and the choice of where to save."""
    upload = st.file_uploader(
        "Scorer file (JSON or YAML)",
        type=["json", "yaml", "yml"],
        key=state.EXPORT_UPLOAD.name,
        help="A file exported from Scorer Studio, or written by hand following the same format.",
    )
    if upload is None:
        st.caption(
            "Upload a scorer someone shared with you. Nothing is saved until you choose where "
            "it goes; every problem in the file is listed first."
        )
        return
    check = data.check(upload.getvalue(), upload.name)
    if not check.ok or check.spec is None:
        render_problems(check)
        return
    render_summary(check)
    render_save(check)


def render_problems(check: ImportCheck) -> None:
    """Every problem of the file, where it is in plain words and as a JSON path."""
    count = len(check.problems) + check.more
    st.error(
        f"**{check.file_name} cannot be imported: {plural(count, 'problem')}.** Nothing was saved.",
        icon=":material/error:",
    )
    for problem in check.problems:
        st.markdown(
            f"- **{problem.where}**: {problem.message}",
            help=f"JSON path: {problem.path or '(the whole file)'}",
        )
    if check.more:
        st.markdown(f"- … and {check.more:,} more")
    st.info(
        "Fix each problem in the file (line numbers and field names are given above) and "
        "upload it again. Exporting the scorer again from the studio it came from gives a "
        "file without problems.",
        icon=":material/lightbulb:",
    )


def render_summary(check: ImportCheck) -> None:
    """What the file holds, in plain words."""
    spec = check.spec
    assert spec is not None
    steps = ", ".join(step_words(s.step) for s in spec.steps)
    kind = "an agent scorer" if spec.type == "agent" else "a scorer"
    st.success(
        f"**{check.file_name}** holds {kind}, “{spec.display_name}”, with "
        f"{plural(len(spec.steps), 'step')}: {steps}. "
        "It has no problems.",
        icon=":material/check_circle:",
    )
    st.caption(spec.description)


def render_save(check: ImportCheck) -> None:
    """Save as a new scorer (named) or as the next version of a chosen scorer."""
    spec = check.spec
    assert spec is not None
    scorers = data.scorers()
    same_name = next((i for i, n in scorers.items() if n == spec.id), None)
    mode: ImportMode = (
        st.radio(
            "Save it as",
            list(_MODES),
            index=1 if same_name is not None else 0,
            format_func=_MODES.__getitem__,
            key=state.EXPORT_IMPORT_MODE.name,
            horizontal=True,
            help="A new version keeps the scorer's history; a new scorer starts its own.",
        )
        or "new"
    )
    name, target, problem = None, None, None
    if mode == "new":
        name, problem = _ask_name(spec)
    else:
        target = _ask_target(spec, scorers, same_name)
        if target is None:
            return
    note = st.text_input(
        "Note for this version",
        value=f"imported from {check.file_name}",
        key=state.EXPORT_IMPORT_NOTE.name,
        help="A few words on where this version comes from, shown in the version list.",
    )
    if st.button("Save", key=state.EXPORT_IMPORT_SAVE.name, type="primary", disabled=bool(problem)):
        _save(check, mode, name, target, note)


def _ask_name(spec: ScorerSpec) -> tuple[str, str | None]:
    """The new scorer's name, and why it cannot be used (None when it can)."""
    name = st.text_input(
        "Name of the new scorer",
        value=spec.id,
        key=state.EXPORT_IMPORT_NAME.name,
        help="Letters, digits, - _ and . The scorer's id becomes this name.",
    )
    problem = data.name_problem(name)
    if problem:
        st.caption(f":red[{problem}]")
    return name, problem


def _ask_target(spec: ScorerSpec, scorers: dict[int, str], same_name: int | None) -> int | None:
    """The scorer the file becomes a new version of; says when the file is a version it has."""
    ids = list(scorers)
    if not ids:
        st.info("There is no scorer yet to add a version to; save it as a new scorer.")
        return None
    target: int | None = st.selectbox(
        "New version of",
        ids,
        index=ids.index(same_name) if same_name in ids else 0,
        format_func=lambda i: scorers[i],
        key=state.EXPORT_IMPORT_TARGET.name,
        help="The file becomes this scorer's next version; earlier versions stay.",
    )
    if target is not None:
        same = data.same_stored_version(target, spec)
        if same is not None:
            st.info(
                f"This file is exactly version {same} of “{scorers[target]}”. Saving it "
                "makes it the latest version again (or changes nothing if it already is).",
                icon=":material/info:",
            )
    return target


def _save(
    check: ImportCheck, mode: ImportMode, name: str | None, target: int | None, note: str
) -> None:
    assert check.spec is not None
    try:
        saved = data.save(check.spec, mode=mode, name=name, scorer_id=target, note=note)
    except Exception as error:  # a name taken meanwhile, shown in plain words
        show_error(error)
        return
    if saved.unchanged:
        state.flash(
            f"“{saved.scorer_name}” version {saved.version} is already this file; nothing new "
            "was saved.",
            icon=":material/info:",
        )
    else:
        state.flash(f"Saved “{saved.scorer_name}” version {saved.version}.")
    st.rerun()
