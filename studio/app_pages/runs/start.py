"""The "Start a run" form: scorer, version (latest by default), dataset and concurrency, then
what the run will cost in judge calls and whether the judge's key is set — before the button.
"""

from __future__ import annotations

import os

import streamlit as st

from scorer_runtime.store.views import RunLine
from studio import state
from studio.app_pages.runs import data
from studio.app_pages.runs.logic import Problem, RunPlan, estimate_text, key_checks
from studio.app_pages.runs.spend import render_spend
from studio.widgets import pickers
from studio.widgets.common import empty_state, show_error
from studio.widgets.current_scorer import scorer_to_open, work_on
from studio.widgets.dataset_choice import offer_suited, open_on_suited
from studio.widgets.demo_data import load_demo_data
from studio.widgets.judge_fix import fix_judge_link
from studio.widgets.runner_notice import render_runner_notice
from studio.widgets.trust_badge import scorer_badge

JUDGES_PAGE = "app_pages/judges/page.py"
_PAGES = {
    "examples": ("app_pages/examples/page.py", "Go to Examples", ":material/dataset:"),
    "builder": ("app_pages/builder/page.py", "Open the builder", ":material/build:"),
}


def _scorer_picked() -> None:
    # Another scorer has other versions: start again from its latest, on the dataset that
    # suits it. It is now the scorer the person works on (the other pages open on it).
    state.forget(state.RUNS_VERSION)
    state.forget(state.RUNS_DATASET)
    work_on(state.peek(state.RUNS_SCORER), state.RUNS_FOLLOWED)


def _follow_current(scorers: set[int]) -> None:
    """Open on the scorer the person is working on when it changed (saved in the builder,
    picked on another page)."""
    current = scorer_to_open(state.RUNS_FOLLOWED, state.RUNS_SCORER)
    if current is not None and current in scorers:
        preselect_scorer(current)


def preselect_scorer(scorer_id: int) -> None:
    """Open the form on this scorer (e.g. the one the builder just saved), latest version."""
    state.put(state.RUNS_SCORER, scorer_id)
    state.forget(state.RUNS_VERSION)
    state.forget(state.RUNS_DATASET)


def _prefer(prefer: RunLine | None, scorers: set[int], datasets: set[int]) -> None:
    """A new session starts from the scorer and dataset of the run on show, not the first."""
    if prefer is None or state.has(state.RUNS_SCORER) or prefer.scorer_id not in scorers:
        return
    state.put(state.RUNS_SCORER, prefer.scorer_id)
    if prefer.dataset_id in datasets:
        state.put(state.RUNS_DATASET, prefer.dataset_id)


def _pick_version(scorer_id: int | None) -> int | None:
    """The scorer's versions, newest first: the latest is chosen unless another is picked."""
    versions = data.versions(scorer_id) if scorer_id is not None else []
    state.choose_valid(state.RUNS_VERSION, [v.id for v in versions])  # the latest, if none
    labels = {
        v.id: f"Version {v.version}" + (" (latest)" if i == 0 else "")
        for i, v in enumerate(versions)
    }
    chosen: int | None = st.selectbox(
        "Version",
        list(labels),
        format_func=lambda i: labels[i],
        key=state.RUNS_VERSION.name,
        help="Every saved change of a scorer is a version; the latest is chosen unless you "
        "pick an older one (to compare with it, for example).",
    )
    return chosen


def _pick_dataset(
    counts: dict[int, pickers.DatasetChoice], scorer_id: int | None, version_id: int | None
) -> int | None:
    if scorer_id is not None and version_id is not None:
        open_on_suited(
            state.RUNS_DATASET, scorer_id=scorer_id, version_id=version_id, dataset_ids=counts
        )
    chosen: int | None = st.selectbox(
        "Dataset",
        list(counts),
        format_func=lambda i: f"{counts[i].name} ({counts[i].examples:,} examples)",
        key=state.RUNS_DATASET.name,
        help="The examples to score: each gets one result (a score, or why it has none).",
    )
    return chosen


