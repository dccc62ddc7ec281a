"""Every session-state key the studio uses, with the factory that makes its default.

Pages never invent keys and never touch ``st.session_state``: they read and write through
:func:`get`, :func:`peek`, :func:`put`, :func:`reset`, :func:`forget` and :func:`has` with the
keys below, so a reader sees in one place what a browser session remembers. Defaults are made
by factories on first use, never computed once at import.

One naming style: ``page.snake_case_name`` (``judges.model``, ``results.threshold``). A key
with a variable part (one widget per dataset, per scorer, per draft generation…) is a family:
``EXAMPLES_RENAME.child(dataset_id)`` is ``examples.rename.<id>``; a widget made of several
widgets (the retry form, a builder stage) takes one key and gives its parts ``key.child(…)``.
Widget keys are declared here too and passed as ``key=state.X.name``; read them with
:func:`peek` (it does not create the value: a widget key set before its widget exists, while
the widget also gets a default, makes Streamlit warn).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import streamlit as st


def _none() -> None:
    return None


@dataclass(frozen=True)
class Key:
    """A session-state key and how its default value is made."""

    name: str
    default: Callable[[], Any] = field(default=_none, compare=False)

    def child(self, part: object) -> Key:
        """The key of one member of this family (``examples.map`` -> ``examples.map.input``)."""
        return Key(f"{self.name}.{part}", self.default)


def get(key: Key) -> Any:
    """The key's value, created from its factory on first use."""
    if key.name not in st.session_state:
        st.session_state[key.name] = key.default()
    return st.session_state[key.name]


def peek(key: Key, default: Any = None) -> Any:
    """The key's value, or ``default`` when the session holds none (nothing is created)."""
    return st.session_state.get(key.name, default)


def has(key: Key) -> bool:
    return key.name in st.session_state


def put(key: Key, value: Any) -> None:
    st.session_state[key.name] = value


def reset(key: Key) -> None:
    st.session_state[key.name] = key.default()


def forget(key: Key) -> None:
    """Drop the key: its widget starts again from its default on the next render."""
    st.session_state.pop(key.name, None)


def choose_valid(key: Key, options: Sequence[Any]) -> None:
    """Before a drop-down ``key`` is drawn: a choice that is not among its ``options`` (another
    scorer's version, a deleted run) becomes the first option, set rather than forgotten.
    A forgotten choice falls back to the first option on the server only: the browser keeps
    showing the old words (e.g. another scorer's "Version 1 (latest)")."""
    if peek(key) in options:
        return
    if options:
        put(key, options[0])
    else:
        forget(key)


def flash(message: str, *, icon: str = ":material/check_circle:") -> None:
    """Show ``message`` once, at the top of the next page render."""
    get(FLASH).append((message, icon))


def show_flashes() -> None:
    for message, icon in get(FLASH):
        st.toast(message, icon=icon)
    reset(FLASH)


# -- The whole studio -------------------------------------------------------------------------
FLASH = Key("app.flash", list)
"""Messages to show once on the next render, on any page (e.g. "Saved version 3")."""
CURRENT_SCORER_ID = Key("app.current_scorer_id", _none)
"""The scorer the person last saved, opened or ran (its numeric id, ``ScorerRecord.id``), or
None. Pages that pick a scorer (runs, results, compare, export, traces) open on it, so the
path from saving a version to running and exporting it needs no choosing again."""


# -- Home -------------------------------------------------------------------------------------
HOME_LOAD_DEMO = Key("home.load_demo")
HOME_LATEST_RUNS = Key("home.latest_runs")
HOME_KEYS = Key("home.keys")


