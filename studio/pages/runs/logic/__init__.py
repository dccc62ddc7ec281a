"""What the Runs page computes, free of Streamlit (tested without a browser).

``plan`` says what a run will do before it starts (judge calls, keys, problems); ``launch``
starts a run's process in the background and tells whether it is alive; ``history`` says
where each run is (the runs, with their names, counts and mean, are read by
``scorer_runtime.store.views.runs_page``).
``words`` puts a run's numbers in plain words.
"""

from studio.pages.runs.logic.history import (
    ACTIVE_PHASES,
    PAGE_SIZE,
    PHASE_LABELS,
    RESUMABLE_PHASES,
    RunPhase,
    run_phase,
    runner_is_gone,
)
from studio.pages.runs.logic.launch import (
    RUNS_DIR_NAME,
    Launcher,
    cli_command,
    launch_error,
    launch_run,
    launcher,
    log_path,
    log_tail,
    record_path,
    runs_dir,
    stop_launcher,
)
from studio.pages.runs.logic.plan import (
    STEP_WORDS,
    KeyCheck,
    Problem,
    RunPlan,
    estimate_text,
    key_checks,
    plan_problems,
    plan_run,
)
from studio.pages.runs.logic.words import (
    UNPRICED_WHY,
    cost_caption,
    cost_help,
    cost_value,
    format_cost,
    format_duration,
    format_when,
    progress_words,
    run_cost_words,
    share,
)

__all__ = [
    "ACTIVE_PHASES",
    "PAGE_SIZE",
    "PHASE_LABELS",
    "RESUMABLE_PHASES",
    "RUNS_DIR_NAME",
    "STEP_WORDS",
    "UNPRICED_WHY",
    "KeyCheck",
    "Launcher",
    "Problem",
    "RunPhase",
    "RunPlan",
    "cli_command",
    "cost_caption",
    "cost_help",
    "cost_value",
    "estimate_text",
    "format_cost",
    "format_duration",
    "format_when",
    "key_checks",
    "launch_error",
    "launch_run",
    "launcher",
    "log_path",
    "log_tail",
    "plan_problems",
    "plan_run",
    "progress_words",
    "record_path",
    "run_cost_words",
    "run_phase",
    "runner_is_gone",
    "runs_dir",
    "share",
    "stop_launcher",
]
