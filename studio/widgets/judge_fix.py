"""Where to fix a judge whose key is not set: the link under every "the judge's key is not set"
message (Runs, Traces).

A scorer that names a saved judge is fixed on the Judges page, with that judge open (its key
box is there). A scorer that carries its own judge settings has no entry on the Judges page:
the link opens the scorer's "Judge…" panel on the Scorers page, where the person picks one of
their saved judges, or pastes the key its own judge reads.
"""

from __future__ import annotations

import streamlit as st

from scorer_runtime.spec.judge_choice import judge_profile_in_use
from scorer_runtime.store import get_scorer, get_version, get_version_by_id
from studio import services, state

JUDGES_PAGE = "app_pages/judges/page.py"
SCORERS_PAGE = "app_pages/scorers/page.py"


def fix_judge_link(scorer_id: int, *, version_id: int | None = None, key: state.Key) -> None:
    """A button to where the judge of ``scorer_id`` (its version ``version_id``, else its
    latest) can be given a key or replaced."""
    with services.reading() as session:
        scorer = get_scorer(session, id=scorer_id)
        version = (
            get_version_by_id(session, version_id=version_id)
            if version_id is not None
            else get_version(session, scorer_id=scorer_id)
        )
    profile = judge_profile_in_use(version.spec)
    if profile is not None:
        if st.button(
            f"Add the key to the judge {profile}",
            key=key.name,
            icon=":material/key:",
            help=f"Opens the Judges page on {profile}, the saved judge this scorer uses.",
        ):
            open_judge(profile)
        return
    if st.button(
        "Use one of your judges, or add the key",
        key=key.name,
        icon=":material/gavel:",
        help="Opens this scorer's judge on the Scorers page: choose one of your saved judges "
        "(any provider, or a model on your computer), or paste the key its judge needs.",
    ):
        state.put(state.SCORERS_SEARCH, scorer.name)
        state.put(state.SCORERS_PAGE, 0)
        state.put(state.SCORERS_PENDING, ("judge", scorer_id))
        st.switch_page(SCORERS_PAGE)


def open_judge(name: str) -> None:
    """Go to the Judges page with the saved judge ``name`` in the form."""
    state.put(state.JUDGES_SELECTED, name)
    state.forget(state.JUDGES_MODEL)  # the form loads the chosen judge afresh
    st.switch_page(JUDGES_PAGE)
