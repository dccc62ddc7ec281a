"""Trust: can this scorer's verdicts be trusted? Pick a scorer; each tab measures one thing."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.trust import stability, versions
from studio.app_pages.trust import stability_data as data
from studio.widgets.common import page_header

state.show_flashes()
page_header("Trust", "Measure whether a scorer's verdicts hold: repeated, and between versions.")
scorers = data.scorers()
if not scorers:
    st.info("There is no scorer yet: build one in Build a scorer.", icon=":material/info:")
    st.stop()
scorer_id = st.selectbox(
    "Scorer", list(scorers), format_func=lambda s: scorers[s], key=state.TRUST_SCORER.name
)
stability_tab, versions_tab = st.tabs(["Stability", "Compare versions"])
with stability_tab:
    stability.render(int(scorer_id))
with versions_tab:
    versions.render(int(scorer_id))
