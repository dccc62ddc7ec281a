"""The studio's entry point: navigation only."""

from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="Scorer Studio", page_icon="⚖️", layout="wide")

page = st.navigation(
    {
        "": [st.Page("app_pages/home.py", title="Home", icon=":material/home:", default=True)],
        "Build": [
            st.Page("app_pages/scorers.py", title="Scorers", icon=":material/rule:"),
            st.Page("app_pages/builder.py", title="Build a scorer", icon=":material/build:"),
            st.Page("app_pages/judges.py", title="Judges", icon=":material/gavel:"),
        ],
        "Data": [
            st.Page("app_pages/examples.py", title="Examples", icon=":material/dataset:"),
            st.Page("app_pages/traces.py", title="Traces", icon=":material/timeline:"),
        ],
        "Evaluate": [
            st.Page("app_pages/runs.py", title="Runs", icon=":material/play_circle:"),
            st.Page("app_pages/results.py", title="Results", icon=":material/insights:"),
            st.Page("app_pages/compare.py", title="Compare runs", icon=":material/compare:"),
        ],
        "Share": [
            st.Page("app_pages/export.py", title="Export & import", icon=":material/ios_share:"),
        ],
    }
)
page.run()
