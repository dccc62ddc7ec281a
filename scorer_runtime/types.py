"""The names every layer shares: the four steps, what each produces, outcomes, run statuses.

One spelling of each closed set, so the pipeline, the store, the batch engine, the CLI and the
studio cannot drift apart. Plain literals and constants only: importing this module loads
nothing else.
"""

from __future__ import annotations

from typing import Literal

StepName = Literal["preprocess", "analyze", "generate_score", "generate_reason"]
"""One of the four steps of a scorer's pipeline."""

STEP_ORDER: tuple[StepName, ...] = ("preprocess", "analyze", "generate_score", "generate_reason")
"""The steps in the order they run."""

DATA_STEPS: tuple[StepName, ...] = ("preprocess", "analyze")
"""The steps whose result is data for later steps (a prompt-mode one needs an output schema)."""

STEP_RESULT_FIELD: dict[StepName, str] = {
    "preprocess": "preprocess_step_result",
    "analyze": "analyze_step_result",
    "generate_score": "generate_score_step_result",
}
"""Where a later step finds a step's result (generate_reason's result is the ``reason``)."""

STEP_PROMPT_FIELD: dict[StepName, str] = {
    "preprocess": "preprocess_prompt",
    "analyze": "analyze_prompt",
    "generate_score": "generate_score_prompt",
    "generate_reason": "generate_reason_prompt",
}
"""The field of a score result that keeps the prompt a prompt step sent to the judge."""

Outcome = Literal["scored", "not_scorable", "step_error", "provider_error", "judge_format_error"]
"""What scoring one example ended in; only ``scored`` carries a score."""

OUTCOMES: tuple[Outcome, ...] = (
    "scored",
    "not_scorable",
    "step_error",
    "provider_error",
    "judge_format_error",
)
"""Every outcome, in the order reports list them."""

RunStatus = Literal["queued", "running", "stopped", "cancelled", "failed", "done"]
"""Where a batch run is: waiting, running, stopped by its spend cap ("stopped: budget
reached"), stopped by a user, stopped by an error, finished."""

RUN_STATUSES: tuple[RunStatus, ...] = (
    "queued",
    "running",
    "stopped",
    "cancelled",
    "failed",
    "done",
)
"""Every run status, in the order a run moves through them."""

__all__ = [
    "DATA_STEPS",
    "OUTCOMES",
    "RUN_STATUSES",
    "STEP_ORDER",
    "STEP_PROMPT_FIELD",
    "STEP_RESULT_FIELD",
    "Outcome",
    "RunStatus",
    "StepName",
]
