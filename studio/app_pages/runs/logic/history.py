"""Where each run is, as the Runs page lists and follows them.

The runs themselves, with their names, counts and mean, are read by the store
(:func:`scorer_runtime.store.views.runs_page`, :func:`~scorer_runtime.store.views.run_line`).
A run's stored status says what its runner last wrote; :func:`run_phase` adds what only the
outside can see — a run marked running whose process is gone, a run whose process was
started but has not begun, or exited before it could. Streamlit-free.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from scorer_runtime.batch.launch import Launcher
from scorer_runtime.process import runner_is_gone
from scorer_runtime.store import STALE_AFTER, utc_now
from scorer_runtime.store.views import RunLine
from scorer_runtime.types import RUN_STATUSES
from studio.words import RUN_STATUS_LABELS

PAGE_SIZE = 10
"""Runs per page of the list (pages come from the database, newest first)."""

RunPhase = Literal[
    "queued",
    "starting",
    "running",
    "stopping",
    "cancelled",
    "failed",
    "done",
    "stalled",
    "not_started",
]
"""Where a run is, as a person sees it (the stored status plus what the processes say)."""

PHASE_LABELS: dict[RunPhase, str] = {
    **{status: RUN_STATUS_LABELS[status] for status in RUN_STATUSES},
    "starting": "Starting…",
    "stopping": "Stopping…",
    "stalled": "Stopped unexpectedly",
    "not_started": "Did not start",
}
"""Every phase in plain words (the stored statuses in the words of ``RUN_STATUS_LABELS``)."""

ACTIVE_PHASES: frozenset[RunPhase] = frozenset({"queued", "starting", "running", "stopping"})
"""Phases in which the page follows the run live."""
RESUMABLE_PHASES: frozenset[RunPhase] = frozenset({"cancelled", "failed", "stalled", "not_started"})


def run_phase(line: RunLine, launched: Launcher | None, *, now: datetime | None = None) -> RunPhase:
    """Where the run is, from its row and the process started for it (if this machine knows).

    A process launched after the run last finished, and still alive, is *starting* (it has
    not marked the run running yet); one that exited without starting leaves a queued run
    that *did not start*. A running run whose runner stopped beating or is gone *stalled*.
    """
    if line.status == "running":
        beat = line.heartbeat_at or line.started_at
        if beat is None or (now or utc_now()) - beat > STALE_AFTER or runner_is_gone(line.runner):
            return "stalled"
        return "stopping" if line.cancel_requested else "running"
    if launched is not None and line.status in ("queued", "cancelled", "failed"):
        newer = line.finished_at is None or launched.launched_at > line.finished_at
        if launched.alive and newer:
            return "starting"
        if line.status == "queued" and not launched.alive:
            return "not_started"
    if line.status == "queued" and (now or utc_now()) - line.created_at > STALE_AFTER:
        return "not_started"  # queued long ago by something that never started it
    return _STORED.get(line.status, "failed")


_STORED: dict[str, RunPhase] = {
    "queued": "queued",
    "running": "running",
    "cancelled": "cancelled",
    "failed": "failed",
    "done": "done",
}
