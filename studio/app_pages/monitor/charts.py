"""The Monitor page's chart: a rule's scores by window (hour or day, by when the traces ran),
each window's mean score or pass rate as a bar, windows that raised an alert in red (returned,
not drawn, so tests can read its spec)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from scorer_runtime.store.views import RuleWindows

if TYPE_CHECKING:
    import altair as alt

_ALERT, _STEADY = "#d62728", "#4c78a8"


def window_frame(windows: RuleWindows) -> pd.DataFrame:
    """One row per window: when it began (UTC), its value, its scores, and whether it alerted."""
    label = "%d %b %H:00" if windows.period == "hour" else "%d %b %Y"
    return pd.DataFrame(
        {
            "Window": [w.start for w in windows.windows],
            "Window (UTC)": [w.start.strftime(label) for w in windows.windows],
            "Value": [w.value for w in windows.windows],
            "Scores": [w.n for w in windows.windows],
            "Alert": ["Alert" if w.alert else "No alert" for w in windows.windows],
        }
    )


def windows_chart(windows: RuleWindows) -> alt.Chart:
    """Bars of each window's value (a pass rate in percent), alerts in red."""
    import altair as alt

    frame = window_frame(windows)
    rate = windows.measure == "pass_rate"
    title = "Pass rate" if rate else "Mean score"
    chart: alt.Chart = (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            x=alt.X(
                "Window (UTC):N",
                sort=None,
                title=f"{windows.period.capitalize()} the traces ran (UTC)",
                axis=alt.Axis(labelAngle=-30),
            ),
            y=alt.Y("Value:Q", title=title, axis=alt.Axis(format=".0%" if rate else ".2f")),
            color=alt.Color(
                "Alert:N",
                scale=alt.Scale(domain=["No alert", "Alert"], range=[_STEADY, _ALERT]),
                legend=alt.Legend(title=None, orient="top"),
            ),
            tooltip=[
                "Window (UTC)",
                alt.Tooltip("Value:Q", title=title, format=".0%" if rate else ".2f"),
                "Scores",
                "Alert",
            ],
        )
        .properties(height=260)
    )
    return chart
