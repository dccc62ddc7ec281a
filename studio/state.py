"""Every session-state key the studio uses, with the factory that makes its default.

Pages never invent keys: they read and write through :func:`get` and :func:`put` with the
keys below, so a reader sees in one place what a browser session remembers. Defaults are
made by factories on first use, never computed once at import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st


@dataclass(frozen=True)
class Key:
    """A session-state key and how its default value is made."""

    name: str
    default: Callable[[], Any]


def _none() -> None:
    return None


BUILDER_DRAFT_ID = Key("builder.draft_id", _none)
"""The id of the draft being edited in the builder (drafts live in the database)."""
BUILDER_STAGE = Key("builder.stage", lambda: "basics")
"""Where the builder is: basics, judge, steps, retries, try, save."""
BUILDER_SCORER_ID = Key("builder.scorer_id", _none)
"""The saved scorer the draft is a new version of (None for a new scorer)."""
TRY_EXAMPLE_ID = Key("builder.try_example_id", _none)
TRY_RESULT = Key("builder.try_result", _none)
"""The last 'try it' outcome shown in the builder (a dict, or None)."""
RESULTS_FILTERS = Key("results.filters", dict)
RESULTS_CURSOR = Key("results.cursor", list)
"""Keyset cursors of the pages already seen on the results page (for 'previous')."""
SELECTED_SCORE_ID = Key("results.score_id", _none)
SELECTED_DATASET_ID = Key("examples.dataset_id", _none)
SELECTED_RUN_ID = Key("runs.run_id", _none)
FLASH = Key("flash", list)
"""Messages to show once on the next render (e.g. "Saved version 3")."""


def get(key: Key) -> Any:
    """The key's value, created from its factory on first use."""
    if key.name not in st.session_state:
        st.session_state[key.name] = key.default()
    return st.session_state[key.name]


def put(key: Key, value: Any) -> None:
    st.session_state[key.name] = value


def reset(key: Key) -> None:
    st.session_state[key.name] = key.default()


def flash(message: str, *, icon: str = ":material/check_circle:") -> None:
    """Show ``message`` once, at the top of the next page render."""
    get(FLASH).append((message, icon))


def show_flashes() -> None:
    for message, icon in get(FLASH):
        st.toast(message, icon=icon)
    reset(FLASH)