def _pick_concurrency() -> int:
    chosen = st.number_input(
        "At once",
        min_value=1,
        max_value=64,
        value=4,
        step=1,
        key=state.RUNS_CONCURRENCY.name,
        help="How many examples are scored at the same time. Higher is faster, but a judge "
        "provider may answer 'too many requests' (those are retried, and cost time).",
    )
    return int(chosen)


def _pick_cache() -> bool:
    chosen = st.checkbox(
        "Reuse judge answers already given",
        value=True,
        key=state.RUNS_USE_CACHE.name,
        help="A judge request asked before in exactly the same words, to the same model with "
        "the same settings, takes its earlier answer: no judge call, nothing spent. Untick "
        "it to ask the judge again for every answer.",
    )
    return bool(chosen)


def _choose(prefer: RunLine | None) -> tuple[RunPlan, int] | None:
    """The four choices; the plan of the chosen version on the chosen dataset."""
    scorers, datasets = data.scorers(), pickers.dataset_choices()
    names = {s.id: s for s in scorers}
    counts = {d.id: d for d in datasets}
    _follow_current(set(names))
    _prefer(prefer, set(names), set(counts))
    left, middle, right, last = st.columns([3, 2, 3, 1])
    with left:
        scorer_id = st.selectbox(
            "Scorer",
            list(names),
            format_func=lambda i: names[i].title or names[i].name,
            key=state.RUNS_SCORER.name,
            on_change=_scorer_picked,
            help="The scorer that judges every example of the dataset.",
        )
    with middle:
        version_id = _pick_version(scorer_id)
    with right:
        dataset_id = _pick_dataset(counts, scorer_id, version_id)
    with last:
        concurrency = _pick_concurrency()
    if scorer_id is not None and version_id is not None:
        # How far its judge can be trusted, under the row: the version's column is too
        # narrow for the badge's words.
        scorer_badge(scorer_id, version_id)
    if scorer_id is None or version_id is None or dataset_id is None:
        return None
    if names[scorer_id].description:
        st.caption(names[scorer_id].description)
    return data.plan(version_id, dataset_id), concurrency


def _offer_fitting_dataset(plan: RunPlan) -> None:
    """Below a warning that the dataset does not suit the scorer: a way to one that does."""
    offer_suited(
        state.RUNS_DATASET,
        state.RUNS_FITTING_DATASET,
        scorer_id=plan.scorer_id,
        version_id=plan.version_id,
        dataset_id=plan.dataset_id,
        datasets={d.id: d.name for d in pickers.dataset_choices()},
    )


def render_problem(problem: Problem, plan: RunPlan, *, key: state.Key) -> None:
    """A reason a run cannot start: what is wrong, what to do, and a way to the page."""
    st.error(f"**{problem.title}.** {problem.detail}", icon=":material/block:")
    st.info(problem.what_to_do, icon=":material/lightbulb:")
    if problem.go_to == "judges":
        fix_judge_link(plan.scorer_id, version_id=plan.version_id, key=key)
    elif problem.go_to is not None:
        page, label, icon = _PAGES[problem.go_to]
        if st.button(label, key=key.name, icon=icon):
            st.switch_page(page)


def render_plan(plan: RunPlan, *, remaining: int | None = None, key: state.Key) -> list[Problem]:
    """The judge-call estimate, the key variables (set or not, never their value), and the
    problems that stop the run."""
    icon = ":material/paid:" if plan.prompt_steps else ":material/money_off:"
    st.markdown(f"{icon} {estimate_text(plan, remaining=remaining)}")
    for check in key_checks(plan, os.environ):
        said = "is set" if check.is_set else "is **not set**"
        st.caption(
            f":material/key: The judge's API key is kept in the setting `{check.env}` (an "
            f"environment variable), which {said} on this computer (its value is never shown)."
        )
    for misfit in plan.misfits:
        st.warning(misfit, icon=":material/rule:")
    found = data.problems(plan)
    for i, problem in enumerate(found):
        render_problem(problem, plan, key=key.child("fix").child(i))
    return found


