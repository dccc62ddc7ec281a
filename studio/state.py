"""Every session-state key the studio uses, with the factory that makes its default.

Pages never invent keys: they read and write through :func:`get` and :func:`put` with the
keys below, so a reader sees in one place what a browser session remembers. Defaults are
made by factories on first use, never computed once at import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st


@dataclass(frozen=True)
class Key:
    """A session-state key and how its default value is made."""

    name: str
    default: Callable[[], Any]


def _none() -> None:
    return None


BUILDER_DRAFT_ID = Key("builder.draft_id", _none)
"""The id of the draft being edited in the builder (drafts live in the database)."""
BUILDER_STAGE = Key("builder.stage", lambda: "basics")
"""Where the builder is: basics, judge, steps, retries, try, save."""
BUILDER_SCORER_ID = Key("builder.scorer_id", _none)
"""The saved scorer the draft is a new version of (None for a new scorer)."""
TRY_EXAMPLE_ID = Key("builder.try_example_id", _none)
TRY_RESULT = Key("builder.try_result", _none)
"""The last 'try it' outcome shown in the builder (a dict, or None)."""
RESULTS_FILTERS = Key("results.filters", dict)
RESULTS_CURSOR = Key("results.cursor", list)
"""Keyset cursors of the pages already seen on the results page (for 'previous')."""
SELECTED_SCORE_ID = Key("results.score_id", _none)
SELECTED_DATASET_ID = Key("examples.dataset_id", _none)
SELECTED_RUN_ID = Key("runs.run_id", _none)
FLASH = Key("flash", list)
"""Messages to show once on the next render (e.g. "Saved version 3")."""


def get(key: Key) -> Any:
    """The key's value, created from its factory on first use."""
    if key.name not in st.session_state:
        st.session_state[key.name] = key.default()
    return st.session_state[key.name]


def put(key: Key, value: Any) -> None:
    st.session_state[key.name] = value


def reset(key: Key) -> None:
    st.session_state[key.name] = key.default()


def flash(message: str, *, icon: str = ":material/check_circle:") -> None:
    """Show ``message`` once, at the top of the next page render."""
    get(FLASH).append((message, icon))


def show_flashes() -> None:
    for message, icon in get(FLASH):
        st.toast(message, icon=icon)
    reset(FLASH)


# -- builder -----------------------------------------------------------------------------------
BUILDER_DRAFT = Key("builder.draft", _none)
"""The draft being edited: a ScorerDraft (also saved to the database as it changes)."""
BUILDER_GEN = Key("builder.gen", int)
"""Bumped when another draft is loaded, so widgets start again from the draft's values."""
TRY_EXAMPLE = Key("builder.try_example", _none)
"""The example previews and 'try it' run on (a pages.builder.logic.Example)."""

# -- Home, Scorers, Export & import, Traces ---------------------------------------------------
SCORERS_PAGE = Key("scorers.page", int)
"""The page of the scorer list being shown (0 is the first; pages come from the database)."""
SCORERS_OPEN_ID = Key("scorers.open_id", _none)
"""The scorer whose versions and actions are open on the scorers page."""
SCORERS_PENDING = Key("scorers.pending", _none)
"""An action waiting for confirmation: ("archive" or "duplicate", scorer id), or None."""
EXPORT_SCORER_ID = Key("export.scorer_id", _none)
"""The scorer the export page opens with (set by "Export" on the scorers page)."""
TRACES_IMPORT = Key("traces.import", _none)
"""The last trace file imported on the traces page and what saving it did (a
pages.traces.logic.ImportReport), shown while the file stays in the uploader; or None."""
TRACES_PAGE = Key("traces.page", int)
"""The page of the stored traces list being shown (0 is the first; pages come from the
database)."""
TRACES_SELECTION_FOR = Key("traces.selection_for", _none)
"""What the "Traces to score" choice was defaulted for (scorer version, the page's traces,
those not yet scored): when it changes, the choice starts again from the new default."""
TRACES_CONFIRM_DELETE = Key("traces.confirm_delete", _none)
"""The trace ids whose deletion waits for a "yes" (a tuple), or None: no question open."""
BUILDER_SAVED_DIGEST = Key("builder.saved_digest", _none)
"""The canonical JSON of the draft as last written to the database (to skip idle writes)."""
BUILDER_LOADED_FOR = Key("builder.loaded_for", _none)
"""Which saved scorer (id) the draft was loaded from, so a new choice reloads it."""

# -- Examples, Judges ---------------------------------------------------------------------------
EXAMPLES_GRID_GEN = Key("examples.grid_gen", int)
"""Bumped after the grid is saved or its edits discarded, so the editor starts clean."""
EXAMPLES_GRID_PROBLEMS = Key("examples.grid_problems", list)
"""Why the last save of the grid was refused (one line per cell or row)."""
EXAMPLES_CONFIRM_ARCHIVE = Key("examples.confirm_archive", _none)
"""The dataset id whose archiving waits for a "yes" (None: no question open)."""
EXAMPLES_CREATE_ERROR = Key("examples.create_error", _none)
"""Why the last "Create dataset" was refused (text), or None."""
EXAMPLES_IMPORT_FILE = Key("examples.import_file", _none)
"""Which uploaded file (name and size) the import form's column choices were made for."""
EXAMPLES_IMPORT_REPORT = Key("examples.import_report", _none)
"""The last import's outcome, kept so it stays on screen: a dict, or None."""
JUDGES_SELECTED = Key("judges.selected", _none)
"""The judge profile open in the form (its name), or None for a new judge."""
JUDGES_CONFIRM_DELETE = Key("judges.confirm_delete", _none)
"""The judge profile whose deletion waits for a "yes" (None: no question open)."""
JUDGES_CONNECTION = Key("judges.connection", _none)
"""The last connection test's outcome (a pages.judges.logic.ConnectionResult), or None."""

# -- Results, Compare runs ---------------------------------------------------------------------
RESULTS_THRESHOLD = Key("results.saved_threshold", _none)
"""The pass mark on the Results page (None: the middle of the scores' range)."""
COMPARE_SELECTION = Key("compare.selection", dict)
"""What Compare runs shows: ``{"mode": "runs" | "versions", "before": run id, "after": run id,
"scorer_id", "before_version", "after_version", "dataset_id", "threshold"}``. Another page
opens a comparison with ``widgets.results_links.open_compare(before=…, after=…)``."""
COMPARE_PAGE = Key("compare.page", int)
"""The page of the comparison table being shown (0 is the first)."""
COMPARE_VIEW = Key("compare.view", _none)
"""What the comparison table's page is of (runs, threshold, filter): a new choice starts at 1."""
COMPARE_EXAMPLE_ID = Key("compare.example_id", _none)
"""The example whose two results are open side by side on Compare runs."""

# -- Runs ------------------------------------------------------------------------------------
RUNS_CURSOR = Key("runs.cursor", list)
"""Where each page of the runs list starts (the run ids it is older than), for "Newer runs"."""
RUNS_THRESHOLD = Key("runs.threshold", lambda: 0.5)
"""The pass mark a finished run's verdict and pass rate are given at."""
