"""The Stability tab: score a sample of a dataset several times with one version and see
which examples changed verdict. The repeats are queued for the runner (like a run started
on the Runs page), so the page never waits on the judge; it follows them as they finish."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from scorer_runtime.trust.evidence import FlipEvidence
from scorer_runtime.trust.policy import NO_JUDGE_WORDS
from scorer_runtime.trust.stability import (
    DEFAULT_REPEATS,
    DEFAULT_SAMPLE,
    MAX_REPEATS,
    MAX_SAMPLE,
    StabilityPlan,
    StabilityReport,
)
from studio import state
from studio.app_pages.trust import stability_data as data
from studio.app_pages.trust.stability_logic import (
    cap_words,
    cost_words,
    example_rows,
    flip_chart,
)
from studio.widgets import pickers
from studio.widgets.dataset_choice import open_on_suited, warn_if_unsuited
from studio.widgets.runner_notice import render_runner_notice

REFRESH_S = 1.0
"""How often a check under way is read again."""


def _start(chosen: StabilityPlan) -> None:
    try:
        data.start(chosen)
    except ValueError as error:  # a judge key not set, a spec that no longer compiles
        state.flash(f"The check did not start: {error}", icon=":material/error:")
    else:
        state.flash(
            f"Stability check started: {chosen.describe()} The runner scores the repeats; "
            "the results appear below as they finish.",
            icon=":material/rocket_launch:",
        )


def _form(
    scorer_id: int, versions: dict[int, int], datasets: dict[int, str]
) -> StabilityPlan | None:
    cols = st.columns(4)
    version_id = cols[0].selectbox(
        "Version",
        list(versions),
        format_func=lambda v: f"Version {versions[v]}",
        key=state.TRUST_STABILITY_VERSION.child(scorer_id).name,
    )
    if not data.asks_judge(int(version_id)):
        st.success(
            f"Version {versions[int(version_id)]} needs no stability check. {NO_JUDGE_WORDS} "
            "The trust policy does not ask for one.",
            icon=":material/check_circle:",
        )
        return None
    open_on_suited(
        state.TRUST_STABILITY_DATASET.child(scorer_id),
        scorer_id=scorer_id,
        version_id=None if version_id is None else int(version_id),
        dataset_ids=datasets,
    )
    dataset_id = cols[1].selectbox(
        "Examples from",
        list(datasets),
        format_func=lambda d: datasets[d],
        key=state.TRUST_STABILITY_DATASET.child(scorer_id).name,
    )
    sample, repeats = _sizes(cols[2], cols[3], scorer_id)
    warn_if_unsuited(
        state.TRUST_STABILITY_DATASET.child(scorer_id),
        state.TRUST_STABILITY_FITTING.child(scorer_id),
        scorer_id=scorer_id,
        version_ids=[int(version_id)],
        dataset_id=int(dataset_id),
        datasets=datasets,
    )
    try:
        return data.plan(int(version_id), int(dataset_id), sample, repeats)
    except ValueError as error:
        st.warning(f"{error}.", icon=":material/warning:")
        return None


def _sizes(left: DeltaGenerator, right: DeltaGenerator, scorer_id: int) -> tuple[int, int]:
    """How many examples the check samples, and how many times it scores each."""
    sample = left.number_input(
        "Examples in the sample",
        min_value=1,
        max_value=MAX_SAMPLE,
        value=DEFAULT_SAMPLE,
        key=state.TRUST_STABILITY_SAMPLE.child(scorer_id).name,
        help="Drawn at random from the dataset (the same draw each time). All of them when "
        "the dataset has fewer.",
    )
    repeats = right.number_input(
        "Times each is scored",
        min_value=2,
        max_value=MAX_REPEATS,
        value=DEFAULT_REPEATS,
        key=state.TRUST_STABILITY_REPEATS.child(scorer_id).name,
        help="Every time asks the judge again; no earlier answer is reused.",
    )
    return int(sample), int(repeats)


def _stopped(report: StabilityReport) -> None:
    st.warning(
        f"**Latest check of version {report.version}: stopped.** {report.words()}",
        icon=":material/stop_circle:",
    )
    if any(s is not None for e in report.flips.examples for s in e.scores):
        outputs = data.outputs(list(report.check.example_ids))
        with st.expander("What the repeats scored before the stop (not counted)"):
            st.dataframe(example_rows(report.flips.examples, outputs), hide_index=True)


def _results(report: StabilityReport) -> None:
    flips = report.flips
    if report.stopped:
        _stopped(report)
        return
    st.markdown(f"**Latest check of version {report.version}.** {report.words()}")
    if flips.rate is None or flips.ci_low is None or flips.ci_high is None:
        return
    cols = st.columns(3)
    cols[0].metric("Flip rate", f"{flips.rate:.0%}", help="Examples whose verdict changed.")
    cols[1].metric(
        "95 % interval",
        f"{flips.ci_low:.0%} to {flips.ci_high:.0%}",
        help="Where the true flip rate most likely lies; more examples make it narrower.",
    )
    cols[2].metric("Examples compared", f"{flips.compared}")
    outputs = data.outputs(list(report.check.example_ids))
    if flips.unstable:
        st.markdown("**Examples whose verdict changed between repeats**")
        st.dataframe(example_rows(flips.unstable, outputs), hide_index=True)
    else:
        st.success("No example changed its verdict between repeats.", icon=":material/check:")
    with st.expander("Every example of the sample"):
        st.dataframe(example_rows(flips.examples, outputs), hide_index=True)


def _stop(check_id: int) -> None:
    data.stop(check_id)


@st.fragment(run_every=REFRESH_S)
def _follow(scorer_id: int, version_id: int, dataset_id: int) -> None:
    report = data.latest_report(version_id, dataset_id)
    if report is None:
        return
    if report.ended:
        st.rerun()  # the whole tab: the results and the chart per version
    done = sum(run.done_count for run in report.runs)
    total = sum(run.total for run in report.runs) or 1
    bar, button = st.columns([4, 1], vertical_alignment="center")
    bar.progress(done / total, text=report.words())
    button.button(
        "Stop the check",
        key=state.TRUST_STABILITY_STOP.child(scorer_id).name,
        icon=":material/stop_circle:",
        on_click=_stop,
        args=(report.check.id,),
        disabled=report.stopping,
        help="Cancels the repeats that have not finished. What was scored is kept, but a "
        "stopped check does not count for the trust policy.",
    )


def _cost_words(chosen: StabilityPlan) -> str:
    """The check's estimated cost (sample times repeats), or why it is unknown."""
    if chosen.judge_calls == 0:
        return ""
    scorings = len(chosen.example_ids) * chosen.repeats
    made = data.cost(chosen.scorer_version_id, chosen.dataset_id, scorings)
    said = cost_words([made])
    cap = cap_words(
        {"each repeat": data.judge_cap(chosen.scorer_version_id)}, [made], each="each repeat"
    )
    return (
        f"{said} The judge is asked afresh every time: no answer comes from the cache. {cap}"
    ).strip()


