"""The numbers and charts of the Results page: every number with its count, spread and
outcome mix; a histogram and a trend per version, both drawn from SQL aggregates."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from scorer_runtime.store import ScoreStats
from studio import state
from studio.app_pages.results import data
from studio.app_pages.results.logic import HISTOGRAM_TITLE, score_range
from studio.widgets.charts import histogram_chart, outcome_chart, outcome_shares, trend_chart
from studio.widgets.common import format_score
from studio.widgets.results_filter import ResultsFilter
from studio.words import OUTCOME_LABELS, cost_value, cost_words, outcome_label


def render_threshold(
    stats: ScoreStats, *, key: state.Key = state.RESULTS_THRESHOLD_SLIDER
) -> float:
    """The pass-mark slider over the scores' range; remembered across pages."""
    lo, hi = score_range(stats)
    saved = state.get(state.RESULTS_THRESHOLD)
    default = saved if isinstance(saved, int | float) else round(lo + (hi - lo) / 2, 2)
    current = state.peek(key, default)
    # Another filter can change the range under a remembered value: keep it inside.
    state.put(key, float(min(max(current, lo), hi)))
    value = st.slider(
        "Pass mark",
        min_value=lo,
        max_value=hi,
        step=round((hi - lo) / 100, 4),
        key=key.name,
        help="A result passes when its score is at least this. It sets the pass rate and "
        "colours the histogram; it changes nothing that is stored.",
    )
    state.put(state.RESULTS_THRESHOLD, value)
    return float(value)


def _percent(part: int, whole: int) -> str:
    return "—" if whole == 0 else f"{part / whole:.0%}"


def render_numbers(filter: ResultsFilter, stats: ScoreStats, threshold: float) -> None:
    """Count, mean, median, spread and pass rate, each with what it covers."""
    spread = data.spread(filter)
    passed = data.passed(filter, threshold) if stats.count else 0
    cols = st.columns(5)
    cols[0].metric(
        "Results",
        f"{stats.total:,}",
        help="Every stored result matching the filters, whatever its outcome.",
    )
    cols[1].metric(
        "Mean score",
        format_score(stats.mean),
        help=f"The average of the {stats.count:,} scored results. Not-scorable results and "
        "failures are left out of every number here except the count.",
    )
    cols[2].metric("Median score", format_score(stats.median), help="Half the scores are lower.")
    cols[3].metric(
        "Spread",
        "—" if spread is None else f"± {spread:.2f}",
        help="The standard deviation: how far a typical score lies from the mean.",
    )
    cols[4].metric(
        "Pass rate",
        _percent(passed, stats.count),
        help=f"Scored results at or above the pass mark ({threshold:g}).",
    )
    parts = [f"{stats.count:,} scored"]
    if stats.min is not None and stats.max is not None:
        parts.append(f"scores from {format_score(stats.min)} to {format_score(stats.max)}")
    if stats.count:
        parts.append(f"{passed:,} of {stats.count:,} pass at {threshold:g}")
    parts.append(f"judge cost {cost_words(stats.cost, stats.priced, stats.unpriced)}")
    st.caption(" · ".join(parts))


def render_by_scorer(
    filter: ResultsFilter, found: list[tuple[int, ScoreStats]], threshold: float
) -> None:
    """Several scorers' results: one line of figures each, never one mean of them all (each
    scorer scores on its own scale, so their mean together says nothing)."""
    total = sum(own.total for _, own in found)
    st.info(
        f"**{total:,} results from {len(found)} scorers.** Each scorer measures something "
        "else, so their scores are not averaged together: here are each scorer's figures. "
        "Pick one scorer above to see its charts.",
        icon=":material/call_split:",
    )
    titles = data.titles()
    external = data.names().external_scorers
    rows = []
    for scorer_id, own in found:
        passed = data.passed(replace(filter, scorer_id=scorer_id), threshold) if own.count else 0
        cost = cost_value(cost_words(own.cost, own.priced, own.unpriced))
        rows.append(
            {
                "Scorer": titles.get(scorer_id, data.names().scorer(scorer_id)),
                "Results": own.total,
                "Scored": own.count,
                "Mean score": format_score(own.mean),
                "Median score": format_score(own.median),
                f"Pass rate at {threshold:g}": _percent(passed, own.count),
                # Another tool's judge is not ours: what it cost is not known here.
                "Judge cost": "— (another tool)" if scorer_id in external else cost,
            }
        )
    st.dataframe(rows, hide_index=True, key=state.RESULTS_BY_SCORER.name)


def render_outcomes(stats: ScoreStats) -> None:
    """How the results ended: a split bar and the same in words."""
    shares = outcome_shares(stats.outcome_counts)
    if not shares:
        return
    words = " · ".join(f"{outcome_label(s.outcome)} {s.count:,} ({s.share:.0%})" for s in shares)
    st.markdown(f"**How the results ended:** {words}")
    st.altair_chart(
        outcome_chart(shares, OUTCOME_LABELS),
        width="stretch",
        key=state.RESULTS_CHART_OUTCOMES.name,
    )


def render_charts(
    filter: ResultsFilter, stats: ScoreStats, threshold: float, *, mixed: bool = False
) -> None:
    """The distribution of scores and the mean per day of each version (``mixed``: several
    scorers, whose scores are not put in one distribution)."""
    if stats.count == 0:
        st.info(
            "None of these results has a score: they all failed or were not scorable. "
            "Open one in the table below to see why.",
            icon=":material/info:",
        )
        return
    lo, hi = score_range(stats)
    left, right = st.columns(2)
    with left:
        st.markdown(f"**{HISTOGRAM_TITLE}**")
        if mixed:
            st.caption("Pick one scorer above to see how its scores are spread.")
            return _trend(filter, lo, hi, right)
        bins = data.histogram(filter, lo, hi)
        st.altair_chart(
            histogram_chart(bins, threshold=threshold),
            width="stretch",
            key=state.RESULTS_CHART_HISTOGRAM.name,
        )
        st.caption(
            f"{stats.count:,} scores in {len(bins)} equal ranges; the line is the pass mark."
        )
    _trend(filter, lo, hi, right)


def _trend(filter: ResultsFilter, lo: float, hi: float, column: DeltaGenerator) -> None:
    with column:
        st.markdown("**Mean score per day, by version**")
        trends = data.trends(filter)
        st.altair_chart(
            trend_chart(trends.points, domain=(lo, hi)),
            width="stretch",
            key=state.RESULTS_CHART_TREND.name,
        )
        note = "Days are UTC; days without scores are skipped."
        if trends.versions_total > trends.versions_shown:
            note += (
                f" Showing the {trends.versions_shown} versions with the most scores of "
                f"{trends.versions_total}; pick a scorer to see its versions."
            )
        st.caption(note)
