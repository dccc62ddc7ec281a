"""The "Judge…" panel of a scorer: use one of the saved judges (a new version), or keep its
judge and paste the key it needs. Where a missing key is reported elsewhere (Runs, Traces),
the link leads here for a scorer that carries its own judge settings."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.store import StoreError
from scorer_runtime.store.views import ScorerLine
from studio import services, state
from studio.app_pages.judges.logic.keys import PastedKeyError, use_key
from studio.app_pages.scorers import data
from studio.app_pages.scorers.judge_logic import (
    JudgeNow,
    judge_now,
    key_words,
    profile_words,
)
from studio.widgets.common import show_error
from studio.widgets.judge_fix import open_judge

JUDGES_PAGE = "app_pages/judges/page.py"


def render_judge_choice(line: ScorerLine) -> None:
    """The panel: which judge the scorer uses, the saved judges to use instead, a key box."""
    sid = line.scorer_id
    key = state.SCORERS_JUDGE.child(sid)
    read = data.judge_read(sid)
    saved = read.saved
    now = None if read.spec is None else judge_now(read.spec, read.profiles, services.env_is_set)
    with st.container(border=True):
        st.markdown(f"**The judge of “{line.display_name}”**")
        if now is None:
            st.info(
                "This scorer asks no judge: none of its steps needs one.", icon=":material/info:"
            )
            st.button("Close", key=key.child("close").name, on_click=_close)
            return
        st.markdown(now.sentence())
        _choose_saved(line, now, saved, key=key)
        if now.missing and now.profile is None:
            _paste_key(now.missing[0], key=key.child("paste"))
        elif (
            now.missing
            and now.profile is not None
            and st.button(
                f"Or add the key to the judge {now.profile}",
                key=key.child("open").name,
                icon=":material/key:",
                help="Opens the Judges page on this judge, where its key is pasted.",
            )
        ):
            open_judge(now.profile)
        st.button("Close", key=key.child("close").name, on_click=_close)


def _close() -> None:
    state.reset(state.SCORERS_PENDING)


def _choose_saved(
    line: ScorerLine, now: JudgeNow, saved: dict[str, dict[str, object]], *, key: state.Key
) -> None:
    if not saved:
        st.info(
            "No judge is saved yet. Set one up on the Judges page (any provider, or a model "
            "on your own computer), then come back here and choose it.",
            icon=":material/gavel:",
        )
        st.page_link(
            JUDGES_PAGE, label="Set up a judge on the Judges page", icon=":material/gavel:"
        )
        return
    names = sorted(saved)
    choice = st.selectbox(
        "Use this saved judge instead",
        names,
        index=names.index(now.profile) if now.profile in saved else 0,
        format_func=lambda n: profile_words(n, saved[n]),
        key=key.child("pick").name,
        help="Its model, address, key, retries and prices are used for every step of this "
        "scorer that asks the judge. Judges are set up on the Judges page.",
    )
    st.caption(key_words(saved[str(choice)], services.env_is_set))
    keep = st.checkbox(
        "Keep this scorer's own instructions for the judge, and what it hides from it",
        value=True,
        key=key.child("keep").name,
        disabled=now.profile is not None,
        help="On: the judge still reads this scorer's instructions (what to grade, and how), "
        "and personal data, long prompts and unwanted answers are handled as before; only how "
        "the judge is reached changes. Off: the saved judge's own instructions apply.",
    )
    if choice == now.profile:
        st.caption(f"It uses {choice} already: choose another saved judge to change it.")
    if st.button(
        f"Use {choice}",
        key=key.child("use").name,
        type="primary",
        disabled=choice == now.profile,
        icon=":material/gavel:",
        help="Saves a new version of the scorer that uses this judge; earlier versions and "
        "their scores stay as they are.",
    ):
        _use(line, str(choice), keep=keep)


def _use(line: ScorerLine, profile: str, *, keep: bool) -> None:
    try:
        number = data.use_judge(line.scorer_id, profile, keep_own=keep)
    except (StoreError, ValueError) as error:  # shown in plain words; nothing was saved
        show_error(error)
        return
    state.reset(state.SCORERS_PENDING)
    state.flash(f"“{line.display_name}” now uses the judge {profile}: saved as version {number}.")
    st.rerun()


def _paste_key(env: str, *, key: state.Key) -> None:
    with st.expander(f"Or keep its judge and paste the key for {env}", key=key.child("box").name):
        st.caption(
            f"`{env}` is the name of the setting (environment variable) the key is read from. "
            "The key is kept in the studio's memory until it stops, never in the database, an "
            "export or a log, and never shown again."
        )
        box, go = st.columns([3, 1], vertical_alignment="bottom")
        box.text_input("API key", key=key.child("value").name, type="password", placeholder="sk-…")
        go.button("Use this key", key=key.child("use").name, on_click=_use_pasted, args=(env, key))
    problem = state.peek(key.child("problem"))
    if problem:
        st.error(problem, icon=":material/error:")


def _use_pasted(env: str, key: state.Key) -> None:
    # A callback: it empties the password box before the box is drawn again.
    pasted = str(state.peek(key.child("value")) or "")
    state.put(key.child("value"), "")
    try:
        outcome = use_key(env, pasted, remember=False)
    except PastedKeyError as error:
        state.put(key.child("problem"), str(error))
        return
    state.forget(key.child("problem"))
    state.reset(state.SCORERS_PENDING)
    state.flash(outcome.sentence(), icon=":material/key:")
