"""What can be done with the judge in the form: save it, test its connection, delete it
(after a question that names the scorers using it)."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from scorer_runtime.store import StoreError
from studio import state
from studio.app_pages.judges import data
from studio.app_pages.judges.data import Profile
from studio.app_pages.judges.form import load_form, new_judge, read_form
from studio.app_pages.judges.logic import (
    ConnectionResult,
    JudgeFormError,
    check_connection,
    judge_spec,
    refusal,
)
from studio.words import noun, plural


def _problems(
    error: JudgeFormError | StoreError, *, saving: bool, new: bool, saved: Sequence[str]
) -> None:
    problems = error.problems if isinstance(error, JudgeFormError) else [str(error)]
    said = refusal(problems, saving=saving, new=new, saved=saved)
    listed = "\n".join(f"- {p}" for p in said.problems)
    st.error(f"**{said.title}.**\n\n{listed}", icon=":material/error:")
    st.info(said.what_to_do, icon=":material/lightbulb:")


def buttons(profile: Profile | None, saved: Sequence[str] = ()) -> None:
    """Save, Test connection and (for a saved judge) Delete, with their outcomes; ``saved``
    names the saved judges (what to choose instead of filling in a new one)."""
    kept = {} if profile is None else profile.form().kept
    save, test, delete, _ = st.columns([1, 1, 1, 2])
    if save.button(
        "Save judge", key=state.JUDGES_SAVE.name, type="primary", icon=":material/save:"
    ):
        _save(profile, kept, saved)
    if test.button(
        "Test connection",
        key=state.JUDGES_TEST.name,
        icon=":material/network_check:",
        help="Sends one tiny question to the judge with the settings above (saved or not) "
        "and says how it went. It costs one very small request.",
    ):
        _test(kept, new=profile is None, saved=saved)
    if profile is not None and delete.button(
        "Delete…", key=state.JUDGES_DELETE.name, icon=":material/delete:"
    ):
        state.put(state.JUDGES_CONFIRM_DELETE, profile.name)
    connection_outcome()
    if profile is not None and state.get(state.JUDGES_CONFIRM_DELETE) == profile.name:
        _confirm_delete(profile)


def _save(profile: Profile | None, kept: dict[str, object], saved: Sequence[str]) -> None:
    form = read_form(kept)
    try:
        record = data.save(form, new=profile is None)
    except (JudgeFormError, StoreError) as error:
        _problems(error, saving=True, new=profile is None, saved=saved)
        return
    state.put(state.JUDGES_SELECTED, record.name)
    state.flash(f"Saved the judge {record.name}.")
    st.rerun()


def _test(kept: dict[str, object], *, new: bool, saved: Sequence[str]) -> None:
    try:
        spec = judge_spec(read_form(kept))
    except JudgeFormError as error:
        _problems(error, saving=False, new=new, saved=saved)
        return
    with st.spinner("Asking the judge a tiny question…"):
        state.put(state.JUDGES_CONNECTION, check_connection(spec))


def connection_outcome() -> None:
    """The last connection test's outcome, in plain words."""
    result: ConnectionResult | None = state.get(state.JUDGES_CONNECTION)
    if result is None:
        return
    if result.status == "connected":
        st.success(result.title, icon=":material/check_circle:")
    elif result.status == "format":
        st.warning(f"**{result.title}.** {result.detail}", icon=":material/warning:")
        st.info(result.what_to_do, icon=":material/lightbulb:")
    else:
        detail = f" {result.detail}" if result.detail else ""
        st.error(f"**{result.title}.**{detail}", icon=":material/error:")
        st.info(result.what_to_do, icon=":material/lightbulb:")
    if result.answer is not None:
        with st.expander("The judge's answer", key=state.JUDGES_TEST_ANSWER.name):
            st.code(result.answer, language="json", wrap_lines=True)


def _confirm_delete(profile: Profile) -> None:
    if profile.uses:
        listed = "\n".join(f"- {use.sentence()}" for use in profile.uses)
        st.warning(
            f"**{plural(len(profile.uses), 'scorer')} {noun(len(profile.uses), 'uses', 'use')} "
            f"the judge {profile.name}:**\n\n{listed}\n\nAfter deleting it, those versions "
            "cannot run until you choose another judge for them, or save a judge with this "
            "name again.",
            icon=":material/warning:",
        )
    else:
        st.warning(
            f"Delete the judge **{profile.name}**? No scorer uses it.", icon=":material/warning:"
        )
    yes, no, _ = st.columns([1, 1, 3])
    yes.button(
        "Yes, delete it",
        key=state.JUDGES_DELETE_YES.name,
        type="primary",
        on_click=_delete,
        args=(profile.name,),
    )
    if no.button("Cancel", key=state.JUDGES_DELETE_NO.name):
        state.reset(state.JUDGES_CONFIRM_DELETE)
        st.rerun()


def _delete(name: str) -> None:
    # A callback: it runs before the page is drawn, so it may reset the form's widgets.
    data.delete(name)
    state.reset(state.JUDGES_CONFIRM_DELETE)
    state.reset(state.JUDGES_SELECTED)
    state.reset(state.JUDGES_CONNECTION)
    load_form(new_judge())
    state.flash(f"Deleted the judge {name}.")
