"""Widget helpers the Results and Compare runs pages share: seeded widgets and id pickers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from studio import state
from studio.widgets.results_filter import Choice


def seed(key: state.Key, value: object) -> None:
    """Give widget ``key`` a starting value unless the session already holds one.

    Widgets here never take ``value=``/``index=``: they start from session state, which
    keeps what a user chose across pages and lets other pages preset it.
    """
    if not state.has(key):
        state.put(key, value)


def id_select(
    label: str,
    key: state.Key,
    choices: Sequence[Choice],
    *,
    empty: str,
    help: str,
    on_change: Callable[[], None] | None = None,
) -> Any:
    """A select box over ids, None meaning "all"/"none yet" (shown as ``empty``); a remembered
    id that is no longer offered (deleted, filtered out) falls back to None."""
    labels = {c.id: c.label for c in choices}
    options: list[int | None] = [None, *labels]
    if state.peek(key) not in options:
        state.put(key, None)
    return st.selectbox(
        label,
        options,
        key=key.name,
        help=help,
        placeholder=empty,
        format_func=lambda i: empty if i is None else labels.get(i, str(i)),
        on_change=on_change,
    )
