"""Small render helpers every page uses, so the studio looks the same everywhere (the words
they say come from :mod:`studio.words`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import streamlit as st

from studio import state
from studio.error_words import explain
from studio.words import outcome_label

BadgeColor = Literal[
    "red", "orange", "yellow", "blue", "green", "violet", "gray", "grey", "primary"
]
OUTCOME_COLORS: dict[str, BadgeColor] = {
    "scored": "green",
    "not_scorable": "gray",
    "step_error": "red",
    "provider_error": "orange",
    "judge_format_error": "orange",
}


def page_header(title: str, intro: str) -> None:
    """The title and one sentence saying what this page is for."""
    st.title(title)
    st.caption(intro)


def empty_state(
    message: str,
    *,
    action: tuple[str, Callable[[], None]] | None = None,
    key: state.Key | None = None,
) -> None:
    """What belongs here, and the next thing to do."""
    with st.container(border=True):
        st.markdown(message)
        if action is not None:
            label, on_click = action
            st.button(label, on_click=on_click, type="primary", key=key.name if key else None)


def show_error(error: BaseException) -> None:
    """An error in plain words with what to do (never a traceback)."""
    explanation = explain(error)
    st.error(f"**{explanation.title}.** {explanation.detail}", icon=":material/error:")
    st.info(explanation.what_to_do, icon=":material/lightbulb:")


def outcome_badge(outcome: str) -> None:
    st.badge(outcome_label(outcome), color=OUTCOME_COLORS.get(outcome, "gray"))


def format_score(score: float | None) -> str:
    return "—" if score is None else f"{score:.2f}"
