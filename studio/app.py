"""The studio's entry point: navigation only.

Every page's entry script is ``app_pages/<page>/page.py``; the explicit ``url_path`` keeps each
page's address its own name (Streamlit would otherwise name them all after ``page.py``).
The folder is not called ``pages/``: Streamlit takes a ``pages/`` folder beside the entry script
for its older automatic navigation until ``st.navigation`` first runs, so the first visit after
a start at a page's address (a bookmark) showed "Page not found".
"""

from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="Scorer Studio", page_icon="⚖️", layout="wide")

page = st.navigation(
    {
        "": [
            st.Page(
                "app_pages/home/page.py",
                url_path="home",
                title="Home",
                icon=":material/home:",
                default=True,
            )
        ],
        "Build": [
            st.Page(
                "app_pages/scorers/page.py",
                url_path="scorers",
                title="Scorers",
                icon=":material/rule:",
            ),
            st.Page(
                "app_pages/builder/page.py",
                url_path="builder",
                title="Build a scorer",
                icon=":material/build:",
            ),
            st.Page(
                "app_pages/judges/page.py",
                url_path="judges",
                title="Judges",
                icon=":material/gavel:",
            ),
        ],
        "Data": [
            st.Page(
                "app_pages/examples/page.py",
                url_path="examples",
                title="Examples",
                icon=":material/dataset:",
            ),
            st.Page(
                "app_pages/traces/page.py",
                url_path="traces",
                title="Traces",
                icon=":material/timeline:",
            ),
            st.Page(
                "app_pages/monitor/page.py",
                url_path="monitor",
                title="Monitor",
                icon=":material/monitor_heart:",
            ),
        ],
        "Evaluate": [
            st.Page(
                "app_pages/runs/page.py",
                url_path="runs",
                title="Runs",
                icon=":material/play_circle:",
            ),
            st.Page(
                "app_pages/results/page.py",
                url_path="results",
                title="Results",
                icon=":material/insights:",
            ),
            st.Page(
                "app_pages/review/page.py",
                url_path="review",
                title="Review",
                icon=":material/how_to_reg:",
            ),
            st.Page(
                "app_pages/compare/page.py",
                url_path="compare",
                title="Compare runs",
                icon=":material/compare:",
            ),
            st.Page(
                "app_pages/trust/page.py",
                url_path="trust",
                title="Trust",
                icon=":material/verified:",
            ),
        ],
        "Share": [
            st.Page(
                "app_pages/export/page.py",
                url_path="export",
                title="Export & import",
                icon=":material/ios_share:",
            ),
        ],
    }
)
page.run()
