"""The Agreement tab: how far the judge agrees with people, with intervals, base rates, the
confusion matrix, agreement per version over time, and every disagreement one click from its
score in Results."""

from __future__ import annotations

from typing import Any

import streamlit as st

from scorer_runtime.trust.agreement import Estimate
from scorer_runtime.trust.policy import VersionTrust
from studio import state
from studio.app_pages.trust import data
from studio.app_pages.trust.charts import confusion_chart, over_time_chart
from studio.app_pages.trust.logic import (
    confusion_frame,
    disagreement_rows,
    figure,
    over_time_frame,
    rate,
)
from studio.widgets.results_links import open_results
from studio.words import noun, plural

SHOWN_DISAGREEMENTS = 30
KAPPA_HELP = (
    "Agreement beyond chance: 1 is perfect, 0 is what guessing gives. Below it, the 95 % "
    "interval: the true value is very likely inside it. It comes from a Bayesian bootstrap "
    "of the table of grades (Rubin 1981): 50,000 tables drawn around the one measured, each "
    "cell given a small prior weight (Perks' prior, one example in all), so even with no "
    "disagreement the interval says how sure a few grades can be."
)
SAME_HELP = (
    "How often people and the judge gave the same verdict. The 95 % interval is Wilson's "
    "score interval (Wilson 1927): 30 of 30 the same still leaves 89 % to 100 %."
)
SPEARMAN_HELP = (
    "Whether the judge ranks examples as people do: 1 is the same order. The 95 % interval "
    "is Fisher's z with Bonett and Wright's standard error (2000); it needs 4 examples."
)


def render(scorer_id: int, found: VersionTrust) -> None:
    """The agreement of the chosen version, and of each version over time."""
    agreement = found.agreement
    for words in found.left_out:
        st.warning(words, icon=":material/report:")
    if agreement.n == 0:
        st.info(
            "**No example is both graded by a person and scored by this version yet.** Grade "
            "examples on the Review page, and run this version on the same dataset on the "
            "Runs page: agreement is measured on the examples that have both.",
            icon=":material/rate_review:",
        )
        return
    st.info(agreement.reading, icon=":material/psychology_alt:")
    _figures(found)
    left, right = st.columns(2)
    with left:
        st.markdown("**What people said and what the judge said**")
        chart = confusion_chart(confusion_frame(agreement), list(agreement.categories))
        st.altair_chart(chart, width="stretch")
    with right:
        _over_time(scorer_id)
    _disagreements(scorer_id, found)


def _figures(found: VersionTrust) -> None:
    agreement = found.agreement
    cells = st.columns(4)
    cells[0].metric("Examples graded and scored", agreement.n)
    _metric(
        cells[1],
        agreement.kappa_name.capitalize(),
        agreement.kappa,
        help=KAPPA_HELP,
    )
    _metric(cells[2], "Same verdict", agreement.percent_agreement, percent=True, help=SAME_HELP)
    cells[3].metric(
        "Pass rate: people / judge",
        f"{rate(agreement.human_pass_rate)} / {rate(agreement.judge_pass_rate)}",
        help="How often people and the judge say pass: when these differ a lot, a high "
        "share of the same verdict can still be chance.",
    )
    if agreement.spearman is not None or agreement.mae is not None:
        more = st.columns(4)
        _metric(more[0], "Rank agreement (Spearman)", agreement.spearman, help=SPEARMAN_HELP)
        _metric(more[1], "Mean distance between scores", agreement.mae)
    for words in agreement.problems[1:]:
        st.caption(words)


def _metric(
    cell: Any,
    label: str,
    estimate: Estimate | None,
    *,
    percent: bool = False,
    help: str | None = None,
) -> None:
    """A figure, with its 95 % interval written under it."""
    cell.metric(label, figure(estimate, percent=percent, interval=False), help=help)
    if estimate is not None and estimate.low is not None and estimate.high is not None:
        low, high = (f"{x:.0%}" if percent else f"{x:.2f}" for x in (estimate.low, estimate.high))
        cell.caption(f"95 % interval: {low} to {high}")


def _over_time(scorer_id: int) -> None:
    st.markdown("**Agreement of each version over time**")
    lines = data.versions(scorer_id)
    trusts = [(line, data.trust(line.id)) for line in lines]
    frame = over_time_frame(trusts)
    if frame.empty:
        st.caption("No version has enough graded examples for its agreement yet.")
        return
    st.altair_chart(over_time_chart(frame, data.policy(scorer_id).min_kappa_low), width="stretch")
    missing = len(lines) - len(frame)
    if missing:
        st.caption(
            f"{plural(missing, 'version')} without a measured agreement "
            f"{noun(missing, 'is', 'are')} not shown."
        )


def _disagreements(scorer_id: int, found: VersionTrust) -> None:
    rows = disagreement_rows(found)
    st.subheader(f"Where people and the judge disagree ({len(rows)})")
    if not rows:
        st.caption("People and the judge gave the same verdict on every graded example.")
        return
    st.caption("Open one to see each step's result, the prompt the judge got and its answer.")
    shown = rows[:SHOWN_DISAGREEMENTS]
    numbers = data.example_numbers(tuple(row["example_id"] for row in shown))
    for row in shown:
        text, button = st.columns([5, 1], vertical_alignment="center")
        note = f" — “{row['note']}”" if row["note"] else ""
        number = numbers.get(row["example_id"], row["example_id"])
        text.markdown(
            f"Example {number}: people said **{row['people']}** ({row['by']}), the "
            f"judge said **{row['judge']}**{note}"
        )
        if button.button("Open", key=state.TRUST_OPEN.child(row["score_id"]).name):
            open_results(
                scorer_id=scorer_id, version_id=found.scorer_version_id, score_id=row["score_id"]
            )
    if len(rows) > SHOWN_DISAGREEMENTS:
        st.caption(f"The first {SHOWN_DISAGREEMENTS} of {len(rows)} are shown.")