# -- Build a scorer ---------------------------------------------------------------------------
BUILDER_DRAFT_ID = Key("builder.draft_id", _none)
"""The id of the draft being edited in the builder (drafts live in the database)."""
BUILDER_SCORER_ID = Key("builder.scorer_id", _none)
"""The saved scorer the draft is a new version of (None for a new scorer)."""
TRY_RESULT = Key("builder.try_result", _none)
"""The last 'try it' outcome shown in the builder (a dict, or None)."""
BUILDER_DRAFT = Key("builder.draft", _none)
"""The draft being edited: a ScorerDraft (also saved to the database as it changes)."""
BUILDER_GEN = Key("builder.gen", int)
"""Bumped when another draft is loaded, so widgets start again from the draft's values."""
BUILDER_SAVED_DIGEST = Key("builder.saved_digest", _none)
"""The canonical JSON of the draft as last written to the database (to skip idle writes)."""
BUILDER_LOADED_FOR = Key("builder.loaded_for", _none)
"""Which saved scorer (id) the draft was loaded from, so a new choice reloads it."""
BUILDER_JUST_SAVED = Key("builder.just_saved", _none)
"""``(scorer_id, version)`` of the version saved last in this session, until the draft changes
(the Save stage says so, with the links to run and export it)."""
BUILDER_TOUCHED = Key("builder.touched", set)
"""The builder stages the person has acted on (typed or chosen in, moved past, or Try it /
Save): a blank form shows no problems until its stage is here."""
# widgets (pass key=X.name)
BUILDER_FORM = Key("builder.form")
"""The builder's widgets, one family per draft generation (BUILDER_GEN): ``builder.form.0``
holds ``.stage``, ``.basics.name``, ``.steps.analyze.how``, ``.retries.scorer.on``…"""
BUILDER_TRY_DETAIL = Key("builder.try_detail")
"""The score detail of the last 'try it' (its widgets are members of this family)."""


# -- Scorers ----------------------------------------------------------------------------------
SCORERS_PAGE = Key("scorers.page", int)
"""The page of the scorer list being shown (0 is the first; pages come from the database)."""
SCORERS_OPEN_ID = Key("scorers.open_id", _none)
"""The scorer whose versions and actions are open on the scorers page."""
SCORERS_PENDING = Key("scorers.pending", _none)
"""An action waiting for confirmation: ("archive", "duplicate" or "judge", scorer id), or None."""
# widgets (pass key=X.name)
SCORERS_SEARCH = Key("scorers.search")
SCORERS_SHOW_ARCHIVED = Key("scorers.show_archived")
SCORERS_EMPTY_BUILD = Key("scorers.empty_build")
SCORERS_EMPTY_DEMO = Key("scorers.empty_demo")
SCORERS_PREV = Key("scorers.prev")
SCORERS_NEXT = Key("scorers.next")
SCORERS_OPEN = Key("scorers.open")
"""One per scorer: ``SCORERS_OPEN.child(scorer_id)``, and so are the keys below it."""
SCORERS_VERSIONS = Key("scorers.versions")
SCORERS_DUPLICATE = Key("scorers.duplicate")
SCORERS_EXPORT = Key("scorers.export")
SCORERS_RESTORE = Key("scorers.restore")
SCORERS_ARCHIVE = Key("scorers.archive")
SCORERS_ARCHIVE_YES = Key("scorers.archive_yes")
SCORERS_ARCHIVE_NO = Key("scorers.archive_no")
SCORERS_COPY_NAME = Key("scorers.copy_name")
"""The name of the copy "Duplicate" makes (set to a free name before the box is drawn)."""
SCORERS_COPY_YES = Key("scorers.copy_yes")
SCORERS_COPY_NO = Key("scorers.copy_no")
SCORERS_DIFF_FROM = Key("scorers.diff_from")
SCORERS_DIFF_TO = Key("scorers.diff_to")
SCORERS_JUDGE = Key("scorers.judge")
"""The "Judge…" button of a scorer, and (``.child(scorer_id).child(part)``) its panel's widgets:
which saved judge to use, keep its own instructions, Use / Cancel, a pasted key."""


