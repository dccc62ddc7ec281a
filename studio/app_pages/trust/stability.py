"""Stability of a scorer's judge (replaced when the stability checks are merged)."""

import streamlit as st


def render(scorer_id: int) -> None:
    """Stability checks of the scorer's versions."""
    st.info("Stability checks are not available yet.", icon=":material/hourglass_empty:")
