"""Home: what Scorer Studio is and where to start."""

from __future__ import annotations

import streamlit as st

st.title("Scorer Studio")
st.write(
    "Judge what your AI agents say and do. Build a **scorer** step by step, point it at an "
    "LLM judge, try it on examples, and hand it to engineers as readable Python."
)
st.subheader("Getting started")
st.markdown(
    "1. Describe what a good answer looks like.\n"
    "2. Choose the checks: built-in rules, small formulas, or *ask the judge*.\n"
    "3. Try it on an example, then run it on a dataset."
)
st.info(
    "The scorer builder, datasets and results pages are being built. Today the same "
    "scorers can be written in Python with `scorer_runtime`; see the README.",
    icon=":material/construction:",
)
