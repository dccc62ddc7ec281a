"""Recent runs, newest first, a page at a time from the database: what ran on what, where it
is in plain words, its counts and mean, when it started and ended, and links to open it or
see its results."""

from __future__ import annotations

from typing import Literal

import streamlit as st

from scorer_runtime.store import database_url
from studio import state
from studio.components import runs_data as data
from studio.components.common import format_score
from studio.components.results_links import open_results
from studio.runs_logic import (
    ACTIVE_PHASES,
    PHASE_LABELS,
    RunLine,
    RunPhase,
    format_when,
    launcher,
    run_phase,
)

W = "runs.w."
W_NEWER, W_OLDER = W + "newer", W + "older"
_WIDTHS = [1, 4, 3, 3, 3, 2, 3, 3, 4]
_HEADERS = ("Run", "Scorer", "Dataset", "Status", "Results", "Mean", "Started", "Finished", "")
Color = Literal["green", "blue", "orange", "red", "gray"]
_COLORS: dict[RunPhase, Color] = {
    "done": "green",
    "running": "blue",
    "stopping": "blue",
    "starting": "blue",
    "queued": "gray",
    "cancelled": "orange",
    "stalled": "orange",
    "failed": "red",
    "not_started": "red",
}


def _badge(phase: RunPhase) -> None:
    st.badge(PHASE_LABELS[phase], color=_COLORS[phase])


def _results(line: RunLine) -> str:
    text = f"{line.done:,} of {line.total:,}"
    return f"{text} · {line.failed:,} failed" if line.failed else text


def _open(run_id: int) -> None:
    state.put(state.SELECTED_RUN_ID, run_id)


def _row(line: RunLine, selected: int | None) -> None:
    phase = run_phase(line, launcher(database_url(), line.run_id))
    cols = st.columns(_WIDTHS, vertical_alignment="center")
    cols[0].markdown(f"**#{line.run_id}**" if line.run_id == selected else f"#{line.run_id}")
    cols[1].markdown(f"{line.scorer} · v{line.version}")
    cols[2].markdown(line.dataset)
    with cols[3]:
        _badge(phase)
    cols[4].markdown(_results(line))
    mean = format_score(line.mean)
    cols[5].markdown(f"{mean} ({line.scored:,})" if line.scored else mean)
    cols[6].markdown(format_when(line.started_at or line.created_at))
    cols[7].markdown("—" if phase in ACTIVE_PHASES else format_when(line.finished_at))
    with cols[8]:
        opened, results = st.columns(2)
        opened.button(
            "Open",
            key=f"{W}open.{line.run_id}",
            icon=":material/visibility:",
            help="Open this run above: its progress or its summary.",
            on_click=_open,
            args=(line.run_id,),
        )
        if results.button(
            "Results",
            key=f"{W}results.{line.run_id}",
            icon=":material/insights:",
            help="See each result of this run on the Results page.",
            disabled=line.done == 0,
        ):
            open_results(run_id=line.run_id)


def _pager(older_than: int | None) -> None:
    cursor: list[int] = state.get(state.RUNS_CURSOR)
    if not cursor and older_than is None:
        return
    newer, older, _ = st.columns([1, 1, 4])
    if newer.button("Newer runs", key=W_NEWER, disabled=not cursor, icon=":material/arrow_back:"):
        state.put(state.RUNS_CURSOR, cursor[:-1])
        st.rerun()
    if older.button(
        "Older runs", key=W_OLDER, disabled=older_than is None, icon=":material/arrow_forward:"
    ):
        state.put(state.RUNS_CURSOR, [*cursor, older_than])
        st.rerun()


def render_list(selected: int | None) -> None:
    """A page of runs (ten at a time, from the database) with a pager."""
    st.subheader("Recent runs")
    cursor: list[int] = state.get(state.RUNS_CURSOR)
    page = data.page(cursor[-1] if cursor else None)
    if not page.lines:
        st.caption("No run yet. Start one above: it appears here with its progress.")
        return
    st.caption(
        "Mean is over the scored examples (their number in brackets); results count every "
        "example with an outcome, failures included. Times are UTC."
    )
    for column, title in zip(st.columns(_WIDTHS), _HEADERS, strict=True):
        column.markdown(f"**{title}**")
    for line in page.lines:
        _row(line, selected)
    _pager(page.older_than)
