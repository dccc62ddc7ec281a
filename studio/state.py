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


# -- builder -----------------------------------------------------------------------------------
BUILDER_DRAFT = Key("builder.draft", _none)
"""The draft being edited: a spec-shaped dict (also saved to the database as it changes)."""
BUILDER_GEN = Key("builder.gen", int)
"""Bumped when another draft is loaded, so widgets start again from the draft's values."""
TRY_EXAMPLE = Key("builder.try_example", _none)
"""The example previews and 'try it' run on (a builder_logic.Example)."""

# -- Home, Scorers, Export & import, Traces ---------------------------------------------------
SCORERS_PAGE = Key("scorers.page", int)
"""The page of the scorer list being shown (0 is the first; pages come from the database)."""
SCORERS_OPEN_ID = Key("scorers.open_id", _none)
"""The scorer whose versions and actions are open on the scorers page."""
SCORERS_PENDING = Key("scorers.pending", _none)
"""An action waiting for confirmation: ("archive" or "duplicate", scorer id), or None."""
EXPORT_SCORER_ID = Key("export.scorer_id", _none)
"""The scorer the export page opens with (set by "Export" on the scorers page)."""
TRACES_LOADED = Key("traces.loaded", _none)
"""The trace file read on the traces page: a traces_logic.LoadedTraces, or None."""
TRACES_SCORE_ID = Key("traces.score_id", _none)
"""The stored trace score whose details are open on the traces page."""
BUILDER_LOADED_FOR = Key("builder.loaded_for", _none)
"""Which saved scorer (id) the draft was loaded from, so a new choice reloads it."""
