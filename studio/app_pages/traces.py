"""Traces: import what agents did (OpenTelemetry or Mastra) into the studio's database, find
and look inside a trace, score traces with an agent scorer, and keep the scores linked to
each trace and span."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.components.common import page_header
from studio.components.traces_import import render_upload
from studio.components.traces_list import render_list
from studio.components.traces_scores import render_scores, render_scoring
from studio.components.traces_tree import render_tree

page_header(
    "Traces",
    "Score what your agents really did: import traces from OpenTelemetry or Mastra, look at "
    "each step of a turn, and judge them with an agent scorer. Traces and their scores are "
    "kept in the studio.",
)
state.show_flashes()
render_upload()
page = render_list()
if page is None:
    st.stop()
st.subheader("Look inside a trace")
render_tree(page)
st.subheader("Score traces")
render_scoring(page)
st.subheader("Scores of these traces")
render_scores(page)