# -- Examples ---------------------------------------------------------------------------------
SELECTED_DATASET_ID = Key("examples.dataset_id", _none)
EXAMPLES_GRID_GEN = Key("examples.grid_gen", int)
"""Bumped after the grid is saved or its edits discarded, so the editor starts clean."""
EXAMPLES_GRID_PROBLEMS = Key("examples.grid_problems", list)
"""Why the last save of the grid was refused (one line per cell or row)."""
EXAMPLES_GRID_SAVED = Key("examples.grid_saved", _none)
"""The editor key and fingerprint of the last edits saved from the grid: the same edits
arriving again (a second click before the page caught up) are not written twice."""
EXAMPLES_PICKER_LABELS = Key("examples.picker_labels", _none)
"""The dataset picker's labels as last drawn ("qa (5 examples)"): when a count changes, the
picker's value is set again so the browser shows the new label and keeps the choice."""
EXAMPLES_CONFIRM_ARCHIVE = Key("examples.confirm_archive", _none)
"""The dataset id whose archiving waits for a "yes" (None: no question open)."""
EXAMPLES_CREATE_ERROR = Key("examples.create_error", _none)
"""Why the last "Create dataset" was refused (text), or None."""
EXAMPLES_IMPORT_FILE = Key("examples.import_file", _none)
"""Which uploaded file (name and size) the import form's column choices were made for."""
EXAMPLES_IMPORT_REPORT = Key("examples.import_report", _none)
"""The last import's outcome, kept so it stays on screen: a dict, or None."""
EXAMPLES_IMPORT_GEN = Key("examples.import_gen", int)
"""Bumped after a file is imported, so the uploader (keyed with it) starts empty."""
# widgets (pass key=X.name)
EXAMPLES_TAB = Key("examples.tab")
EXAMPLES_EMPTY_IMPORT = Key("examples.empty_import")
EXAMPLES_LOAD_DEMO = Key("examples.load_demo")
EXAMPLES_DATASET = Key("examples.dataset")
"""The dataset picker (its value mirrors SELECTED_DATASET_ID)."""
EXAMPLES_NEW = Key("examples.new")
EXAMPLES_NEW_NAME = Key("examples.new_name")
EXAMPLES_NEW_DESCRIPTION = Key("examples.new_description")
EXAMPLES_NEW_CREATE = Key("examples.new_create")
EXAMPLES_OVERVIEW = Key("examples.overview")
EXAMPLES_OVERVIEW_TABLE = Key("examples.overview_table")
EXAMPLES_RENAME = Key("examples.rename")
"""One per dataset: ``EXAMPLES_RENAME.child(dataset_id)`` (so are DESCRIBE, RESTORE, PAGE)."""
EXAMPLES_DESCRIBE = Key("examples.describe")
EXAMPLES_RENAME_SAVE = Key("examples.rename_save")
EXAMPLES_ARCHIVE = Key("examples.archive")
EXAMPLES_ARCHIVE_YES = Key("examples.archive_yes")
EXAMPLES_ARCHIVE_NO = Key("examples.archive_no")
EXAMPLES_ARCHIVED = Key("examples.archived")
EXAMPLES_RESTORE = Key("examples.restore")
EXAMPLES_EXPORT_CSV = Key("examples.export_csv")
EXAMPLES_EXPORT_JSONL = Key("examples.export_jsonl")
EXAMPLES_PAGE = Key("examples.page")
EXAMPLES_GRID = Key("examples.grid")
"""The grid editor: ``EXAMPLES_GRID.child(dataset_id).child(page).child(EXAMPLES_GRID_GEN)``."""
EXAMPLES_SAVE = Key("examples.save")
EXAMPLES_DISCARD = Key("examples.discard")
EXAMPLES_MAP = Key("examples.map")
"""Which file column holds a field: ``EXAMPLES_MAP.child("input")``…"""
EXAMPLES_IMPORT_FORMATS = Key("examples.import_formats")
EXAMPLES_IMPORT_UPLOAD = Key("examples.import_upload")
"""The file uploader: ``EXAMPLES_IMPORT_UPLOAD.child(EXAMPLES_IMPORT_GEN)``."""
EXAMPLES_IMPORT_PREVIEW = Key("examples.import_preview")
EXAMPLES_IMPORT_TARGET = Key("examples.import_target")
EXAMPLES_IMPORT_NAME = Key("examples.import_name")
EXAMPLES_IMPORT_MODE = Key("examples.import_mode")
EXAMPLES_IMPORT_GO = Key("examples.import_go")
EXAMPLES_IMPORT_DISMISS = Key("examples.import_dismiss")


