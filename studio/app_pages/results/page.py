"""Results: every score ever computed — filter, see the numbers and charts, open one score."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.results import data
from studio.app_pages.results.filters import clear_filters, render_filters
from studio.app_pages.results.summary import (
    render_by_scorer,
    render_charts,
    render_numbers,
    render_outcomes,
    render_threshold,
)
from studio.app_pages.results.table import render_table
from studio.widgets.common import empty_state, page_header
from studio.widgets.results_filter import ResultsFilter
from studio.widgets.results_links import go_to_runs_button
from studio.widgets.trust_badge import scorer_badge

state.show_flashes()
page_header(
    "Results",
    "Every score your scorers have given: how they spread, how they change from version to "
    "version, and how each one was reached.",
)

if data.stats(ResultsFilter()).total == 0:
    empty_state(
        "**No results yet.** Results appear here once a scorer has run on a dataset: each "
        "example's score and reason, charts of how scores spread and move over time, and a "
        "look inside any single score — the prompt the judge got and what it answered.\n\n"
        "Start a run on the Runs page: pick a scorer and a dataset, then press *Run*."
    )
    go_to_runs_button(state.RESULTS_GO_RUNS, "Start a run")
    st.stop()

top = st.columns([6, 1])
with top[1]:
    st.button(
        "Refresh", key=state.RESULTS_REFRESH.name, on_click=data.refresh, icon=":material/refresh:"
    )
chosen = render_filters()
problem = chosen.problem()
if problem:
    st.warning(problem, icon=":material/event_busy:")
    st.stop()

if chosen.scorer_id in data.names().external_scorers:
    st.caption(
        ":material/call_received: These scores were sent by another tool (OpenTelemetry "
        "evaluation events), linked to the trace steps it judged. Compare them with your own "
        "scorer's on the same traces: pick *All scorers*, or open the traces on the Traces page."
    )
elif chosen.scorer_id is not None:
    scorer_badge(chosen.scorer_id, chosen.version_id)
stats = data.stats(chosen)
if stats.total == 0:
    st.info("No results match these filters.", icon=":material/filter_alt_off:")
    st.button("Clear filters", key=state.RESULTS_CLEAR.name, on_click=clear_filters)
    st.stop()

threshold = render_threshold(stats)
# Several scorers measure different things: their figures side by side, never one mean.
mixed = data.scorers_in(chosen) if chosen.scorer_id is None else []
if len(mixed) > 1:
    render_by_scorer(chosen, mixed, threshold)
else:
    render_numbers(chosen, stats, threshold)
render_outcomes(stats)
render_charts(chosen, stats, threshold, mixed=len(mixed) > 1)
st.subheader("Each result")
render_table(chosen, stats)
