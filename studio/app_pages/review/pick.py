"""Choosing what to grade: a scorer, and a dataset's examples or a run's."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.review import data
from studio.widgets import pickers
from studio.widgets.current_scorer import scorer_to_open, work_on
from studio.widgets.dataset_choice import open_on_suited

_SOURCES = {
    "dataset": "A dataset",
    "run": "A run (the judge's verdicts from that run)",
}


def _picked_scorer() -> None:
    work_on(state.peek(state.REVIEW_SCORER), state.REVIEW_FOLLOWED)
    state.forget(state.REVIEW_DATASET)  # the next one suits the new scorer


def render_picker(scorers: dict[int, str]) -> data.Source | None:
    """Draw the choice; returns what to grade, or None (with a message saying what to pick)."""
    opening = scorer_to_open(state.REVIEW_FOLLOWED, state.REVIEW_SCORER)
    if opening in scorers:
        if opening != state.peek(state.REVIEW_SCORER):
            state.forget(state.REVIEW_DATASET)  # the next one suits the scorer opened on
        state.put(state.REVIEW_SCORER, opening)
    state.choose_valid(state.REVIEW_SCORER, list(scorers))
    left, middle, right = st.columns([2, 2, 3])
    with left:
        scorer_id = st.selectbox(
            "Scorer",
            list(scorers),
            key=state.REVIEW_SCORER.name,
            format_func=lambda i: scorers.get(i, str(i)),
            on_change=_picked_scorer,
            help="You grade on this scorer's own scale, so your grades can be compared with "
            "its judge.",
        )
    with middle:
        kind = st.radio(
            "Grade the examples of",
            list(_SOURCES),
            key=state.REVIEW_SOURCE.name,
            format_func=lambda k: _SOURCES[k],
        )
    with right:
        source = _pick_run(scorer_id) if kind == "run" else _pick_dataset(scorer_id)
    return source


def _pick_dataset(scorer_id: int) -> data.Source | None:
    datasets = {d.id: d.label for d in pickers.dataset_choices()}
    open_on_suited(state.REVIEW_DATASET, scorer_id=scorer_id, version_id=None, dataset_ids=datasets)
    dataset_id = st.selectbox(
        "Dataset",
        list(datasets),
        key=state.REVIEW_DATASET.name,
        format_func=lambda i: datasets.get(i, str(i)),
        help="The judge's verdict shown is its latest score of the example by the scorer's "
        "newest version.",
    )
    if dataset_id is None:
        return None
    return data.Source(scorer_id, "dataset", dataset_id, dataset_id)


def _pick_run(scorer_id: int) -> data.Source | None:
    runs = data.runs(scorer_id)
    if not runs:
        st.info(
            "This scorer has not run yet. Grade a dataset instead, or run the scorer on the "
            "Runs page first.",
            icon=":material/info:",
        )
        return None
    state.choose_valid(state.REVIEW_RUN, list(runs))
    run_id = st.selectbox(
        "Run",
        list(runs),
        key=state.REVIEW_RUN.name,
        format_func=lambda i: runs[i][0] if i in runs else str(i),
        help="The judge's verdict shown is the one this run gave.",
    )
    if run_id is None:
        return None
    return data.Source(scorer_id, "run", run_id, runs[run_id][1])
