"""Traces: import what agents did (OpenTelemetry or Mastra) into the studio's database, find
and look inside a trace, score traces with an agent scorer, and keep the scores linked to
each trace and span."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.traces.file_import import render_upload
from studio.app_pages.traces.listing import render_list
from studio.app_pages.traces.score_panel import render_scoring
from studio.app_pages.traces.scores import render_scores
from studio.app_pages.traces.tree import render_tree
from studio.widgets.common import page_header

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
st.subheader("Score traces")
render_scoring(page)
st.subheader("Look inside a trace")
render_tree(page)
st.subheader("Scores of these traces")
render_scores(page)
