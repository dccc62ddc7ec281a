"""What the Stability and Compare-versions tabs show, as plain data (no Streamlit): table
rows, and the flip-rate chart per version (Altair, imported on first use)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from scorer_runtime.costs import CostEstimate
from scorer_runtime.costs.estimate import unpriced_words
from scorer_runtime.money import format_dollars
from scorer_runtime.trust.ab import AbReport, VersionSide
from scorer_runtime.trust.agreement import SETTLED_WIDTH, landis_koch, more_to_grade
from scorer_runtime.trust.flips import ExampleStability
from scorer_runtime.trust.stability import VersionFlipRate
from studio.words import cost_cell

if TYPE_CHECKING:
    import altair as alt


_PREVIEW = 80


def preview(value: object) -> str:
    """An example's output in one short line (text as is, anything else as JSON)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…"


def example_rows(
    examples: Sequence[ExampleStability], outputs: Mapping[int, object]
) -> list[dict[str, Any]]:
    """One row per example: its verdict in each repeat, whether it flipped, the spread."""
    rows = []
    for e in examples:
        row: dict[str, Any] = {
            "Example": f"#{e.example_id}",
            "Answer": preview(outputs.get(e.example_id)),
        }
        for i, verdict in enumerate(e.verdicts, start=1):
            row[f"Repeat {i}"] = verdict or "no score"
        row["Changed?"] = "yes" if e.flipped else "no"
        row["Score spread"] = "—" if e.spread is None else f"{e.spread:.3g}"
        rows.append(row)
    return rows


def flip_chart(rates: Sequence[VersionFlipRate]) -> alt.LayerChart:
    """The flip rate of each version (a bar) with its 95 % interval (a line)."""
    import altair as alt

    data = alt.InlineData(
        values=[
            {
                "Version": f"Version {r.version}",
                "Flip rate": r.rate,
                "Low": r.ci_low,
                "High": r.ci_high,
                "Examples": r.examples,
            }
            for r in rates
        ]
    )
    base = alt.Chart(data).encode(
        x=alt.X("Version:N", sort=None, title=None, axis=alt.Axis(labelAngle=0))
    )
    bars = base.mark_bar(color="#5c6bc0").encode(
        y=alt.Y(
            "Flip rate:Q",
            title="Flip rate",
            axis=alt.Axis(format="%"),
            scale=alt.Scale(domain=[0, 1]),
        ),
        tooltip=[
            "Version:N",
            alt.Tooltip("Flip rate:Q", format=".0%"),
            alt.Tooltip("Low:Q", format=".0%", title="Interval from"),
            alt.Tooltip("High:Q", format=".0%", title="Interval to"),
            "Examples:Q",
        ],
    )
    interval = base.mark_rule(color="#212121", strokeWidth=2).encode(
        y=alt.Y("Low:Q", title="Flip rate"), y2="High:Q"
    )
    return alt.LayerChart(layer=[bars, interval], height=220)


def _agreement(side: VersionSide) -> str:
    if side.agreement is None:
        return "no labelled example"
    found = side.agreement
    return f"{found.agreed} of {found.labelled} ({found.percent_words()})"


def _kappa(side: VersionSide) -> str:
    """The version's kappa with people and its reading ("0.78, substantial"), or why not."""
    found = side.agreement
    if found is None:
        return "no labelled example"
    value = found.kappa.value
    if value is None:
        return f"cannot be measured: {found.kappa_missing}"
    low, high = found.kappa.low, found.kappa.high
    if low is None or high is None:
        return f"{value:.2f}, {landis_koch(value)}"
    interval = f"95 % interval {low:.2f} to {high:.2f}"
    if high - low > SETTLED_WIDTH:  # too wide to put a word on: say what would narrow it
        more = more_to_grade(found.labelled, high - low)
        return f"{value:.2f} ({interval}: too few grades to read it; grade about {more} more)"
    return f"{value:.2f}, {landis_koch(value)} ({interval})"


def _kappa_label(*sides: VersionSide) -> str:
    """The row's name: which kappa (the same scale on both sides, as a rule)."""
    names = {side.agreement.kappa_name for side in sides if side.agreement is not None}
    name = names.pop() if len(names) == 1 else "kappa"
    return f"Agreement beyond chance ({name})"


def side_rows(report: AbReport) -> list[dict[str, str]]:
    """The two versions' figures, one row per figure."""
    a, b = report.a, report.b

    def row(name: str, of_a: str, of_b: str) -> dict[str, str]:
        return {"": name, f"A: version {a.version}": of_a, f"B: version {b.version}": of_b}

    def num(value: float | None, pattern: str) -> str:
        return "—" if value is None else format(value, pattern)

    return [
        row("Mean score", num(a.mean_score, ".3f"), num(b.mean_score, ".3f")),
        row("Pass rate", num(a.pass_rate, ".0%"), num(b.pass_rate, ".0%")),
        row("Cost", cost_cell(a.cost_words), cost_cell(b.cost_words)),
        row(
            "Mean time per example",
            "—" if a.mean_latency_ms is None else f"{a.mean_latency_ms:.0f} ms",
            "—" if b.mean_latency_ms is None else f"{b.mean_latency_ms:.0f} ms",
        ),
        row("Agrees with people", _agreement(a), _agreement(b)),
        row(_kappa_label(a, b), _kappa(a), _kappa(b)),
        row("Run", f"#{a.run_id}", f"#{b.run_id}"),
    ]


def difference_rows(report: AbReport, outputs: Mapping[int, object]) -> list[dict[str, str]]:
    """The examples whose verdict differs between the versions."""
    return [
        {
            "Example": f"#{d.example_id}",
            "Answer": preview(outputs.get(d.example_id)),
            f"Version {report.a.version} says": d.verdict_a,
            f"Version {report.b.version} says": d.verdict_b,
            "Scores": f"{d.score_a:.3g} → {d.score_b:.3g}",
        }
        for d in report.differences
    ]


def cap_words(
    caps: Mapping[str, float | None], made: Sequence[CostEstimate | str], *, each: str
) -> str:
    """What stops the runs a check queues: the judge's default cap ("Stop a run at $" on the
    Judges page), per run. ``caps``: each run's name (e.g. "the run of version 2") → its cap;
    ``each``: all of them at once (e.g. "each repeat"), said when they share one cap. Empty
    when no judge has a cap."""
    capped = {who: cap for who, cap in caps.items() if cap is not None}
    if not capped:
        return ""
    if any(isinstance(one, CostEstimate) and one.unpriced_models for one in made):
        return (
            "The judge's default spend cap cannot stop these runs: its model has no price "
            "(set a price on the Judges page to have them stopped)."
        )
    if len(capped) == len(caps) and len(set(capped.values())) == 1:
        capped = {each: next(iter(capped.values()))}
    said = "; ".join(f"{who} stops at {format_dollars(cap)}" for who, cap in capped.items())
    return f"{said[:1].upper()}{said[1:]} (the judge's default spend cap)."


def cost_words(made: Sequence[CostEstimate | str]) -> str:
    """The estimated cost of one or more runs together, or why it is unknown, in words."""
    for one in made:
        if isinstance(one, str):
            return one
    estimates = [one for one in made if not isinstance(one, str)]
    unpriced = sorted({model for one in estimates for model in one.unpriced_models})
    if unpriced:
        return unpriced_words(unpriced)
    typical = sum(one.typical_cost or 0.0 for one in estimates)
    worst = sum(one.worst_cost or 0.0 for one in estimates)
    return f"Cost: about {format_dollars(typical)}, at worst {format_dollars(worst)}."