# -- Judges -----------------------------------------------------------------------------------
JUDGES_SELECTED = Key("judges.selected", _none)
"""The judge profile open in the form (its name), or None for a new judge."""
JUDGES_CONFIRM_DELETE = Key("judges.confirm_delete", _none)
"""The judge profile whose deletion waits for a "yes" (None: no question open)."""
JUDGES_CONNECTION = Key("judges.connection", _none)
"""The last connection test's outcome (a app_pages.judges.logic.ConnectionResult), or None."""
# widgets (pass key=X.name)
JUDGES_NAME = Key("judges.name")
JUDGES_MODEL = Key("judges.model")
JUDGES_API_BASE = Key("judges.api_base")
JUDGES_KEY_ENV = Key("judges.key_env")
JUDGES_INSTRUCTIONS = Key("judges.instructions")
JUDGES_TEMPERATURE = Key("judges.temperature")
JUDGES_TIMEOUT = Key("judges.timeout")
JUDGES_INPUT_PRICE = Key("judges.input_price")
JUDGES_OUTPUT_PRICE = Key("judges.output_price")
JUDGES_DEFAULT_CAP = Key("judges.default_cap")
JUDGES_REQUESTS_PER_MINUTE = Key("judges.requests_per_minute")
JUDGES_TOKENS_PER_MINUTE = Key("judges.tokens_per_minute")
JUDGES_JSON_MODE = Key("judges.json_mode")
JUDGES_HARDEN = Key("judges.harden_prompt")
JUDGES_RETRY = Key("judges.retry")
"""The judge's retry form (a family: ``judges.retry.on``, ``judges.retry.retries``…)."""
JUDGES_PROCESSORS = Key("judges.processors")
"""The judge's processors form (a family: ``judges.processors.redact``…)."""
JUDGES_TABLE = Key("judges.table")
JUDGES_PICK = Key("judges.pick")
"""The "Judge to edit" picker (its value mirrors JUDGES_SELECTED)."""
JUDGES_SAVE = Key("judges.save")
JUDGES_TEST = Key("judges.test")
JUDGES_TEST_ANSWER = Key("judges.test_answer")
JUDGES_DELETE = Key("judges.delete")
JUDGES_DELETE_YES = Key("judges.delete_yes")
JUDGES_DELETE_NO = Key("judges.delete_no")
JUDGES_KEY_VALUE = Key("judges.key_value")
"""The pasted key (a password box, emptied as soon as the key is used; never stored)."""
JUDGES_KEY_REMEMBER = Key("judges.key_remember")
JUDGES_KEY_USE = Key("judges.key_use")
JUDGES_KEY_BOX = Key("judges.key_box")
JUDGES_KEY_OUTCOME = Key("judges.key_outcome", _none)
"""What happened to the last pasted key, in words (never the key): ("ok" or "error", text)."""


# -- Runs -------------------------------------------------------------------------------------
SELECTED_RUN_ID = Key("runs.run_id", _none)
RUNS_CURSOR = Key("runs.cursor", list)
"""Where each page of the runs list starts (the run ids it is older than), for "Newer runs"."""
RUNS_FOLLOWED = Key("runs.followed_scorer", _none)
"""The current scorer (CURRENT_SCORER_ID) the start form last switched to (see
widgets.current_scorer)."""
# widgets (pass key=X.name)
RUNS_SCORER = Key("runs.scorer")
RUNS_VERSION = Key("runs.version")
RUNS_DATASET = Key("runs.dataset")
RUNS_FITTING_DATASET = Key("runs.fitting_dataset")
RUNS_CONCURRENCY = Key("runs.concurrency")
RUNS_START = Key("runs.start")
RUNS_START_ERROR = Key("runs.start_error", _none)
"""Why the last click on Start queued nothing (an exception, shown once by the button)."""
RUNS_USE_CACHE = Key("runs.use_cache")
"""The start form's "reuse judge answers" checkbox."""
RUNS_CAP = Key("runs.cap")
"""The "Stop at $" boxes: ``RUNS_CAP.child(version_id)`` by Start (one per scorer version, each
first filled with its judge's default cap), ``RUNS_CAP.child("resume")`` beside Resume."""
RUNS_ALLOW_UNPRICED = Key("runs.allow_unpriced")
RUNS_PLAN = Key("runs.plan")
"""The start form's plan; its "fix" buttons are ``RUNS_PLAN.child("fix").child(i)``."""
RUNS_LOAD_DEMO = Key("runs.load_demo")
RUNS_GO_BUILDER = Key("runs.go_builder")
RUNS_GO_EXAMPLES = Key("runs.go_examples")
RUNS_OPEN = Key("runs.open")
"""One per run listed: ``RUNS_OPEN.child(run_id)`` (and RUNS_SEE_RESULTS)."""
RUNS_SEE_RESULTS = Key("runs.see_results")
RUNS_NEWER = Key("runs.newer")
RUNS_OLDER = Key("runs.older")
RUNS_THRESHOLD_SLIDER = Key("runs.threshold")
"""One per run shown: ``RUNS_THRESHOLD_SLIDER.child(run_id)``, starting at the stored pass mark."""
RUNS_CHART_OUTCOMES = Key("runs.chart_outcomes")
RUNS_RESUME_PLAN = Key("runs.resume_plan")
RUNS_RESULTS = Key("runs.results")
RUNS_RESUME = Key("runs.resume")
RUNS_CANCEL = Key("runs.cancel")
RUNS_START_RUNNER = Key("runs.start_runner")
"""The "Start a runner" button; where it shows: ``RUNS_START_RUNNER.child("form"|"live")``."""


