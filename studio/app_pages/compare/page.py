"""Compare runs: two runs (or two versions on one dataset) side by side, changed verdicts first."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.compare.pick import render_pair_picker
from studio.app_pages.compare.view import (
    render_download,
    render_rows,
    render_side_by_side,
    render_summary,
    render_threshold,
)
from studio.app_pages.results import data
from studio.widgets.common import empty_state, page_header
from studio.widgets.results_links import go_to_runs_button

state.show_flashes()
page_header(
    "Compare runs",
    "Put two runs side by side — this week against last week, or a new version against the "
    "old one — and see which examples changed their verdict, and why.",
)

if len(data.runs(None, None, None)) < 2:
    empty_state(
        "**Two runs are needed to compare.** A comparison lists the examples whose verdict "
        "changed between two runs of a dataset (passes now, fails now), how far each score "
        "moved, and both results of an example side by side.\n\n"
        "Run a scorer on a dataset twice — for example before and after changing it — on the "
        "Runs page."
    )
    go_to_runs_button(state.COMPARE_GO_RUNS)
    st.stop()

pair = render_pair_picker()
if pair is None:
    st.stop()
threshold = render_threshold(pair)
summary = data.compare_summary(pair, threshold)
render_summary(summary, pair)
st.subheader("Example by example")
rows, names = render_rows(pair, threshold)
render_download(pair, threshold, summary.examples)
render_side_by_side(rows, pair, names)
