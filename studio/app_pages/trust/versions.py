"""Comparing two versions of a scorer (replaced when the stability checks are merged)."""

import streamlit as st


def render(scorer_id: int) -> None:
    """Two versions of the scorer on the same examples."""
    st.info("Comparing versions is not available yet.", icon=":material/hourglass_empty:")
