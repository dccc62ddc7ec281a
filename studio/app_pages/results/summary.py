"""The numbers and charts of the Results page: every number with its count, spread and
outcome mix; a histogram and a trend per version, both drawn from SQL aggregates."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.store import ScoreStats
from studio import state
from studio.app_pages.results import data
from studio.app_pages.results.logic import score_range
from studio.widgets.charts import histogram_chart, outcome_chart, outcome_shares, trend_chart
from studio.widgets.common import format_score
from studio.widgets.results_filter import ResultsFilter
from studio.words import OUTCOME_LABELS, cost_words, outcome_label


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


def render_charts(filter: ResultsFilter, stats: ScoreStats, threshold: float) -> None:
    """The distribution of scores and the mean per day of each version."""
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
        st.markdown("**How the scores are spread**")
        bins = data.histogram(filter, lo, hi)
        st.altair_chart(
            histogram_chart(bins, threshold=threshold),
            width="stretch",
            key=state.RESULTS_CHART_HISTOGRAM.name,
        )
        st.caption(
            f"{stats.count:,} scores in {len(bins)} equal ranges; the line is the pass mark."
        )
    with right:
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
