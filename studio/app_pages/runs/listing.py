"""Recent runs, newest first, a page at a time from the database: what ran on what, where it
is in plain words, its counts and mean, when it started and ended, and links to open it or
see its results."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.store import time_running
from scorer_runtime.store.views import RunLine
from studio import state
from studio.app_pages.runs import data
from studio.app_pages.runs.logic import (
    ACTIVE_PHASES,
    RunPhase,
    format_when,
    run_mark,
    run_phase,
)
from studio.widgets.common import format_score
from studio.widgets.results_links import open_results
from studio.widgets.runner_notice import runner_alive
from studio.words import format_duration

_WIDTHS = [1.2, 5, 4.6, 2.6, 1.8, 4, 2, 2.6]
_HEADERS = ("Run", "What ran", "Status", "Results", "Mean", "When (UTC)", "", "")


def _badge(line: RunLine, phase: RunPhase) -> None:
    mark = run_mark(line, phase)
    st.badge(mark.label, color=mark.color)


def _results(line: RunLine) -> str:
    text = f"{line.done:,} of {line.total:,}"
    return f"{text} · {line.failed:,} failed" if line.failed else text


def _when(line: RunLine, phase: RunPhase) -> str:
    started = format_when(line.started_at or line.created_at).removesuffix(" UTC")
    if phase in ACTIVE_PHASES or line.finished_at is None or line.started_at is None:
        return started
    took = format_duration(time_running(line))  # a pause before a resume is not counted
    return f"{started} · took {took}"


def _phase(line: RunLine) -> RunPhase:
    return run_phase(line, runner_alive=runner_alive())


def _row(line: RunLine, phase: RunPhase, selected: int | None) -> None:
    cols = st.columns(_WIDTHS, vertical_alignment="center")
    cols[0].markdown(f"**#{line.run_id}**" if line.run_id == selected else f"#{line.run_id}")
    scorer = data.title(line.scorer_id, line.scorer)
    cols[1].markdown(f"{scorer} (version {line.version}) on {line.dataset}")
    with cols[2]:
        _badge(line, phase)
    cols[3].markdown(_results(line))
    mean = format_score(line.mean)
    cols[4].markdown(f"{mean} ({line.scored:,})" if line.scored else mean)
    cols[5].markdown(_when(line, phase))
    if cols[6].button(
        "Open",
        key=state.RUNS_OPEN.child(line.run_id).name,
        help="Open this run above: its progress or its summary.",
    ):
        state.put(state.SELECTED_RUN_ID, line.run_id)
        st.rerun()  # the whole page, also when the list is refreshing on its own
    if cols[7].button(
        "Results",
        key=state.RUNS_SEE_RESULTS.child(line.run_id).name,
        help="See each result of this run on the Results page.",
        disabled=line.done == 0,
    ):
        open_results(run_id=line.run_id)


def _pager(older_than: int | None) -> None:
    cursor: list[int] = state.get(state.RUNS_CURSOR)
    if not cursor and older_than is None:
        return
    newer, older, _ = st.columns([1, 1, 4])
    if newer.button(
        "Newer runs", key=state.RUNS_NEWER.name, disabled=not cursor, icon=":material/arrow_back:"
    ):
        state.put(state.RUNS_CURSOR, cursor[:-1])
        st.rerun()
    if older.button(
        "Older runs",
        key=state.RUNS_OLDER.name,
        disabled=older_than is None,
        icon=":material/arrow_forward:",
    ):
        state.put(state.RUNS_CURSOR, [*cursor, older_than])
        st.rerun()


def _table(before_id: int | None, selected: int | None) -> bool:
    """The header, the rows and the pager; whether a listed run is still going."""
    page = data.page(before_id)
    for column, title in zip(st.columns(_WIDTHS), _HEADERS, strict=True):
        if title:
            column.markdown(f"**{title}**")
    phases = [_phase(line) for line in page.lines]
    for line, phase in zip(page.lines, phases, strict=True):
        _row(line, phase, selected)
    _pager(page.older_than)
    return any(phase in ACTIVE_PHASES for phase in phases)


@st.fragment(run_every=2)
def _live_table(before_id: int | None, selected: int | None) -> None:
    """The table, redrawn on its own every two seconds while a run in it goes."""
    _table(before_id, selected)


def render_list(selected: int | None) -> None:
    """A page of runs (ten at a time, from the database) with a pager; it follows the runs
    that are still going."""
    st.subheader("Recent runs")
    cursor: list[int] = state.get(state.RUNS_CURSOR)
    before = cursor[-1] if cursor else None
    lines = data.page(before).lines
    if not lines:
        st.caption("No run yet. Start one above: it appears here with its progress.")
        return
    st.caption(
        "Results count every example with an outcome, failures included; the mean is over "
        "the scored examples (their number in brackets)."
    )
    if any(_phase(line) in ACTIVE_PHASES for line in lines):
        _live_table(before, selected)
    else:
        _table(before, selected)
