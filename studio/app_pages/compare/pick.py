"""Choosing what Compare runs compares: two runs, or two versions of a scorer on one dataset.

The choice is remembered in ``state.COMPARE_SELECTION``; widgets start from it, so it
survives a visit to another page and another page can preset it (``open_compare``).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from scorer_runtime.store import NameBook
from scorer_runtime.store.views import RunPair
from studio import state
from studio.app_pages.results import data
from studio.app_pages.results.logic import (
    dataset_choices,
    scorer_choices,
    version_choices,
    version_title,
)
from studio.widgets.current_scorer import newly_current, work_on
from studio.widgets.results_links import go_to_runs_button
from studio.widgets.results_widgets import id_select, seed
from studio.widgets.trust_badge import scorer_badge
from studio.words import run_status_label

_MODES = {"runs": "Two runs", "versions": "Two versions of a scorer on one dataset"}


def _seed(saved: dict[str, Any]) -> None:
    pair = data.default_pair() if "before" not in saved else None
    seed(state.COMPARE_MODE, saved.get("mode") or "runs")
    seed(state.COMPARE_BEFORE, saved.get("before", pair.before if pair else None))
    seed(state.COMPARE_AFTER, saved.get("after", pair.after if pair else None))
    for key, name in (
        (state.COMPARE_SCORER, "scorer_id"),
        (state.COMPARE_BEFORE_VERSION, "before_version"),
        (state.COMPARE_AFTER_VERSION, "after_version"),
        (state.COMPARE_DATASET, "dataset_id"),
    ):
        seed(key, saved.get(name))


def _follow_current(saved: dict[str, Any]) -> None:
    """When the scorer the person works on changed (saved in the builder, run, picked on
    another page): open on its two newest versions that ran on one dataset, if there are."""
    current = newly_current(state.COMPARE_FOLLOWED)
    if current is None or (saved.get("mode") == "versions" and saved.get("scorer_id") == current):
        return
    pair = data.version_pair(current)
    if pair is None:
        return
    before_v, after_v, dataset_id = pair
    saved.update(
        mode="versions",
        scorer_id=current,
        before_version=before_v,
        after_version=after_v,
        dataset_id=dataset_id,
    )
    for key in state.COMPARE_PICK_WIDGETS:
        state.forget(key)


def _picked_scorer() -> None:
    work_on(state.peek(state.COMPARE_SCORER), state.COMPARE_FOLLOWED)


def render_pair_picker() -> RunPair | None:
    """Draw the choice; returns the two runs to compare, or None (with a message saying why)."""
    saved = dict(state.get(state.COMPARE_SELECTION))
    _follow_current(saved)
    _seed(saved)
    names = data.names()
    mode = st.radio(
        "Compare",
        list(_MODES),
        key=state.COMPARE_MODE.name,
        horizontal=True,
        format_func=lambda m: _MODES.get(m, m),
        help="Two runs: any two runs on the same dataset (this week against last week). "
        "Two versions: the newest run of each version on the dataset you pick.",
    )
    pair = _pick_versions(names, saved) if mode == "versions" else _pick_runs(saved)
    state.put(state.COMPARE_SELECTION, saved)
    return pair


def _pick_runs(saved: dict[str, Any]) -> RunPair | None:
    saved["mode"] = "runs"
    choices = data.runs(None, None, None)
    left, right = st.columns(2)
    with left:
        before = id_select(
            "A — before",
            state.COMPARE_BEFORE,
            choices,
            empty="Pick the earlier run",
            help="The baseline: usually the older run, or the current version.",
        )
    with right:
        after = id_select(
            "B — after",
            state.COMPARE_AFTER,
            choices,
            empty="Pick the later run",
            help="What you want to check: a newer run, or a new version.",
        )
    saved.update(before=before, after=after)
    if before is None or after is None:
        st.info("Pick two runs to compare.", icon=":material/compare:")
        return None
    return _checked(RunPair(before, after))


def _pick_versions(names: NameBook, saved: dict[str, Any]) -> RunPair | None:
    saved["mode"] = "versions"
    cols = st.columns(4)
    with cols[0]:
        scorer_id = id_select(
            "Scorer",
            state.COMPARE_SCORER,
            # Another tool's scorer has one version and no runs: nothing to compare here.
            [c for c in scorer_choices(names, data.titles()) if c.id not in names.external_scorers],
            empty="Pick a scorer",
            help="Whose versions.",
            on_change=_picked_scorer,
        )
    versions = version_choices(names, scorer_id)
    with cols[1]:
        before_v = id_select(
            "A — version",
            state.COMPARE_BEFORE_VERSION,
            versions,
            empty="Pick a version",
            help="The baseline.",
        )
    with cols[2]:
        after_v = id_select(
            "B — version",
            state.COMPARE_AFTER_VERSION,
            versions,
            empty="Pick a version",
            help="The new one.",
        )
    with cols[3]:
        dataset_id = id_select(
            "Dataset",
            state.COMPARE_DATASET,
            dataset_choices(names),
            empty="Pick a dataset",
            help="Both versions' newest finished run on this dataset are compared.",
        )
    if scorer_id is not None and (before_v, after_v) != (None, None):
        with st.container(horizontal=True, wrap=True):  # the badges' whole words, side by side
            for side, version_id in (("A — ", before_v), ("B — ", after_v)):
                if version_id is not None:
                    scorer_badge(int(scorer_id), int(version_id), side=side)
    saved.update(
        scorer_id=scorer_id, before_version=before_v, after_version=after_v, dataset_id=dataset_id
    )
    if None in (scorer_id, before_v, after_v, dataset_id):
        st.info("Pick a scorer, two of its versions and a dataset.", icon=":material/compare:")
        return None
    runs = [data.latest_run(v, dataset_id) for v in (before_v, after_v)]
    for version_id, run_id in zip((before_v, after_v), runs, strict=True):
        if run_id is None:
            st.info(
                f"{version_title(names, data.titles(), version_id)} has not been run on "
                f"{names.dataset(dataset_id)} "
                "yet. Start a run on the Runs page, then come back.",
                icon=":material/play_circle:",
            )
            go_to_runs_button(state.COMPARE_GO_RUNS_VERSION, "Start a run")
            return None
    return _checked(RunPair(int(runs[0] or 0), int(runs[1] or 0)))


def _checked(pair: RunPair) -> RunPair | None:
    """The pair, or None with a message when it cannot be compared."""
    if pair.before == pair.after:
        st.info("A and B are the same run. Pick two different runs.", icon=":material/compare:")
        return None
    facts = [data.run_facts(pair.before), data.run_facts(pair.after)]
    if facts[0] is None or facts[1] is None:
        st.warning("One of these runs no longer exists. Pick another.", icon=":material/warning:")
        return None
    if facts[0].dataset_id != facts[1].dataset_id:
        names = data.names()
        st.warning(
            f"These runs scored different datasets ({names.dataset(facts[0].dataset_id)} and "
            f"{names.dataset(facts[1].dataset_id)}), so no example is in both. Pick two runs "
            "on the same dataset.",
            icon=":material/warning:",
        )
        return None
    return pair


def run_caption(run_id: int) -> str:
    """``Run 12 · tone v2 · Finished · 30 Nov 2026 14:02`` for the summary."""
    facts = data.run_facts(run_id)
    if facts is None:
        return f"Run {run_id}"
    names = data.names()
    status = run_status_label(facts.status)
    when = facts.created_at.strftime("%d %b %Y %H:%M")
    version = version_title(names, data.titles(), facts.scorer_version_id)
    return f"Run {run_id} · {version} · {status} · {when}"