# -- Results ----------------------------------------------------------------------------------
RESULTS_FILTERS = Key("results.filters", dict)
RESULTS_CURSOR = Key("results.cursor", list)
"""Keyset cursors of the pages already seen on the results page (for 'previous')."""
SELECTED_SCORE_ID = Key("results.score_id", _none)
RESULTS_THRESHOLD = Key("results.saved_threshold", _none)
"""The pass mark on the Results page (None: the middle of the scores' range)."""
RESULTS_FOLLOWED = Key("results.followed_scorer", _none)
"""The current scorer (CURRENT_SCORER_ID) the filters last switched to."""
# widgets (pass key=X.name)
RESULTS_SCORER = Key("results.scorer")
RESULTS_VERSION = Key("results.version")
RESULTS_DATASET = Key("results.dataset")
RESULTS_RUN = Key("results.run")
RESULTS_SINCE = Key("results.since")
RESULTS_UNTIL = Key("results.until")
RESULTS_OUTCOMES = Key("results.outcomes")
RESULTS_FILTER_WIDGETS = (
    RESULTS_SCORER,
    RESULTS_VERSION,
    RESULTS_DATASET,
    RESULTS_RUN,
    RESULTS_SINCE,
    RESULTS_UNTIL,
    RESULTS_OUTCOMES,
)
"""The Results page's filter widgets, in the order of ResultsFilter's fields."""
RESULTS_THRESHOLD_SLIDER = Key("results.threshold")
RESULTS_REFRESH = Key("results.refresh")
RESULTS_CLEAR = Key("results.clear")
RESULTS_GO_RUNS = Key("results.go_runs")
RESULTS_CHART_OUTCOMES = Key("results.chart_outcomes")
RESULTS_CHART_HISTOGRAM = Key("results.chart_histogram")
RESULTS_CHART_TREND = Key("results.chart_trend")
RESULTS_TABLE = Key("results.table")
RESULTS_PREVIOUS = Key("results.previous")
RESULTS_NEXT = Key("results.next")
RESULTS_OPEN = Key("results.open")
RESULTS_CLOSE = Key("results.close")
RESULTS_DOWNLOAD = Key("results.download")
RESULTS_DETAIL = Key("results.detail")
RESULTS_BY_SCORER = Key("results.by_scorer")


