"""The home page's sections: the database at a glance, getting started, usable judges."""

from __future__ import annotations

import os

import streamlit as st

from scorer_runtime.store.views import Overview
from studio import state
from studio.app_pages.home import data
from studio.app_pages.home.logic import KeyStatus, key_statuses
from studio.widgets.common import empty_state, format_score
from studio.widgets.demo_data import load_demo_data
from studio.words import KEY_PLACE, noun, outcome_mix_words, run_status_label


def render_overview() -> Overview:
    """The counts, and the latest runs with status and mean score."""
    overview = data.overview()
    if overview.is_empty:
        empty_state(
            "**Your studio is empty.** A *scorer* judges answers your AI gives; a *dataset* "
            "holds examples to try it on. Start with the guide below, or load the demo "
            "scorers and datasets to look around first.",
            action=("Load the demo scorers and datasets", load_demo_data),
            key=state.HOME_LOAD_DEMO,
        )
        return overview
    scorers, datasets, runs = st.columns(3)
    scorers.metric("Scorers", overview.scorers, help=f"{overview.versions} saved versions in all")
    datasets.metric("Datasets", overview.datasets, help=f"{overview.examples} examples in all")
    runs.metric("Runs", overview.runs, help="Scorers run on a dataset, all time")
    st.caption(
        f"{overview.versions} scorer versions · {overview.examples} examples in the datasets."
    )
    render_latest_runs(overview)
    return overview


def render_latest_runs(overview: Overview) -> None:
    """The newest runs: what ran on what, where it is, and the mean with its context."""
    st.subheader("Latest runs")
    if not overview.latest_runs:
        st.caption("No run yet. Run a scorer on a dataset to see its scores here.")
        st.page_link("app_pages/runs/page.py", label="Start a run", icon=":material/play_circle:")
        return
    rows = [
        {
            "Run": f"#{run.run_id}",
            "Scorer": f"{run.scorer} (version {run.version})",
            "Dataset": run.dataset,
            "Status": run_status_label(run.status),
            "Mean score": format_score(run.mean),
            "Results": f"{run.done} of {run.total}: " + outcome_mix_words(run.outcome_counts),
            "Started": f"{run.created_at:%d %b %Y %H:%M}",
        }
        for run in overview.latest_runs
    ]
    st.dataframe(rows, hide_index=True, key=state.HOME_LATEST_RUNS.name)
    st.page_link("app_pages/results/page.py", label="See all results", icon=":material/insights:")


_GUIDE = (
    (
        "1. Add examples",
        "Collect answers your AI gave (input, output and, if you have it, the right answer) "
        "in a dataset. Import a CSV or JSONL file, or type them in.",
        "app_pages/examples/page.py",
        "Go to examples",
        ":material/dataset:",
    ),
    (
        "2. Build a scorer",
        "Say what a good answer looks like: built-in checks, small formulas, or ask an LLM "
        "judge. Try it on one example as you go.",
        "app_pages/builder/page.py",
        "Build a scorer",
        ":material/build:",
    ),
    (
        "3. Run it and read the results",
        "Score a whole dataset, then look at the scores, the judge's reasons and how they "
        "change from version to version.",
        "app_pages/runs/page.py",
        "Run a scorer",
        ":material/play_circle:",
    ),
)


def render_getting_started() -> None:
    """Three steps, each with a link to the page that does it."""
    st.subheader("Getting started")
    for column, (title, text, page, label, icon) in zip(st.columns(3), _GUIDE, strict=True):
        with column.container(border=True):
            st.markdown(f"**{title}**")
            st.caption(text)
            st.page_link(page, label=label, icon=icon)


def _needed_by(names: tuple[str, ...], shown: int = 2) -> str:
    if len(names) <= shown + 1:
        return ", ".join(names)
    return f"{', '.join(names[:shown])} and {len(names) - shown} more"


def render_judge_keys() -> list[KeyStatus]:
    """Which providers' key variables are set (never their values)."""
    st.subheader("Judge providers you can use")
    st.caption(
        "A judge reads its API key from a setting of the studio's environment (an environment "
        "variable). Only whether a setting is set is shown here, never its value. To give a "
        "key, paste it on the Judges page: the studio keeps it until it stops, or remembers it "
        "on this computer when you ask. Local models (for example Ollama) need no key."
    )
    statuses = key_statuses(os.environ, data.key_names())
    rows = [
        {
            "Provider": status.provider,
            KEY_PLACE: status.env,
            "Set": "Set" if status.is_set else "Not set",
            "Needed by": _needed_by(status.used_by),
        }
        for status in statuses
    ]
    st.dataframe(rows, hide_index=True, key=state.HOME_KEYS.name)
    missing = [s.env for s in statuses if s.used_by and not s.is_set]
    if missing:
        st.warning(
            f"Saved judges or scorers need {', '.join(missing)}, which "
            f"{noun(len(missing), 'is', 'are')} not set. On the Judges page, write "
            f"{missing[0]} in '{KEY_PLACE}' (or open a judge that names it) and paste the key "
            "in the box that appears under it; no restart is needed. Or choose another judge.",
            icon=":material/key_off:",
        )
        st.page_link("app_pages/judges/page.py", label="Give a key", icon=":material/key:")
    return statuses
