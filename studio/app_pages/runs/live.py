"""A run in progress, followed live: a progress bar with done / total, the mean, failures and
cost so far and the newest results, redrawn twice a second from the store (a runner commits
each result as it lands), and a Cancel button that stops the run within a second."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.store import time_running
from scorer_runtime.store.views import RunLine
from studio import state
from studio.app_pages.runs import data
from studio.app_pages.runs.logic import (
    ACTIVE_PHASES,
    PHASE_LABELS,
    RunPhase,
    live_rows,
    progress_words,
    run_cache_words,
    run_cost_words,
    run_pace_words,
    run_phase,
    share,
)
from studio.widgets.common import format_score, show_error
from studio.widgets.runner_notice import render_runner_notice, runner_alive
from studio.words import OUTCOME_LABELS, cost_caption, cost_help, cost_value, format_duration

_NEWEST = 10
"""Results listed while a run goes on."""

REFRESH_S = 0.5
"""How often the live view reads the run again: a result shows within a second of landing."""

_PHASE_NOTES = {
    "queued": "The run is in the queue; the runner picks it up in a moment.",
    "waiting": "The run waits in the queue for a runner.",
    "stopping": "Stopping: the examples being scored right now are finished and saved first.",
}


def _cancel(run_id: int) -> None:
    try:
        data.cancel(run_id)
    except Exception as error:  # shown in plain words on the next render
        state.flash(f"Could not cancel the run: {error}", icon=":material/error:")
    else:
        state.flash(f"Run #{run_id} is stopping; what finished is kept.", icon=":material/stop:")


def _numbers(line: RunLine, phase: RunPhase) -> None:
    cols = st.columns(5)
    cols[0].metric("Where it is", PHASE_LABELS[phase])
    cols[1].metric(
        "Results", f"{line.done:,} / {line.total:,}", help="Examples with a stored result."
    )
    cols[2].metric(
        "Mean so far",
        format_score(line.mean),
        help=f"The average score of the {line.scored:,} examples scored so far.",
    )
    cols[3].metric(
        "Failures",
        f"{line.failed:,}",
        help="Examples whose scoring failed (the judge unavailable, an unreadable answer, a "
        "step error). They are recorded, not retried; the run goes on.",
    )
    cost = run_cost_words(line)
    cols[4].metric("Cost so far", cost_value(cost), help=cost_help(cost, so_far=True))
    if (unknown := cost_caption(cost, so_far=True)) is not None:
        st.caption(unknown)
    if (cached := run_cache_words(line)) is not None:
        st.caption(f":material/cached: {cached}")


def _note(line: RunLine, phase: RunPhase) -> str:
    elapsed = time_running(line)  # since its start, pauses before a resume left out
    said = [
        _PHASE_NOTES.get(phase, ""),
        f"Running for {format_duration(elapsed)}.",
        "Updates as each result is saved; you can leave this page or close the tab — the run "
        "goes on in the background and every result is saved as it comes.",
    ]
    return " ".join(part for part in said if part)


def _newest(run_id: int, done: int) -> None:
    """The scores that landed last, newest first: the list grows as each one is saved."""
    if done <= 0:
        return
    rows, inputs, cached = data.newest_scores(run_id, limit=_NEWEST)
    said = "The newest result" if done == 1 else f"The newest {min(done, _NEWEST)} results"
    st.markdown(f"**{said}** (newest first)")
    marks = cached if any(c for c, _ in cached.values()) else None  # no cache hit: no column
    st.dataframe(live_rows(rows, inputs, OUTCOME_LABELS, marks), hide_index=True)


@st.fragment(run_every=REFRESH_S)
def live_progress(run_id: int) -> None:
    """Redrawn twice a second on its own; hands over to the whole page when the run ends."""
    try:
        line = data.line(run_id)
    except Exception as error:  # the database may be busy or gone: say so, keep polling
        show_error(error)
        return
    if line is None:
        return
    phase = run_phase(line, runner_alive=runner_alive())
    if phase not in ACTIVE_PHASES:
        st.rerun()  # the whole page: it now shows the summary instead
    if phase == "waiting":
        render_runner_notice(where="live")
    words = progress_words(line.done, line.total, line.failed)
    st.progress(share(line.done, line.total), text=words)
    if (pace := run_pace_words(line)) is not None:
        st.caption(f":material/speed: {pace}")
    _numbers(line, phase)
    st.caption(_note(line, phase))
    _newest(run_id, line.done)
    st.button(
        "Cancel the run",
        key=state.RUNS_CANCEL.name,
        icon=":material/stop:",
        on_click=_cancel,
        args=(run_id,),
        disabled=phase == "stopping",
        help="Stops after the examples being scored now. What finished is kept, and you can "
        "resume the run later to score the rest.",
    )
