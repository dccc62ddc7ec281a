"""The Health tab: how easily does the judged text sway this version's judge? A sample of a
dataset is scored as it is and under each perturbation family (an injected instruction, a
forged verdict, …); the runs are queued for the runner like a stability check's repeats, and
the tab follows them, then shows per family how many verdicts changed."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.trust.attacks import BY_ID, FAMILIES, WHAT_TO_DO
from scorer_runtime.trust.health import (
    DEFAULT_SAMPLE,
    MAX_SAMPLE,
    HealthPlan,
    HealthReport,
    family_words,
)
from scorer_runtime.trust.policy import NO_JUDGE_WORDS
from studio import state
from studio.app_pages.trust import data as trust_data
from studio.app_pages.trust import health_data as data
from studio.app_pages.trust import stability_data
from studio.app_pages.trust.health_logic import change_rows, family_rows
from studio.app_pages.trust.stability_logic import cap_words, cost_words
from studio.widgets import pickers
from studio.widgets.dataset_choice import open_on_suited, warn_if_unsuited
from studio.widgets.runner_notice import render_runner_notice

REFRESH_S = 1.0
"""How often a check under way is read again."""


def _start(chosen: HealthPlan) -> None:
    try:
        data.start(chosen)
    except ValueError as error:  # a judge key not set, a spec that no longer compiles
        state.flash(f"The health check did not start: {error}", icon=":material/error:")
    else:
        state.flash(
            f"Health check started: {chosen.describe()} The runner scores its runs; the "
            "results appear below as they finish.",
            icon=":material/rocket_launch:",
        )


def _form(scorer_id: int, version_id: int, datasets: dict[int, str]) -> HealthPlan | None:
    key = state.TRUST_HEALTH_DATASET.child(scorer_id)
    open_on_suited(key, scorer_id=scorer_id, version_id=version_id, dataset_ids=datasets)
    left, right = st.columns(2)
    dataset_id = left.selectbox(
        "Examples from", list(datasets), format_func=lambda d: datasets[d], key=key.name
    )
    sample = right.number_input(
        "Examples in the sample",
        min_value=1,
        max_value=MAX_SAMPLE,
        value=DEFAULT_SAMPLE,
        key=state.TRUST_HEALTH_SAMPLE.child(scorer_id).name,
        help="Drawn at random from the dataset (the same draw each time). All of them when "
        "the dataset has fewer.",
    )
    warn_if_unsuited(
        key,
        state.TRUST_HEALTH_FITTING.child(scorer_id),
        scorer_id=scorer_id,
        version_ids=[version_id],
        dataset_id=int(dataset_id),
        datasets=datasets,
    )
    try:
        return data.plan(version_id, int(dataset_id), int(sample))
    except ValueError as error:
        st.warning(f"{error}.", icon=":material/warning:")
        return None


def _cost_words(chosen: HealthPlan) -> str:
    scorings = len(chosen.example_ids) * chosen.runs
    made = stability_data.cost(chosen.scorer_version_id, chosen.dataset_id, scorings)
    cap = cap_words(
        {"each run": stability_data.judge_cap(chosen.scorer_version_id)}, [made], each="each run"
    )
    return (
        f"{cost_words([made])} The judge is asked afresh every time: no answer comes from the "
        f"cache. {cap}"
    ).strip()


def _stop(check_id: int) -> None:
    data.stop(check_id)


@st.fragment(run_every=REFRESH_S)
def _follow(scorer_id: int, version_id: int, dataset_id: int) -> None:
    report = data.latest_report(version_id, dataset_id)
    if report is None:
        return
    if report.ended:
        st.rerun()  # the whole tab, with the results
    done = sum(run.done_count for run in report.runs)
    total = sum(run.total for run in report.runs) or 1
    bar, button = st.columns([4, 1], vertical_alignment="center")
    bar.progress(done / total, text=report.words())
    button.button(
        "Stop the check",
        key=state.TRUST_HEALTH_STOP.child(scorer_id).name,
        icon=":material/stop_circle:",
        on_click=_stop,
        args=(report.check.id,),
        help="Cancels the runs that have not finished. What was scored is kept, but a "
        "stopped check counts for nothing.",
    )


def _results(report: HealthReport) -> None:
    swayed = bool(report.swayed) and not report.stopped
    shown = st.error if swayed else st.success if not report.stopped else st.warning
    shown(f"**Latest health check of version {report.version}.** {report.words()}")
    if report.stopped:
        return
    st.dataframe(family_rows(report.families), hide_index=True)
    outputs = data.outputs(list(report.check.example_ids))
    numbers = trust_data.example_numbers(tuple(report.check.example_ids))
    for family in report.families:
        name = BY_ID[family.family].name
        with st.expander(f"{name}: {family_words(family)}", expanded=family.worked):
            st.caption(BY_ID[family.family].what)
            if family.changes:
                st.dataframe(change_rows(family, outputs, numbers), hide_index=True)
            else:
                st.write("No verdict changed.")


def _what_each_family_is() -> None:
    with st.expander("What each perturbation is, and what to do when one sways the judge"):
        st.markdown("\n".join(f"- **{f.name}**: {f.what}" for f in FAMILIES))
        st.markdown(WHAT_TO_DO)


def render(scorer_id: int, version_id: int, version: int, asks_judge: bool) -> None:
    """The Health tab of the version ``version_id`` (number ``version``) of ``scorer_id``."""
    if not asks_judge:
        st.success(
            f"Version {version} needs no health check. {NO_JUDGE_WORDS}",
            icon=":material/check_circle:",
        )
        return
    datasets = {d.id: d.name for d in pickers.dataset_choices()}
    if not datasets:
        st.info(
            "A health check needs a dataset of examples: add examples on the Examples page.",
            icon=":material/info:",
        )
        return
    st.caption(
        f"Does the judged text sway version {version}'s judge? Score a sample as it is and "
        "under each perturbation below; a judge that follows what the answer tells it, or "
        "copies a verdict written into it, cannot be trusted with answers you do not control."
    )
    _what_each_family_is()
    chosen = _form(scorer_id, version_id, datasets)
    if chosen is None:
        return
    st.info(
        f"Before you start: {chosen.describe()} {_cost_words(chosen)}", icon=":material/calculate:"
    )
    render_runner_notice(where="trust.health")
    report = data.latest_report(chosen.scorer_version_id, chosen.dataset_id)
    st.button(
        "Run the health check",
        key=state.TRUST_HEALTH_START.child(scorer_id).name,
        icon=":material/health_and_safety:",
        type="primary",
        on_click=_start,
        args=(chosen,),
        disabled=report is not None and not report.ended,
        help="Queues the runs for the runner; you can leave the page meanwhile.",
    )
    if report is None:
        st.caption("This version has had no health check on this dataset yet.")
    elif not report.ended:
        _follow(scorer_id, chosen.scorer_version_id, chosen.dataset_id)
    else:
        _results(report)
