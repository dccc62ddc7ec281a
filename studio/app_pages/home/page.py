"""Home: what is in the studio, how to start, and which judge providers are usable."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.home.sections import (
    render_getting_started,
    render_judge_keys,
    render_overview,
)
from studio.widgets.common import page_header

page_header(
    "Scorer Studio",
    "Judge what your AI agents say and do. Build a scorer step by step, point it at an LLM "
    "judge, try it on examples, and hand it to engineers as readable Python.",
)
state.show_flashes()
render_overview()
render_getting_started()
render_judge_keys()
with st.expander("Where is my data?"):
    st.markdown(
        "Scorers, datasets, runs and every score are stored in a database (by default the "
        "file `data/scorer_studio.db`; the `SCORER_STUDIO_DATABASE_URL` environment variable "
        "chooses another). Nothing is lost when you close the browser."
    )