def render_start(prefer: RunLine | None = None) -> None:
    """The form (first showing the scorer and dataset of ``prefer``, the run on show);
    starting queues the run for the runner, which scores it in the background."""
    with st.container(border=True):
        st.subheader("Start a run")
        chosen = _choose(prefer)
        if chosen is None:
            return
        plan, concurrency = chosen
        found = render_plan(plan, key=state.RUNS_PLAN)
        if plan.misfits:
            _offer_fitting_dataset(plan)
        render_runner_notice(where="form")
        use_cache = _pick_cache() if plan.prompt_steps else True
        # Estimated also without the judge's key: no provider is called. One box per
        # version: each starts with the default cap of its own judge.
        box = state.RUNS_CAP.child(plan.version_id)
        cap = render_spend(plan, box=box, default=plan.default_cap, use_cache=use_cache)
        st.button(
            "Start the run",
            key=state.RUNS_START.name,
            type="primary",
            icon=":material/play_arrow:",
            disabled=bool(found) or bool(cap.problem),
            help="The run goes on in the background: you can leave this page or close the tab.",
            # Queued in the click's callback, before the page runs again: the next render
            # already follows the run (no second render of the whole page for it).
            on_click=_start,
            args=(plan, concurrency, cap.cap, cap.allow_unpriced, use_cache),
        )
        if (error := state.peek(state.RUNS_START_ERROR)) is not None:
            state.forget(state.RUNS_START_ERROR)
            show_error(error)


def _start(
    plan: RunPlan, concurrency: int, cap: float | None, allow_unpriced: bool, use_cache: bool
) -> None:
    """Start's callback: queue the run for the runner and follow it (or keep why it failed)."""
    try:
        run_id = data.start(plan, concurrency, cap, allow_unpriced, use_cache=use_cache)
    except Exception as error:  # shown in plain words by the button; what was stored says why
        state.put(state.RUNS_START_ERROR, error)
        return
    state.put(state.SELECTED_RUN_ID, run_id)
    work_on(plan.scorer_id, state.RUNS_FOLLOWED)
    scorer = data.title(plan.scorer_id, plan.scorer)
    state.flash(f"Run #{run_id} queued: {scorer} version {plan.version} on {plan.dataset}.")


def render_empty() -> bool:
    """When there is nothing to run yet: what a run is, and the next thing to do. True when
    the page has nothing else to show."""
    has_scorers, has_datasets = bool(data.scorers()), bool(pickers.dataset_choices())
    if has_scorers and has_datasets:
        return False
    st.markdown(
        "**What is a run?** A run scores every example of a dataset with one version of a "
        "scorer, in the background: you see its progress as it goes, can cancel and resume "
        "it, and every result is kept for the Results page."
    )
    if not has_scorers and not has_datasets:
        empty_state(
            "**There is nothing to run yet.** A run needs a scorer and a dataset of examples. "
            "Load the demo scorers and datasets to try it now, or build your first scorer.",
            action=("Load the demo scorers and datasets", load_demo_data),
            key=state.RUNS_LOAD_DEMO,
        )
        if st.button("Build a scorer", key=state.RUNS_GO_BUILDER.name, icon=":material/build:"):
            st.switch_page("app_pages/builder/page.py")
    elif not has_datasets:
        st.info("**There is no dataset yet.** Add examples to score on the Examples page.")
        if st.button("Go to Examples", key=state.RUNS_GO_EXAMPLES.name, icon=":material/dataset:"):
            st.switch_page("app_pages/examples/page.py")
    else:
        st.info("**There is no scorer yet.** Build one that says what a good answer is.")
        if st.button("Build a scorer", key=state.RUNS_GO_BUILDER.name, icon=":material/build:"):
            st.switch_page("app_pages/builder/page.py")
    return True
