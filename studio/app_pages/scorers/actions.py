"""What one can do with a scorer: open it in the builder, see its versions, choose its judge,
copy, export, archive (after saying what is kept) or bring it back."""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from scorer_runtime.store.views import ScorerLine
from studio import state
from studio.app_pages.scorers import data
from studio.app_pages.scorers.judge_choice import render_judge_choice
from studio.widgets.common import show_error


def render_actions(line: ScorerLine) -> None:
    """The row of action buttons of one scorer card."""
    sid = line.scorer_id
    is_open = state.get(state.SCORERS_OPEN_ID) == sid
    cols = st.columns([1.7, 1.1, 1, 1.1, 1, 1.1])  # room for the longest words
    if cols[0].button(
        "Open in the builder",
        key=state.SCORERS_OPEN.child(sid).name,
        icon=":material/edit:",
        help="Change this scorer; saving makes a new version, the old ones stay.",
        width="stretch",
    ):
        state.put(state.BUILDER_SCORER_ID, sid)
        state.put(state.CURRENT_SCORER_ID, sid)
        st.switch_page("app_pages/builder/page.py")
    if cols[1].button(
        "Hide versions" if is_open else "Versions",
        key=state.SCORERS_VERSIONS.child(sid).name,
        icon=":material/history:",
        help="Every saved version with its note, and what changed between two of them.",
        width="stretch",
    ):
        state.put(state.SCORERS_OPEN_ID, None if is_open else sid)
        st.rerun()
    if cols[2].button(
        "Judge…",
        key=state.SCORERS_JUDGE.child(sid).name,
        icon=":material/gavel:",
        help="Which judge this scorer asks: use one of your saved judges instead (a new "
        "version), or add the key its judge needs.",
        width="stretch",
    ):
        state.put(state.SCORERS_PENDING, ("judge", sid))
        st.rerun()
    if cols[3].button(
        "Duplicate",
        key=state.SCORERS_DUPLICATE.child(sid).name,
        icon=":material/content_copy:",
        help="A new scorer starting from a copy of the latest version.",
        width="stretch",
    ):
        state.put(state.SCORERS_PENDING, ("duplicate", sid))
        st.rerun()
    if cols[4].button(
        "Export",
        key=state.SCORERS_EXPORT.child(sid).name,
        icon=":material/ios_share:",
        help="As Python code for engineers, or as a JSON / YAML file.",
        width="stretch",
    ):
        state.put(state.EXPORT_SCORER_ID, sid)
        state.put(state.CURRENT_SCORER_ID, sid)
        st.switch_page("app_pages/export/page.py")
    _archive_button(cols[5], line)


def _archive_button(column: DeltaGenerator, line: ScorerLine) -> None:
    sid = line.scorer_id
    if line.archived:
        if column.button(
            "Bring back",
            key=state.SCORERS_RESTORE.child(sid).name,
            icon=":material/unarchive:",
            help="Show this scorer in the lists again.",
            width="stretch",
        ):
            _set_archived(sid, False, f"“{line.name}” is back in the lists.")
        return
    if column.button(
        "Archive",
        key=state.SCORERS_ARCHIVE.child(sid).name,
        icon=":material/archive:",
        help="Hide this scorer from lists. Asks first; nothing is deleted.",
        width="stretch",
    ):
        state.put(state.SCORERS_PENDING, ("archive", sid))
        st.rerun()


def _set_archived(scorer_id: int, archived: bool, message: str) -> None:
    try:
        data.set_archived(scorer_id, archived)
    except Exception as error:  # shown in plain words; nothing changed
        show_error(error)
        return
    state.reset(state.SCORERS_PENDING)
    state.flash(message)
    st.rerun()


def render_pending(line: ScorerLine) -> None:
    """The confirmation an action of this scorer is waiting for, if any."""
    pending = state.get(state.SCORERS_PENDING)
    if not pending or pending[1] != line.scorer_id:
        return
    if pending[0] == "archive":
        _confirm_archive(line)
    elif pending[0] == "duplicate":
        _ask_copy_name(line)
    elif pending[0] == "judge":
        render_judge_choice(line)


def _cancel() -> None:
    state.reset(state.SCORERS_PENDING)


def _confirm_archive(line: ScorerLine) -> None:
    sid = line.scorer_id
    impact = data.impact(sid)
    with st.container(border=True):
        st.warning(impact.sentence(), icon=":material/archive:")
        yes, no = st.columns(2)
        if yes.button(
            f"Yes, archive “{line.name}”",
            key=state.SCORERS_ARCHIVE_YES.child(sid).name,
            type="primary",
        ):
            _set_archived(sid, True, f"Archived “{line.name}”. Its versions and scores are kept.")
        no.button("Cancel", key=state.SCORERS_ARCHIVE_NO.child(sid).name, on_click=_cancel)


def _ask_copy_name(line: ScorerLine) -> None:
    sid = line.scorer_id
    key = state.SCORERS_COPY_NAME.child(sid)
    if not state.has(key):
        state.put(key, data.free_copy_name(line.name))
    with st.container(border=True):
        st.markdown(f"**Duplicate “{line.name}”** — the copy starts from its latest version.")
        name = st.text_input(
            "Name of the copy",
            key=key.name,
            help="Letters, digits, - _ and . — the copy scores under this name.",
            placeholder="e.g. tone-politeness-strict",
        )
        problem = data.name_problem(name)
        if problem and name.strip():
            st.caption(f":red[{problem}]")
        make, no = st.columns(2)
        if make.button(
            "Make the copy",
            key=state.SCORERS_COPY_YES.child(sid).name,
            type="primary",
            disabled=bool(problem),
        ):
            _duplicate(line, name.strip())
        no.button("Cancel", key=state.SCORERS_COPY_NO.child(sid).name, on_click=_cancel)


def _duplicate(line: ScorerLine, name: str) -> None:
    try:
        data.duplicate(line.scorer_id, name)
    except Exception as error:  # a name taken meanwhile, shown in plain words
        show_error(error)
        return
    state.reset(state.SCORERS_PENDING)
    state.forget(state.SCORERS_COPY_NAME.child(line.scorer_id))
    state.flash(f"Made “{name}”, a copy of “{line.name}”.")
    st.rerun()
