"""A run's spend cap: set when the run is made, raised (or removed) to resume it."""

from __future__ import annotations

from sqlmodel import Session

from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.info import info_of
from scorer_runtime.store.runs import RunInfo
from scorer_runtime.store.tables import RunRecord


def set_run_cap(
    session: Session, *, run_id: int, max_cost: float | None, allow_unpriced: bool = False
) -> RunInfo:
    """Give run ``run_id`` the spend cap ``max_cost`` in dollars (None: no cap); with
    ``allow_unpriced`` the cap does not stop an unpriced model from running. A run reads
    its cap when it starts or resumes."""
    if max_cost is not None and not max_cost > 0:
        raise ConflictError("the spend cap must be an amount above $0")
    run = session.get(RunRecord, run_id)
    if run is None:
        raise not_found("run", run_id)
    run.max_cost = max_cost
    run.allow_unpriced = allow_unpriced
    session.add(run)
    session.flush()
    return info_of(RunInfo, run)
