"""Altair charts of score aggregates: distribution, trend per version, outcome mix.

Every chart is built from aggregates the database computed (histogram bins, daily means,
outcome counts), never from raw rows, so it draws as fast with 100,000 scores as with 10.
The functions return the chart (no Streamlit call), so tests can read the Vega-Lite spec;
pages show them with ``st.altair_chart(chart, width="stretch")``. Altair is imported on
first use: it takes half a second, and pages without charts should not pay for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scorer_runtime.store import HistogramBin
from scorer_runtime.store.views import TrendPoint
from scorer_runtime.types import OUTCOMES

if TYPE_CHECKING:
    import altair as alt

OUTCOME_HEX = {
    "scored": "#2e7d32",
    "not_scorable": "#9e9e9e",
    "step_error": "#c62828",
    "provider_error": "#ef6c00",
    "judge_format_error": "#f9a825",
}
"""Outcome colours, matching the badges (scored green, errors red and orange)."""
PASS_HEX, FAIL_HEX = "#2e7d32", "#c62828"


def _count_axis() -> alt.Axis:
    """The axis of a count: whole numbers only (no 0.2 results), at any scale."""
    import altair as alt

    return alt.Axis(tickMinStep=1, format="d")


def _fmt(value: float) -> str:
    return f"{value:.2f}"


def histogram_chart(
    bins: Sequence[HistogramBin], *, threshold: float | None = None
) -> alt.Chart | alt.LayerChart:
    """Bars of how many scores fall in each bin; with a threshold, bins at or above it are
    green ("passes"), the others red, and a dashed line marks the threshold."""
    import altair as alt

    rows = _histogram_rows(bins, threshold)
    color: Any = alt.value(PASS_HEX)
    if threshold is not None:
        color = alt.Color(
            "side:N",
            title="At the threshold",
            scale=alt.Scale(domain=["passes", "fails"], range=[PASS_HEX, FAIL_HEX]),
        )
    bars: alt.Chart = (
        alt.Chart(alt.InlineData(values=rows), height=240)
        .mark_bar()
        .encode(
            x=alt.X("from:Q", bin="binned", title="Score"),
            x2="to:Q",
            y=alt.Y("count:Q", title="Results", axis=_count_axis()),
            color=color,
            tooltip=[
                alt.Tooltip("range:N", title="Scores"),
                alt.Tooltip("count:Q", title="Results"),
            ],
        )
    )
    if threshold is None:
        return bars
    rule: alt.Chart = (
        alt.Chart(alt.InlineData(values=[{"threshold": threshold}]))
        .mark_rule(strokeDash=[4, 4], color="#424242")
        .encode(x="threshold:Q", tooltip=[alt.Tooltip("threshold:Q", title="Threshold")])
    )
    return alt.LayerChart(layer=[bars, rule])


def _histogram_rows(bins: Sequence[HistogramBin], threshold: float | None) -> list[dict[str, Any]]:
    return [
        {
            "from": b.lo,
            "to": b.hi,
            "count": b.count,
            "range": f"{_fmt(b.lo)} – {_fmt(b.hi)}",
            "side": _side(b, threshold),
        }
        for b in bins
    ]


def _side(b: HistogramBin, threshold: float | None) -> str:
    # A bin passes when its middle is at or above the threshold (bins straddle it otherwise).
    if threshold is None:
        return "passes"
    return "passes" if (b.lo + b.hi) / 2 >= threshold else "fails"


def trend_chart(
    points: Sequence[TrendPoint], *, domain: tuple[float, float] | None = None
) -> alt.Chart:
    """One line per scorer version: its mean score on each day (UTC) that has scores."""
    import altair as alt

    rows = [
        {"day": p.day.isoformat(), "version": p.version, "mean": p.mean, "count": p.count}
        for p in points
    ]
    scale = alt.Scale(domain=list(domain)) if domain else alt.Scale(zero=False)
    chart: alt.Chart = (
        alt.Chart(alt.InlineData(values=rows), height=240)
        .mark_line(point=True)
        .encode(
            x=alt.X("day:T", title="Day (UTC)", timeUnit="utcyearmonthdate"),
            y=alt.Y("mean:Q", title="Mean score", scale=scale),
            color=alt.Color("version:N", title="Version"),
            tooltip=[
                alt.Tooltip("version:N", title="Version"),
                alt.Tooltip("day:T", title="Day", timeUnit="utcyearmonthdate"),
                alt.Tooltip("mean:Q", title="Mean score", format=".2f"),
                alt.Tooltip("count:Q", title="Scores"),
            ],
        )
    )
    return chart


@dataclass(frozen=True, slots=True)
class OutcomeShare:
    """How many results ended in one outcome, and their share of all results."""

    outcome: str
    count: int
    share: float


def outcome_shares(counts: Mapping[str, int]) -> list[OutcomeShare]:
    """Outcomes in their fixed order (scored first), only those that occur."""
    total = sum(counts.values())
    known = [o for o in OUTCOMES if counts.get(o)]
    other = sorted(o for o in counts if o not in OUTCOMES and counts[o])
    return [OutcomeShare(o, counts[o], counts[o] / total) for o in (*known, *other)]


def outcome_chart(shares: Sequence[OutcomeShare], labels: Mapping[str, str]) -> alt.Chart:
    """One bar per outcome (scored, not scorable, each kind of failure), in a fixed order."""
    import altair as alt

    rows = [
        {
            "outcome": labels.get(s.outcome, s.outcome),
            "count": s.count,
            "share": s.share,
            "order": i,
        }
        for i, s in enumerate(shares)
    ]
    domain = [labels.get(s.outcome, s.outcome) for s in shares]
    colors = [OUTCOME_HEX.get(s.outcome, "#757575") for s in shares]
    chart: alt.Chart = (
        alt.Chart(alt.InlineData(values=rows))
        .mark_bar()
        .encode(
            y=alt.Y("outcome:N", title=None, sort=domain, axis=alt.Axis(labelLimit=240)),
            x=alt.X("count:Q", title="Results", axis=_count_axis()),
            color=alt.Color("outcome:N", scale=alt.Scale(domain=domain, range=colors), legend=None),
            tooltip=[
                alt.Tooltip("outcome:N", title="Outcome"),
                alt.Tooltip("count:Q", title="Results"),
                alt.Tooltip("share:Q", title="Share", format=".0%"),
            ],
        )
    )
    return chart