def _ended_since_drawn(
    report: StabilityReport | None, drawn: Mapping[int, FlipEvidence | None]
) -> bool:
    """Whether the check ended after the page read the verdicts it drew above the tabs
    (``drawn``: each version's flip evidence then). A quick check can end while the page is
    being drawn: the results would show under a banner still saying "no complete stability
    check", and with the check over, nothing would draw the page again."""
    if report is None or not report.ended:
        return False
    version_id = report.check.scorer_version_id
    return version_id in drawn and drawn[version_id] != report.evidence


def render(scorer_id: int, drawn: Mapping[int, FlipEvidence | None]) -> None:
    """The Stability tab of the scorer ``scorer_id``; ``drawn`` is the flip evidence of each
    version whose verdict the page drew above the tabs."""
    versions, datasets = data.versions(scorer_id), _dataset_names()
    if not versions or not datasets:
        st.info(
            "A stability check needs a saved version of this scorer and a dataset of "
            "examples: add examples on the Examples page first.",
            icon=":material/info:",
        )
        return
    st.caption(
        "Score the same examples several times and see whether the judge changes its mind. "
        "A judge that flips often cannot be trusted in a release check."
    )
    chosen = _form(scorer_id, versions, datasets)
    if chosen is None:
        return
    st.info(
        f"Before you start: {chosen.describe()} {_cost_words(chosen)}", icon=":material/calculate:"
    )
    render_runner_notice(where="trust")
    report = data.latest_report(chosen.scorer_version_id, chosen.dataset_id)
    if _ended_since_drawn(report, drawn):
        st.rerun()  # the whole page, with the verdicts this check now gives
    st.button(
        "Check stability",
        key=state.TRUST_STABILITY_START.child(scorer_id).name,
        icon=":material/replay:",
        type="primary",
        on_click=_start,
        args=(chosen,),
        disabled=report is not None and not report.ended,
        help="Queues the repeats for the runner; you can leave the page meanwhile.",
    )
    if report is None:
        st.caption("This version has not been checked on this dataset yet.")
    elif not report.ended:
        _follow(scorer_id, chosen.scorer_version_id, chosen.dataset_id)
    else:
        _results(report)
    rates = data.rates(scorer_id)
    if rates:
        st.markdown("**Flip rate per version** (the latest check of each, with its interval)")
        st.altair_chart(flip_chart(rates), width="stretch")


def _dataset_names() -> dict[int, str]:
    return {d.id: d.name for d in pickers.dataset_choices()}
