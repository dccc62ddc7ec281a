"""The Compare-versions tab: two versions of a scorer on the same stored examples. Each
version's latest finished run of the dataset is used; a version without one is queued for
the runner (the page follows it), never scored while the page waits."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.store import RunInfo
from studio import state
from studio.app_pages.trust import stability_data as data
from studio.app_pages.trust.stability_logic import (
    cap_words,
    cost_words,
    difference_rows,
    side_rows,
)
from studio.widgets import pickers
from studio.widgets.dataset_choice import open_on_suited, warn_if_unsuited
from studio.widgets.results_links import open_run
from studio.widgets.runner_notice import render_runner_notice

REFRESH_S = 1.0


def _score(version_ids: list[int], dataset_id: int) -> None:
    refused = data.score_missing(version_ids, dataset_id)
    if refused is not None:
        state.flash(refused, icon=":material/error:")
    else:
        state.flash("Queued for the runner; the comparison appears when both are scored.")


def _pick(
    scorer_id: int, versions: dict[int, int], datasets: dict[int, str]
) -> tuple[int, int, int]:
    ids = list(versions)  # newest first: B defaults to the newest, A to the one before
    cols = st.columns(3)
    a = cols[0].selectbox(
        "Version A",
        ids,
        index=1,
        format_func=lambda v: f"Version {versions[v]}",
        key=state.TRUST_VERSIONS_A.child(scorer_id).name,
    )
    b = cols[1].selectbox(
        "Version B",
        ids,
        index=0,
        format_func=lambda v: f"Version {versions[v]}",
        key=state.TRUST_VERSIONS_B.child(scorer_id).name,
    )
    open_on_suited(
        state.TRUST_VERSIONS_DATASET.child(scorer_id),
        scorer_id=scorer_id,
        version_id=None,
        dataset_ids=datasets,
    )
    dataset_id = cols[2].selectbox(
        "On the examples of",
        list(datasets),
        format_func=lambda d: datasets[d],
        key=state.TRUST_VERSIONS_DATASET.child(scorer_id).name,
    )
    warn_if_unsuited(
        state.TRUST_VERSIONS_DATASET.child(scorer_id),
        state.TRUST_VERSIONS_FITTING.child(scorer_id),
        scorer_id=scorer_id,
        version_ids=[int(b), int(a)],
        dataset_id=int(dataset_id),
        datasets=datasets,
    )
    return int(a), int(b), int(dataset_id)


@st.fragment(run_every=REFRESH_S)
def _follow(open_runs: list[RunInfo], dataset_id: int) -> None:
    still = [data.open_run(run.scorer_version_id, dataset_id) for run in open_runs]
    if not any(still):
        st.rerun()
    for run in (r for r in still if r is not None):
        share = run.done_count / run.total if run.total else 0.0
        st.progress(share, text=f"Run #{run.id}: {run.done_count} of {run.total} scored")


def _stopped(scorer_id: int, names: dict[int, int], stopped: list[RunInfo]) -> None:
    """Runs the judge's spend cap stopped: resumed on the Runs page with a higher cap (what
    they scored is kept), never scored again from the start here."""
    for run in stopped:
        st.warning(
            f"Run #{run.id} of version {names[run.scorer_version_id]} {run.error}",
            icon=":material/savings:",
        )
        key = state.TRUST_VERSIONS_RESUME.child(scorer_id).child(run.id)
        if st.button(f"Resume run #{run.id} on the Runs page", key=key.name):
            open_run(run.id)


def _missing(scorer_id: int, names: dict[int, int], missing: list[int], dataset_id: int) -> None:
    said = " and ".join(f"version {names[v]}" for v in missing)
    made = [data.cost(version, dataset_id) for version in missing]
    caps = {f"the run of version {names[v]}": data.judge_cap(v) for v in missing}
    st.info(
        f"No finished run of {said} on these examples yet: both versions must score the "
        f"same examples before they can be compared. {cost_words(made)} "
        f"{cap_words(caps, made, each='each run')}".strip(),
        icon=":material/info:",
    )
    open_runs = [r for v in missing if (r := data.open_run(v, dataset_id)) is not None]
    if open_runs:
        render_runner_notice(where="trust-versions")
        _follow(open_runs, dataset_id)
        return
    stopped = [r for v in missing if (r := data.stopped_run(v, dataset_id)) is not None]
    _stopped(scorer_id, names, stopped)
    missing = [v for v in missing if v not in {r.scorer_version_id for r in stopped}]
    if not missing:
        return
    said = " and ".join(f"version {names[v]}" for v in missing)
    render_runner_notice(where="trust-versions")
    st.button(
        f"Score {said}",
        key=state.TRUST_VERSIONS_SCORE.child(scorer_id).name,
        icon=":material/play_arrow:",
        type="primary",
        on_click=_score,
        args=(missing, dataset_id),
        help="Queues a run of the whole dataset for the runner.",
    )


def render(scorer_id: int) -> None:
    """The Compare-versions tab of the scorer ``scorer_id``."""
    versions, datasets = data.versions(scorer_id), {d.id: d.name for d in pickers.dataset_choices()}
    if len(versions) < 2 or not datasets:
        st.info(
            "Comparing needs two versions of this scorer and a dataset of examples: save a "
            "change to the scorer in Build a scorer to make a second version.",
            icon=":material/info:",
        )
        return
    a, b, dataset_id = _pick(scorer_id, versions, datasets)
    if a == b:
        st.warning("Pick two different versions to compare.", icon=":material/warning:")
        return
    run_a, run_b = data.compared_runs(a, b, dataset_id)
    if run_a is None or run_b is None:
        missing = [v for v, run in ((a, run_a), (b, run_b)) if run is None]
        _missing(scorer_id, versions, missing, dataset_id)
        return
    report = data.ab(run_a, run_b)
    st.markdown(
        f"**{report.compared} examples scored by both versions.** "
        f"{len(report.differences)} got a different verdict."
    )
    test = report.test
    if test.p_value is not None and test.p_value < 0.05:
        st.warning(test.words(), icon=":material/compare_arrows:")
    else:
        st.info(test.words(), icon=":material/compare_arrows:")
    st.dataframe(side_rows(report), hide_index=True)
    if report.differences:
        st.markdown("**Examples whose verdict differs**")
        outputs = data.outputs([d.example_id for d in report.differences])
        st.dataframe(difference_rows(report, outputs), hide_index=True)
    if report.left_out:
        st.caption(
            f"{report.left_out} example(s) were scored by one version only (an error in the "
            "other run) and are left out."
        )
