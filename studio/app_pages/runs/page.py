"""Runs: score every example of a dataset with a scorer version, in the background — with
the judge calls it will make said first, live progress, cancel, resume, and the summary."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.runs import data
from studio.app_pages.runs.listing import render_list
from studio.app_pages.runs.panel import render_run
from studio.app_pages.runs.start import render_empty, render_start
from studio.widgets.common import page_header

state.show_flashes()
page_header(
    "Runs",
    "Score every example of a dataset with a scorer. Runs go on in the background: you can "
    "leave the page, and every result is saved as it comes.",
)
if render_empty():
    st.stop()
selected = state.get(state.SELECTED_RUN_ID)
if selected is None:  # a new session: show the newest run, whatever state it is in
    newest = data.page(None).lines
    selected = newest[0].run_id if newest else None
shown = data.line(selected) if selected is not None else None
render_start(prefer=shown)
if shown is not None:
    render_run(shown)
render_list(selected)
