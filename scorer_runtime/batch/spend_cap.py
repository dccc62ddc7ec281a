"""The spend cap as the run engine keeps it: the one gate every engine's examples pass.

Every example is admitted by :meth:`SpendCap.admit` before it is handed to a worker (in this
process, a worker process or a Ray actor): an admitted example holds back the worst case
its judge calls can cost until its result comes back (:meth:`SpendCap.settle`). An example is
admitted only when what was spent, plus the worst case of every example in flight, plus its
own stays within the cap; so the spend can pass the cap by no more than what the examples in
flight cost beyond their estimated worst case.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine

from scorer_runtime.costs.dataset_estimate import check_dataset_cap
from scorer_runtime.scorer import Scorer
from scorer_runtime.store.engine import read_session
from scorer_runtime.store.runs import RunInfo, get_run, run_counts


@dataclass(slots=True)
class SpendCap:
    """A cap in dollars, what was spent so far, and the worst case held for one example."""

    cap: float
    reserve: float
    """The worst-case cost of one example (raised to the costliest example seen)."""
    spent: float = 0.0
    in_flight: int = 0
    reached: bool = False
    _settled: asyncio.Event = field(default_factory=asyncio.Event)

    def fits(self) -> bool:
        """Whether one more example can start without risking the cap."""
        return self.spent + (self.in_flight + 1) * self.reserve <= self.cap

    async def admit(self) -> bool:
        """Wait until one more example fits, then hold its worst case; False (and
        :attr:`reached`) when it cannot fit even after every example in flight is back."""
        while not self.fits():
            if self.in_flight == 0:
                self.reached = True
                return False
            self._settled.clear()
            await self._settled.wait()
        self.in_flight += 1
        return True

    def settle(self, cost: float | None) -> None:
        """An admitted example is back, having cost ``cost`` (None: unpriced)."""
        self.in_flight = max(0, self.in_flight - 1)
        spent = cost or 0.0
        self.spent += spent
        self.reserve = max(self.reserve, spent)
        self._settled.set()


async def open_spend_cap(
    engine: Engine, scorer: Scorer[Any, Any], *, run_id: int
) -> SpendCap | None:
    """The spend cap of run ``run_id`` (None when it has no cap), its worst case per example
    estimated on a sample of what the run has left; raises
    :class:`~scorer_runtime.costs.cap.CapError` when the run must not start under its cap."""
    run, spent = await asyncio.to_thread(_cap_of, engine, run_id)
    if run.max_cost is None:
        return None
    estimate = await check_dataset_cap(
        engine,
        scorer,
        dataset_id=run.dataset_id,
        cap=run.max_cost,
        allow_unpriced=run.allow_unpriced,
        run_id=run_id,
        spent=spent,
    )
    reserve = estimate.example_worst_cost or 0.0
    return SpendCap(cap=run.max_cost, reserve=reserve, spent=spent)


def _cap_of(engine: Engine, run_id: int) -> tuple[RunInfo, float]:
    with read_session(engine) as session:
        run = get_run(session, run_id=run_id)
        _, _, spent = run_counts(session, run_id=run_id)
    return run, spent
