"""The Results page's filters: scorer, version, dataset, run, dates and outcomes.

The choice is remembered in ``state.RESULTS_FILTERS`` (so it survives a visit to another
page, and another page can preset it); a new choice starts the table again at page 1.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import streamlit as st

from scorer_runtime.types import OUTCOMES
from studio import state
from studio.app_pages.results import data
from studio.app_pages.results.logic import dataset_choices, scorer_choices, version_choices
from studio.widgets.current_scorer import newly_current, work_on
from studio.widgets.results_filter import ResultsFilter
from studio.widgets.results_widgets import id_select, seed
from studio.words import outcome_label


def _seed_all(saved: ResultsFilter) -> None:
    values = (
        saved.scorer_id,
        saved.version_id,
        saved.dataset_id,
        saved.run_id,
        saved.since,
        saved.until,
        list(saved.outcomes or ()),
    )
    for key, value in zip(state.RESULTS_FILTER_WIDGETS, values, strict=True):
        seed(key, value)


def _follow_current() -> None:
    """Switch to the scorer the person is working on when it changed (saved in the builder,
    picked on another page), unless another page asked for one run's results."""
    current = newly_current(state.RESULTS_FOLLOWED)
    saved = ResultsFilter.from_state(state.get(state.RESULTS_FILTERS))
    if current is None or saved.run_id is not None or saved.scorer_id == current:
        return
    state.put(state.RESULTS_FILTERS, replace(saved, scorer_id=current, version_id=None).to_state())
    state.reset(state.RESULTS_CURSOR)
    for key in (state.RESULTS_SCORER, state.RESULTS_VERSION, state.RESULTS_RUN):
        state.forget(key)


def _picked_scorer() -> None:
    work_on(state.peek(state.RESULTS_SCORER), state.RESULTS_FOLLOWED)


def render_filters() -> ResultsFilter:
    """Draw the filters and return what they select."""
    names = data.names()
    _follow_current()
    saved = ResultsFilter.from_state(state.get(state.RESULTS_FILTERS))
    _seed_all(saved)
    with st.container(border=True):
        top = st.columns(4)
        with top[0]:
            scorer_id = id_select(
                "Scorer",
                state.RESULTS_SCORER,
                scorer_choices(names, data.titles()),
                empty="All scorers",
                help="Only results of this scorer. Archived scorers are listed last.",
                on_change=_picked_scorer,
            )
        with top[1]:
            version_id = id_select(
                "Version",
                state.RESULTS_VERSION,
                version_choices(names, scorer_id),
                empty="All versions" if scorer_id else "Pick a scorer first",
                help="Saving a scorer makes a new version; each result belongs to one version.",
            )
        with top[2]:
            dataset_id = id_select(
                "Dataset",
                state.RESULTS_DATASET,
                dataset_choices(names),
                empty="All datasets",
                help="Only results on examples of this dataset.",
            )
        with top[3]:
            run_id = id_select(
                "Run",
                state.RESULTS_RUN,
                data.runs(scorer_id, version_id, dataset_id),
                empty="All runs",
                help="One run of a scorer version over a dataset (newest first).",
            )
        since, until, outcomes = _second_row()
    chosen = ResultsFilter(scorer_id, version_id, dataset_id, run_id, since, until, outcomes)
    _remember(chosen)
    return chosen


def _second_row() -> tuple[date | None, date | None, tuple[str, ...] | None]:
    left, middle, right = st.columns([1, 1, 2])
    with left:
        since = st.date_input(
            "From",
            value=None,
            key=state.RESULTS_SINCE.name,
            help="Results scored on or after this day (UTC). Leave empty for no limit.",
            format="YYYY-MM-DD",
        )
    with middle:
        until = st.date_input(
            "Until",
            value=None,
            key=state.RESULTS_UNTIL.name,
            help="Results scored on or before this day (UTC). Leave empty for no limit.",
            format="YYYY-MM-DD",
        )
    with right:
        outcomes = st.multiselect(
            "Outcomes",
            list(OUTCOMES),
            key=state.RESULTS_OUTCOMES.name,
            format_func=outcome_label,
            placeholder="All outcomes",
            help="Scored results have a number. 'Not scorable' means the scorer decided the "
            "example cannot be scored; the others are failures (a step, the judge's service, "
            "or an unreadable judge answer). Leave empty for all.",
        )
    return (
        since if isinstance(since, date) else None,
        until if isinstance(until, date) else None,
        tuple(outcomes) or None,
    )


def _remember(chosen: ResultsFilter) -> None:
    """Keep the choice; a different one starts the table at page 1 and closes the drill-down."""
    if chosen.to_state() != ResultsFilter.from_state(state.get(state.RESULTS_FILTERS)).to_state():
        state.reset(state.RESULTS_CURSOR)
        state.reset(state.SELECTED_SCORE_ID)
    state.put(state.RESULTS_FILTERS, chosen.to_state())


def clear_filters() -> None:
    """Back to every result (the "Clear filters" button's callback)."""
    state.reset(state.RESULTS_FILTERS)
    state.reset(state.RESULTS_CURSOR)
    for key in state.RESULTS_FILTER_WIDGETS:
        state.forget(key)
