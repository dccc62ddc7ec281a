"""The studio's entry point: navigation only."""

from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="Scorer Studio", layout="wide")
page = st.navigation(
    [st.Page("app_pages/home.py", title="Home", icon=":material/home:", default=True)]
)
page.run()