# -- Review -----------------------------------------------------------------------------------
REVIEW_GRADER = Key("review.grader", _none)
"""The name of the person grading, asked once per session and stored with each grade."""
REVIEW_ORDER = Key("review.order", _none)
"""The examples in the order they are graded, fixed when a scorer and its examples are picked:
``(what, [example ids])`` with ``what`` = (scorer id, "dataset" or "run", id); ungraded first."""
REVIEW_EXAMPLE_ID = Key("review.example_id", _none)
"""The example on screen (an id in REVIEW_ORDER), or None before the first."""
REVIEW_LAST = Key("review.last", _none)
"""The grade just given (a app_pages.review.logic.LastGrade), to show the judge's verdict
beside it once the example is graded; None before the first grade."""
REVIEW_IMPORT_REPORT = Key("review.import_report", _none)
"""What the last import of a grades file did, in words: ("ok" or "error", text), or None."""
REVIEW_IMPORT_GEN = Key("review.import_gen", int)
"""Bumped after a grades file is imported, so the uploader (keyed with it) starts empty."""
REVIEW_FOLLOWED = Key("review.followed_scorer", _none)
"""The current scorer (CURRENT_SCORER_ID) the scorer picker last switched to."""
# widgets (pass key=X.name)
REVIEW_SCORER = Key("review.scorer")
REVIEW_SOURCE = Key("review.source")
REVIEW_DATASET = Key("review.dataset")
REVIEW_RUN = Key("review.run")
REVIEW_GRADER_FORM = Key("review.grader_form")
REVIEW_GRADER_NAME = Key("review.grader_name")
REVIEW_GRADER_START = Key("review.grader_start")
REVIEW_GRADER_CHANGE = Key("review.grader_change")
REVIEW_SHOW_JUDGE = Key("review.show_judge")
REVIEW_GRADE = Key("review.grade")
"""One button per grade of the scale: ``REVIEW_GRADE.child(index)``."""
REVIEW_NUMBER = Key("review.number")
"""A grade on a number scale: ``REVIEW_NUMBER.child(example_id)`` (so is REVIEW_NOTE)."""
REVIEW_NUMBER_SAVE = Key("review.number_save")
REVIEW_NOTE = Key("review.note")
REVIEW_PREVIOUS = Key("review.previous")
REVIEW_NEXT = Key("review.next")
REVIEW_SKIP = Key("review.skip")
REVIEW_RESTART = Key("review.restart")
REVIEW_DOWNLOAD = Key("review.download")
REVIEW_UPLOAD = Key("review.upload")
"""The grades file uploader: ``REVIEW_UPLOAD.child(REVIEW_IMPORT_GEN)``."""
REVIEW_MAP = Key("review.map")
"""Which column of the uploaded grades file holds a field: ``REVIEW_MAP.child("grade")``…"""
REVIEW_IMPORT_GO = Key("review.import_go")
REVIEW_GO_BUILDER = Key("review.go_builder")
REVIEW_GO_EXAMPLES = Key("review.go_examples")


# -- Compare runs -----------------------------------------------------------------------------
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
COMPARE_FOLLOWED = Key("compare.followed_scorer", _none)
"""The current scorer (CURRENT_SCORER_ID) the version picker last switched to."""
# widgets (pass key=X.name)
COMPARE_MODE = Key("compare.mode")
COMPARE_BEFORE = Key("compare.before")
COMPARE_AFTER = Key("compare.after")
COMPARE_SCORER = Key("compare.scorer")
COMPARE_BEFORE_VERSION = Key("compare.before_version")
COMPARE_AFTER_VERSION = Key("compare.after_version")
COMPARE_DATASET = Key("compare.dataset")
COMPARE_PICK_WIDGETS = (
    COMPARE_MODE,
    COMPARE_BEFORE,
    COMPARE_AFTER,
    COMPARE_SCORER,
    COMPARE_BEFORE_VERSION,
    COMPARE_AFTER_VERSION,
    COMPARE_DATASET,
)
"""The widgets that choose what Compare runs shows (forgotten when another page opens it)."""
COMPARE_GO_RUNS = Key("compare.go_runs")
COMPARE_GO_RUNS_VERSION = Key("compare.go_runs_version")
COMPARE_THRESHOLD = Key("compare.threshold")
COMPARE_OUTCOMES = Key("compare.outcomes")
COMPARE_ONLY_CHANGED = Key("compare.only_changed")
COMPARE_TABLE = Key("compare.table")
COMPARE_PREVIOUS = Key("compare.previous")
COMPARE_NEXT = Key("compare.next")
COMPARE_EXAMPLE = Key("compare.example")
"""The "Open one example" picker (its value mirrors COMPARE_EXAMPLE_ID)."""
COMPARE_DOWNLOAD = Key("compare.download")
COMPARE_DETAIL = Key("compare.detail")
"""One per run of the pair: ``COMPARE_DETAIL.child("before")``."""


