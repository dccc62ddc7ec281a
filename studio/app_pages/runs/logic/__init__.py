"""What the Runs page computes, free of Streamlit (tested without a browser).

``plan`` says what a run will do before it starts (judge calls, keys, problems); ``history``
says where each run is (the runs, with their names, counts and mean, are read by
``scorer_runtime.store.views.runs_page``; runs are queued for a runner by
``scorer_runtime.batch.queue``).
``progress`` puts how far a run is in plain words (durations and money: ``studio.words``).
"""

from studio.app_pages.runs.logic.history import (
    ACTIVE_PHASES,
    PAGE_SIZE,
    PHASE_LABELS,
    RESUMABLE_PHASES,
    Mark,
    RunPhase,
    run_mark,
    run_phase,
)
from studio.app_pages.runs.logic.plan import (
    KeyCheck,
    Problem,
    RunPlan,
    estimate_text,
    key_checks,
    plan_problems,
    read_run_plan,
)
from studio.app_pages.runs.logic.progress import (
    format_when,
    live_rows,
    preview,
    progress_words,
    run_cache_words,
    run_cost_words,
    run_pace_words,
    share,
)

__all__ = [
    "ACTIVE_PHASES",
    "PAGE_SIZE",
    "PHASE_LABELS",
    "RESUMABLE_PHASES",
    "KeyCheck",
    "Mark",
    "Problem",
    "RunPhase",
    "RunPlan",
    "estimate_text",
    "format_when",
    "key_checks",
    "live_rows",
    "plan_problems",
    "preview",
    "progress_words",
    "read_run_plan",
    "run_cache_words",
    "run_cost_words",
    "run_mark",
    "run_pace_words",
    "run_phase",
    "share",
]
