"""judges page (being built)."""

from __future__ import annotations

import streamlit as st

st.title("judges")
st.info("This page is being built.")
