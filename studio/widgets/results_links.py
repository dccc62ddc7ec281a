"""Ways into the Results, Compare runs and Runs pages from anywhere in the studio.

Another page calls ``open_results(run_id=12)`` or ``open_compare(before=11, after=12)``: the
choice is written to session state and the page opens with it (its widgets are seeded from
that state, so a preset wins over what was chosen before).
"""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.widgets.results_filter import ResultsFilter

RESULTS_PAGE = "app_pages/results/page.py"
COMPARE_PAGE = "app_pages/compare/page.py"
RUNS_PAGE = "app_pages/runs/page.py"


def preset_results(filter: ResultsFilter, *, score_id: int | None = None) -> None:
    """Make the Results page show ``filter`` (and open ``score_id``) when it next renders."""
    state.put(state.RESULTS_FILTERS, filter.to_state())
    state.reset(state.RESULTS_CURSOR)
    state.put(state.SELECTED_SCORE_ID, score_id)
    for key in state.RESULTS_FILTER_WIDGETS:
        state.forget(key)


def open_results(
    *,
    scorer_id: int | None = None,
    version_id: int | None = None,
    dataset_id: int | None = None,
    run_id: int | None = None,
    score_id: int | None = None,
) -> None:
    """Switch to the Results page showing these scores (call from a page's script flow)."""
    preset_results(
        ResultsFilter(
            scorer_id=scorer_id, version_id=version_id, dataset_id=dataset_id, run_id=run_id
        ),
        score_id=score_id,
    )
    st.switch_page(RESULTS_PAGE)


def preset_compare(*, before: int, after: int) -> None:
    """Make Compare runs show run ``before`` (A) against run ``after`` (B) when it renders."""
    threshold = state.get(state.COMPARE_SELECTION).get("threshold")
    state.put(
        state.COMPARE_SELECTION,
        {"mode": "runs", "before": before, "after": after, "threshold": threshold},
    )
    state.reset(state.COMPARE_PAGE)
    state.reset(state.COMPARE_EXAMPLE_ID)
    for key in state.COMPARE_PICK_WIDGETS:
        state.forget(key)


def open_compare(*, before: int, after: int) -> None:
    """Switch to Compare runs with these two runs (call from a page's script flow)."""
    preset_compare(before=before, after=after)
    st.switch_page(COMPARE_PAGE)


def open_run(run_id: int) -> None:
    """Switch to the Runs page showing run ``run_id`` (call from a page's script flow)."""
    state.put(state.SELECTED_RUN_ID, run_id)
    st.switch_page(RUNS_PAGE)


def go_to_runs_button(key: state.Key, label: str = "Go to Runs") -> None:
    """A button to the Runs page, where runs are started (the next step of an empty page)."""
    if st.button(label, key=key.name, type="primary", icon=":material/play_circle:"):
        st.switch_page(RUNS_PAGE)
