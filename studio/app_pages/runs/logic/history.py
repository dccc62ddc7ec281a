"""Where each run is, as the Runs page lists and follows them.

The runs themselves, with their names, counts and mean, are read by the store
(:func:`scorer_runtime.store.views.runs_page`, :func:`~scorer_runtime.store.views.run_line`).
A run's stored status says what its runner last wrote; :func:`run_phase` adds what only the
outside can see — a run marked running whose runner is gone, a queued run that no runner
serves, and a run stored before the status ``stopped`` existed that its cap stopped.
Streamlit-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from scorer_runtime.costs.cap import BUDGET_REACHED
from scorer_runtime.process import runner_is_gone
from scorer_runtime.store import STALE_AFTER, utc_now
from scorer_runtime.store.views import RunLine
from scorer_runtime.types import RUN_STATUSES
from studio.words import RUN_STATUS_LABELS

PAGE_SIZE = 10
"""Runs per page of the list (pages come from the database, newest first)."""

RunPhase = Literal[
    "queued",
    "waiting",
    "running",
    "stopping",
    "stopped",
    "cancelled",
    "failed",
    "done",
    "stalled",
]
"""Where a run is, as a person sees it (the stored status plus whether a runner serves it)."""

PHASE_LABELS: dict[RunPhase, str] = {
    **{status: RUN_STATUS_LABELS[status] for status in RUN_STATUSES},
    "waiting": "Waiting for a runner",
    "stopping": "Stopping…",
    "stalled": "Stopped unexpectedly",
}
"""Every phase in plain words (the stored statuses in the words of ``RUN_STATUS_LABELS``)."""

ACTIVE_PHASES: frozenset[RunPhase] = frozenset({"queued", "waiting", "running", "stopping"})
"""Phases in which the page follows the run live."""
RESUMABLE_PHASES: frozenset[RunPhase] = frozenset({"stopped", "cancelled", "failed", "stalled"})


def run_phase(line: RunLine, *, runner_alive: bool, now: datetime | None = None) -> RunPhase:
    """Where the run is, from its row and whether any runner serves the store right now.

    A queued run no runner serves is *waiting* (for one to start); a running run whose
    runner stopped beating or is gone *stalled* (a live runner takes it over by itself).
    """
    if line.status == "running":
        beat = line.heartbeat_at or line.started_at
        if beat is None or (now or utc_now()) - beat > STALE_AFTER or runner_is_gone(line.runner):
            return "stalled"
        return "stopping" if line.cancel_requested else "running"
    if line.status == "queued" and not runner_alive:
        return "waiting"
    if line.status == "cancelled" and (line.error or "").startswith(BUDGET_REACHED):
        return "stopped"  # stored before runs stopped by their cap had a status of their own
    return _STORED.get(line.status, "failed")


@dataclass(frozen=True)
class Mark:
    """How a run's place is marked on screen: its words, its colour, whether it is a success."""

    label: str
    color: Literal["green", "blue", "orange", "red", "gray"]
    success: bool


_COLORS: dict[RunPhase, Literal["green", "blue", "orange", "red", "gray"]] = {
    "done": "green",
    "running": "blue",
    "stopping": "blue",
    "waiting": "orange",
    "queued": "gray",
    "stopped": "orange",
    "cancelled": "orange",
    "stalled": "orange",
    "failed": "red",
}


def run_mark(line: RunLine, phase: RunPhase) -> Mark:
    """The badge of a run: a finished run is a success (green) only when no example failed;
    one with failures says how many, in orange."""
    if phase == "done" and line.failed:
        return Mark(f"Finished, {line.failed:,} failed", "orange", success=False)
    return Mark(PHASE_LABELS[phase], _COLORS[phase], success=phase == "done")


_STORED: dict[str, RunPhase] = {
    "queued": "queued",
    "running": "running",
    "stopped": "stopped",
    "cancelled": "cancelled",
    "failed": "failed",
    "done": "done",
}
