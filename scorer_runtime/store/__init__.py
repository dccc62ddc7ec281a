"""The score-history store: SQLModel tables, engine from a URL, migrations, one module per entity.

This package alone owns the database schema. Repository functions are keyword-only, take an
explicit session and only flush; :func:`session_scope` is the one place that commits::

    engine = make_engine()          # SCORER_STUDIO_DATABASE_URL, else ./data/scorer_studio.db
    ensure_schema(engine)
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=spec)   # a ScorerSpec (load_spec checks data)
    version.spec                                            # the ScorerSpec again

What leaves the store is a frozen ``*Info`` dataclass (``ScorerInfo``, ``RunInfo``, ...) with
the table row's field names, never the row: the ``*Record`` tables stay in
:mod:`scorer_runtime.store.tables`. Queries shaped for one studio page live in
:mod:`scorer_runtime.store.views`; the studio imports only this package and that one.

Importing it loads SQLAlchemy, so the runtime core never imports it. ``Session`` and
``Engine`` are re-exported so that callers (the studio) type their arguments without
importing SQLAlchemy themselves: every query lives here.
"""

from sqlalchemy import Engine
from sqlmodel import Session

from scorer_runtime.store.aggregates import (
    CostTotal,
    DailyMean,
    HistogramBin,
    ScoreStats,
    cost_total,
    mean_per_day,
    median_score,
    outcome_counts,
    pass_count,
    score_histogram,
    score_spread,
    score_stats,
)
from scorer_runtime.store.canonical import canonical_json, content_hash, jsonable
from scorer_runtime.store.datasets import (
    EXAMPLE_FIELDS,
    DatasetInfo,
    ExampleData,
    ExampleInfo,
    add_examples,
    archive_dataset,
    count_examples,
    create_dataset,
    dataset_names,
    delete_example,
    example_counts,
    get_dataset,
    list_datasets,
    list_examples,
    update_dataset,
    update_example,
)
from scorer_runtime.store.drafts import DraftInfo, delete_draft, get_draft, list_drafts, save_draft
from scorer_runtime.store.engine import (
    DATABASE_URL_ENV,
    database_url,
    describe_url,
    make_engine,
    read_session,
    session_scope,
)
from scorer_runtime.store.errors import ConflictError, NotFoundError, StoreError
from scorer_runtime.store.judges import (
    JudgeProfileInfo,
    delete_judge_profile,
    get_judge_profile,
    judge_profile_dict,
    judge_profile_exists,
    list_judge_profiles,
    save_judge_profile,
)
from scorer_runtime.store.labels import LabelInfo, add_label, list_labels
from scorer_runtime.store.migrate import (
    SchemaError,
    current_revision,
    ensure_schema,
    upgrade,
)
from scorer_runtime.store.names import NameBook, load_names
from scorer_runtime.store.runs import (
    STALE_AFTER,
    RunInfo,
    beat,
    create_run,
    finish_run,
    get_run,
    list_runs,
    request_cancel,
    run_counts,
    start_run,
)
from scorer_runtime.store.scorers import (
    ScorerCounts,
    ScorerInfo,
    ScorerVersionInfo,
    archive_scorer,
    duplicate_scorer,
    free_scorer_name,
    get_scorer,
    get_version,
    get_version_by_id,
    latest_version,
    latest_version_numbers,
    list_scorers,
    list_versions,
    save_scorer_version,
    scorer_counts,
    scorer_name_taken,
)
from scorer_runtime.store.scores import (
    ScoreFilter,
    ScoreInfo,
    ScorePage,
    ScoreRow,
    add_scores,
    get_score,
    iter_score_rows,
    list_scores,
)
from scorer_runtime.store.tables import utc_now
from scorer_runtime.store.traces import (
    TraceSaveSummary,
    TraceSummary,
    all_trace_ids,
    count_traces,
    delete_traces,
    get_trace,
    get_traces,
    list_traces,
    save_traces,
    scored_trace_ids,
    set_trace_expected,
    trace_summaries,
)

__all__ = [
    "DATABASE_URL_ENV",
    "EXAMPLE_FIELDS",
    "STALE_AFTER",
    "ConflictError",
    "CostTotal",
    "DailyMean",
    "DatasetInfo",
    "DraftInfo",
    "Engine",
    "ExampleData",
    "ExampleInfo",
    "HistogramBin",
    "JudgeProfileInfo",
    "LabelInfo",
    "NameBook",
    "NotFoundError",
    "RunInfo",
    "SchemaError",
    "ScoreFilter",
    "ScoreInfo",
    "ScorePage",
    "ScoreRow",
    "ScoreStats",
    "ScorerCounts",
    "ScorerInfo",
    "ScorerVersionInfo",
    "Session",
    "StoreError",
    "TraceSaveSummary",
    "TraceSummary",
    "add_examples",
    "add_label",
    "add_scores",
    "all_trace_ids",
    "archive_dataset",
    "archive_scorer",
    "beat",
    "canonical_json",
    "content_hash",
    "cost_total",
    "count_examples",
    "count_traces",
    "create_dataset",
    "create_run",
    "current_revision",
    "database_url",
    "dataset_names",
    "delete_draft",
    "delete_example",
    "delete_judge_profile",
    "delete_traces",
    "describe_url",
    "duplicate_scorer",
    "ensure_schema",
    "example_counts",
    "finish_run",
    "free_scorer_name",
    "get_dataset",
    "get_draft",
    "get_judge_profile",
    "get_run",
    "get_score",
    "get_scorer",
    "get_trace",
    "get_traces",
    "get_version",
    "get_version_by_id",
    "iter_score_rows",
    "jsonable",
    "judge_profile_dict",
    "judge_profile_exists",
    "latest_version",
    "latest_version_numbers",
    "list_datasets",
    "list_drafts",
    "list_examples",
    "list_judge_profiles",
    "list_labels",
    "list_runs",
    "list_scorers",
    "list_scores",
    "list_traces",
    "list_versions",
    "load_names",
    "make_engine",
    "mean_per_day",
    "median_score",
    "outcome_counts",
    "pass_count",
    "read_session",
    "request_cancel",
    "run_counts",
    "save_draft",
    "save_judge_profile",
    "save_scorer_version",
    "save_traces",
    "score_histogram",
    "score_spread",
    "score_stats",
    "scored_trace_ids",
    "scorer_counts",
    "scorer_name_taken",
    "session_scope",
    "set_trace_expected",
    "start_run",
    "trace_summaries",
    "update_dataset",
    "update_example",
    "upgrade",
    "utc_now",
]
