"""Traces: import what agents did (OpenTelemetry or Mastra), look inside, score with an agent
scorer, and keep the scores linked to each trace and span."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.components.common import page_header
from studio.components.traces_import import (
    forget_traces,
    render_empty,
    render_problems,
    render_trace_list,
    render_upload,
)
from studio.components.traces_scores import render_scores, render_scoring, score_counts
from studio.components.traces_tree import render_tree

page_header(
    "Traces",
    "Score what your agents really did: load traces from OpenTelemetry or Mastra, look at each "
    "step of a turn, and judge them with an agent scorer. The scores are saved with the trace.",
)
state.show_flashes()
loaded = render_upload()
if loaded is None:
    render_empty()
    st.stop()
render_problems(loaded)
if not loaded.traces:
    st.stop()
render_trace_list(loaded, score_counts(loaded))
st.button(
    "Remove these traces",
    key="traces.clear",
    icon=":material/close:",
    on_click=forget_traces,
    help="Clears the list and the uploader. Scores already stored stay in the database.",
)
st.subheader("Look inside a trace")
render_tree(loaded)
st.subheader("Score traces")
render_scoring(loaded)
st.subheader("Scores of these traces")
render_scores(loaded)
