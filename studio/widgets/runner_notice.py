"""Whether a runner will score the runs: said in words when none serves the studio's
database, with a button that starts one beside the studio (it stops with the studio).
Shown by the Runs page and by the Trust page's checks, which start runs too."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.batch import start_attached_runner
from scorer_runtime.store import database_url, live_runners
from studio import services, state


def runner_alive() -> bool:
    """Whether a runner serves the studio's database right now, read now."""
    with services.reading() as session:
        return bool(live_runners(session))


def _start() -> None:
    try:
        start_attached_runner(database_url())
    except OSError as error:  # shown in plain words on the next render
        state.flash(f"Could not start a runner: {error.strerror or error}", icon=":material/error:")
    else:
        state.flash(
            "A runner is starting beside the studio; it picks up queued runs within seconds.",
            icon=":material/rocket_launch:",
        )


def render_runner_notice(*, where: str) -> bool:
    """Say so, with a button to start one, when no runner serves the database. True when
    a runner is alive."""
    if runner_alive():
        return True
    st.warning(
        "**No runner is running.** Runs are scored by a runner, a helper the studio "
        "normally starts with itself; none is answering now (it was stopped, or the studio "
        "was started without one). A run you start waits its turn until a runner picks it "
        "up: press **Start a runner** below.",
        icon=":material/hourglass_empty:",
    )
    st.button(
        "Start a runner",
        key=state.RUNS_START_RUNNER.child(where).name,
        icon=":material/rocket_launch:",
        on_click=_start,
        help="Starts a runner beside the studio; it stops when the studio stops.",
    )
    return False
