"""The Trust page's Altair charts: the confusion matrix as a heat map, and agreement with its
interval per version over time (returned, not drawn, so tests can read their specs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    import altair as alt


def confusion_chart(frame: pd.DataFrame, order: list[str]) -> alt.LayerChart:
    """Cells coloured by how many examples got that pair of grades, the count written in."""
    import altair as alt

    base = alt.Chart(frame).encode(
        x=alt.X("Judge:N", sort=order, title="The judge said", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("People:N", sort=order, title="People said"),
    )
    cells = base.mark_rect().encode(
        color=alt.Color("Examples:Q", scale=alt.Scale(scheme="blues"), legend=None),
        tooltip=["People", "Judge", "Examples"],
    )
    text = base.mark_text(fontSize=16).encode(
        text="Examples:Q",
        color=alt.condition(
            alt.datum.Examples > frame["Examples"].max() / 2, alt.value("white"), alt.value("black")
        ),
    )
    chart: alt.LayerChart = (cells + text).properties(height=60 * len(order) + 40)
    return chart


def over_time_chart(frame: pd.DataFrame, minimum: float) -> alt.LayerChart:
    """Kappa per version by the date it was saved, its 95 % interval as a bar, and the
    policy's minimum as a dashed line.

    Times are stored in UTC and drawn in UTC, labelled so (a UTC time read as the viewer's
    own would be hours off); kappa reads with two decimals on the axis and in the tooltip.
    """
    import altair as alt

    frame = frame.assign(Saved=pd.to_datetime(frame["Saved"], utc=True))
    frame["Saved (UTC)"] = frame["Saved"].dt.strftime("%d %b %Y, %H:%M")
    x = alt.X(
        "Saved:T",
        title="Version saved (UTC)",
        scale=alt.Scale(type="utc"),
        axis=alt.Axis(format="%d %b %H:%M", labelAngle=0),
    )
    bars = (
        alt.Chart(frame)
        .mark_rule(strokeWidth=2)
        .encode(
            x=x,
            y=alt.Y(
                "Low:Q",
                title="Kappa (95 % interval)",
                scale=alt.Scale(domain=[-0.2, 1]),
                axis=alt.Axis(format=".2f"),
            ),
            y2="High:Q",
        )
    )
    points = (
        alt.Chart(frame)
        .mark_point(filled=True, size=80)
        .encode(
            x=x,
            y="Kappa:Q",
            tooltip=[
                "Version",
                "Saved (UTC)",
                alt.Tooltip("Kappa:Q", format=".2f"),
                alt.Tooltip("Low:Q", title="Interval from", format=".2f"),
                alt.Tooltip("High:Q", title="Interval to", format=".2f"),
                "Examples",
            ],
        )
    )
    labels = alt.Chart(frame).mark_text(dy=-12).encode(x=x, y="High:Q", text="Version:N")
    line = (
        alt.Chart(pd.DataFrame({"Minimum": [minimum]}))
        .mark_rule(strokeDash=[4, 4])
        .encode(y="Minimum:Q")
    )
    chart: alt.LayerChart = (bars + points + labels + line).properties(height=260)
    return chart
