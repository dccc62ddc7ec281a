"""Which traces are chosen for scoring: one list in the session (``state.TRACES_CHOSEN``),
read by the list's "Chosen" column, the picker, the counts, the Score button and its
messages, so they always agree. Imports add to it, deletes take from it; nothing else
changes it but the person."""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from scorer_runtime.store import TraceSummary
from studio import state
from studio.app_pages.traces import data
from studio.app_pages.traces.logic import TracePage, trace_label
from studio.words import plural


def chosen() -> list[str]:
    """The chosen trace ids, in the order chosen (empty before the page first lists any)."""
    return list(state.peek(state.TRACES_CHOSEN) or [])


def start_with(page: TracePage) -> None:
    """On the first visit, choose the traces listed; afterwards, the person's choice stays."""
    if state.peek(state.TRACES_CHOSEN) is None and page.lines:
        state.put(state.TRACES_CHOSEN, [line.trace_id for line in page.lines])


def add(trace_ids: Iterable[str]) -> None:
    """Add traces to the choice (an import's), keeping those already chosen."""
    current = chosen()
    state.put(state.TRACES_CHOSEN, current + [t for t in trace_ids if t not in current])


def drop(trace_ids: Iterable[str]) -> None:
    """Take traces out of the choice (deleted ones)."""
    gone = set(trace_ids)
    state.put(state.TRACES_CHOSEN, [t for t in chosen() if t not in gone])


def _picked() -> None:
    before = set(chosen())
    now = list(state.peek(state.TRACES_SELECTED) or [])
    state.put(state.TRACES_CHOSEN, now)
    new = [t for t in now if t not in before]
    if new:  # "Look inside a trace" shows the trace just picked
        state.put(state.TRACES_VIEW, new[-1])


def _choose_page(trace_ids: tuple[str, ...]) -> None:
    add(trace_ids)


def _choose_none() -> None:
    state.put(state.TRACES_CHOSEN, [])


def stored_choice() -> dict[str, TraceSummary]:
    """The chosen traces that are still stored, by id, in the order chosen (ids deleted
    elsewhere leave the choice)."""
    ids = tuple(chosen())
    lines = {line.trace_id: line for line in data.summaries(ids)}
    if len(lines) != len(ids):
        state.put(state.TRACES_CHOSEN, [t for t in ids if t in lines])
    return {t: lines[t] for t in ids if t in lines}


def render_choice(page: TracePage, lines: dict[str, TraceSummary], scored: frozenset[str]) -> None:
    """The picker of chosen traces (those on this page and any chosen elsewhere), with
    "choose all on this page" and "clear"."""
    options = {line.trace_id: line for line in page.lines} | lines
    state.put(state.TRACES_SELECTED, list(lines))  # the picker mirrors the choice
    st.multiselect(
        "Traces to score",
        list(options),
        format_func=lambda t: trace_label(options[t]) + (" · scored" if t in scored else ""),
        key=state.TRACES_SELECTED.name,
        on_change=_picked,
        placeholder="Choose traces from the list",
        help=(
            "Traces imported in this session are added for you. The choice stays as you "
            "leave it: scoring, a new search or another page of the list do not change it. "
            "“scored” marks the traces this scorer version has already scored. Each trace "
            "is scored at its agent's run (its root agent span)."
        ),
    )
    ids = tuple(line.trace_id for line in page.lines)
    missing = [t for t in ids if t not in lines]
    left, right = st.columns(2)
    left.button(
        f"Choose all {plural(len(ids), 'trace')} listed" if missing else "All listed are chosen",
        key=state.TRACES_CHOOSE_PAGE.name,
        icon=":material/select_all:",
        disabled=not missing,
        on_click=_choose_page,
        args=(ids,),
        width="stretch",
    )
    right.button(
        "Clear the choice",
        key=state.TRACES_CHOOSE_NONE.name,
        icon=":material/deselect:",
        disabled=not lines,
        on_click=_choose_none,
        width="stretch",
    )
