"""export page (being built)."""

from __future__ import annotations

import streamlit as st

st.title("export")
st.info("This page is being built.")