# -- Export & import --------------------------------------------------------------------------
EXPORT_SCORER_ID = Key("export.scorer_id", _none)
"""The scorer the export page opens with (set by "Export" on the scorers page)."""
EXPORT_FOLLOWED = Key("export.followed_scorer", _none)
"""The current scorer (CURRENT_SCORER_ID) the export picker last switched to."""
# widgets (pass key=X.name)
EXPORT_SCORER = Key("export.scorer")
EXPORT_VERSION = Key("export.version")
"""One per scorer: ``EXPORT_VERSION.child(scorer_id)``."""
EXPORT_FORMAT = Key("export.format")
EXPORT_DOWNLOAD = Key("export.download")
EXPORT_UPLOAD = Key("export.upload")
EXPORT_IMPORT_MODE = Key("export.import_mode")
EXPORT_IMPORT_NOTE = Key("export.import_note")
EXPORT_IMPORT_SAVE = Key("export.import_save")
EXPORT_IMPORT_NAME = Key("export.import_name")
EXPORT_IMPORT_TARGET = Key("export.import_target")


# -- Monitor ----------------------------------------------------------------------------------
# widgets of the "Add a rule" form (pass key=X.name)
MONITOR_SCORER = Key("monitor.scorer")
MONITOR_FILTERS = Key("monitor.filters")
MONITOR_SAMPLE = Key("monitor.sample")
MONITOR_CAP = Key("monitor.cap")
MONITOR_ADD = Key("monitor.add")
MONITOR_FIX_JUDGE = Key("monitor.fix_judge")
MONITOR_ALERT_DROP = Key("monitor.alert_drop")
MONITOR_ALERT_PERIOD = Key("monitor.alert_period")
MONITOR_ALERT_MEASURE = Key("monitor.alert_measure")
MONITOR_WEBHOOK = Key("monitor.webhook")
MONITOR_CHART_RULE = Key("monitor.chart_rule")
MONITOR_EDIT_RULE = Key("monitor.edit_rule")
MONITOR_EDIT = Key("monitor.edit")  # .child(rule id): the form changing a rule's alerts


# -- Traces -----------------------------------------------------------------------------------
TRACES_IMPORT = Key("traces.import", _none)
"""The last trace file imported on the traces page and what saving it did (a
app_pages.traces.logic.ImportReport), shown while the file stays in the uploader; or None."""
TRACES_PAGE = Key("traces.page", int)
"""The page of the stored traces list being shown (0 is the first; pages come from the
database)."""
TRACES_CHOSEN = Key("traces.chosen", _none)
"""The traces chosen for scoring (a list of trace ids, in the order chosen): the one source
of truth for the choice. The list's "Chosen" column, the picker, the counts, the Score
button and its messages are all read from it. None until the page first lists traces (then
the listed traces are chosen); an import adds its traces; a delete removes its traces."""
TRACES_CONFIRM_DELETE = Key("traces.confirm_delete", _none)
"""The trace ids whose deletion waits for a "yes" (a tuple), or None: no question open."""
# widgets (pass key=X.name)
TRACES_SEARCH = Key("traces.search")
TRACES_PREV = Key("traces.prev")
TRACES_NEXT = Key("traces.next")
TRACES_DELETE_CHOICE = Key("traces.delete_choice")
TRACES_DELETE = Key("traces.delete")
TRACES_DELETE_YES = Key("traces.delete_yes")
TRACES_DELETE_NO = Key("traces.delete_no")
TRACES_VIEW = Key("traces.view")
TRACES_UPLOAD = Key("traces.upload")
TRACES_SCORER = Key("traces.scorer")
TRACES_SCORE = Key("traces.score")
TRACES_FIX_JUDGE = Key("traces.fix_judge")
TRACES_SELECTED = Key("traces.selected")
"""The "Traces to score" picker: a mirror of TRACES_CHOSEN, written from it before each
render and copied back into it when the person changes it."""
TRACES_CHOOSE_PAGE = Key("traces.choose_page")
TRACES_CHOOSE_NONE = Key("traces.choose_none")
TRACES_EXPECTED = Key("traces.expected")
"""The expected-answer form of one trace: ``TRACES_EXPECTED.child(f"{place}.{trace_id}")``,
its parts ``.child("kind")``, ``.child("tools")``, ``.child("text")``."""
TRACES_DETAIL = Key("traces.detail")
TRACES_SCORE_DETAIL = Key("traces.score_detail")
"""One per score shown: ``TRACES_SCORE_DETAIL.child(score_id)``."""


# -- Trust ------------------------------------------------------------------------------------
TRUST_FOLLOWED = Key("trust.followed_scorer", _none)
"""The current scorer the Trust page last followed (see ``widgets.current_scorer``)."""
# widgets (pass key=X.name)
TRUST_SCORER = Key("trust.scorer")
TRUST_VERSION = Key("trust.version")
TRUST_OPEN = Key("trust.open")
"""One per disagreement: ``TRUST_OPEN.child(score_id)`` opens its score in Results."""
TRUST_MIN_GRADED = Key("trust.min_graded")
TRUST_MIN_KAPPA = Key("trust.min_kappa")
TRUST_MAX_FLIPS = Key("trust.max_flips")
TRUST_USE_PASS_MARK = Key("trust.use_pass_mark")
TRUST_PASS_MARK = Key("trust.pass_mark")
TRUST_SAVE_POLICY = Key("trust.save_policy")
TRUST_APPROVER = Key("trust.approver")
TRUST_OVERRIDE = Key("trust.override")
TRUST_APPROVE = Key("trust.approve")

# -- Trust: stability and version A/B ---------------------------------------------------------
# widgets (pass key=X.name); each a family per scorer: ``.child(scorer_id)``
TRUST_STABILITY_VERSION = Key("trust.stability.version")
TRUST_STABILITY_DATASET = Key("trust.stability.dataset")
TRUST_STABILITY_FITTING = Key("trust.stability.fitting_dataset")
TRUST_STABILITY_SAMPLE = Key("trust.stability.sample")
TRUST_STABILITY_REPEATS = Key("trust.stability.repeats")
TRUST_STABILITY_START = Key("trust.stability.start")
TRUST_STABILITY_STOP = Key("trust.stability.stop")
TRUST_STABILITY_ALL = Key("trust.stability.all")
TRUST_ASK_HEALTH = Key("trust.ask_health")
TRUST_MAX_SWAYED = Key("trust.max_swayed")
TRUST_HEALTH_DATASET = Key("trust.health.dataset")
TRUST_HEALTH_FITTING = Key("trust.health.fitting_dataset")
TRUST_HEALTH_SAMPLE = Key("trust.health.sample")
TRUST_HEALTH_START = Key("trust.health.start")
TRUST_HEALTH_STOP = Key("trust.health.stop")
TRUST_VERSIONS_A = Key("trust.versions.a")
TRUST_VERSIONS_B = Key("trust.versions.b")
TRUST_VERSIONS_DATASET = Key("trust.versions.dataset")
TRUST_VERSIONS_FITTING = Key("trust.versions.fitting_dataset")
TRUST_VERSIONS_SCORE = Key("trust.versions.score")
TRUST_VERSIONS_RESUME = Key("trust.versions.resume")

# -- Trust: Improve this judge ------------------------------------------------------------------
# widgets (pass key=X.name); each a family per version: ``.child(version_id)``
TRUST_IMPROVE_WRITER = Key("trust.improve.writer")
TRUST_IMPROVE_WRITE = Key("trust.improve.write")
TRUST_IMPROVE_GUIDELINES = Key("trust.improve.guidelines")
TRUST_IMPROVE_CAP = Key("trust.improve.cap")
TRUST_IMPROVE_TRY = Key("trust.improve.try")
# values, per version
TRUST_IMPROVE_CANDIDATES = Key("trust.improve.candidates")
"""The candidates with the guidelines written for them (a Candidates), until the page is left."""
TRUST_IMPROVE_REPORT = Key("trust.improve.report")
"""The last "Improve this judge" result of the version (an AlignReport)."""
