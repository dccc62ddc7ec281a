"""The spend cap as the run engine keeps it: the one gate every engine's examples pass.

Every example is admitted by :meth:`SpendCap.admit` before it is handed to a worker (in this
process, a worker process or a Ray actor): admitting it sets the worst case its judge calls
can cost aside in the store (:mod:`~scorer_runtime.store.reservations`), in one transaction
with the cap check; the commit that stores its result gives that back and counts the actual
cost instead (the writer calls :meth:`SpendCap.settled` after it). An example is admitted
only when what was spent, plus the worst case of every example set aside, plus its own stays
within the cap. What a runner set aside and never stored (it was killed with answers on
their way) stays counted as spent when the run resumes, so the cap holds through crashes:
the spend can pass it by no more than what examples cost beyond their estimated worst case.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine

from scorer_runtime.costs.cap import lost_words
from scorer_runtime.costs.dataset_estimate import check_dataset_cap
from scorer_runtime.scorer import Scorer
from scorer_runtime.store.engine import read_session, session_scope
from scorer_runtime.store.reservations import ReservedSpend, held_spend, reserve_spend
from scorer_runtime.store.runs import RunInfo, get_run, run_counts


@dataclass(slots=True)
class SpendCap:
    """The cap of run ``run_id`` in dollars, what was spent so far, and the worst case set
    aside for one example; reservations are kept in the store ``engine`` points at."""

    engine: Engine
    run_id: int
    cap: float
    reserve: float
    """The worst-case cost of one example (raised to the costliest example seen)."""
    spent: float = 0.0
    """Stored results' cost, plus what earlier runners set aside and lost."""
    lost: ReservedSpend = field(default_factory=ReservedSpend)
    """What earlier runners of the run set aside and never stored (counted in ``spent``)."""
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    """This runner's name on its reservations."""
    in_flight: int = 0
    """Examples this runner set aside and has not stored yet."""
    reached: bool = False
    _settled: asyncio.Event = field(default_factory=asyncio.Event)

    async def admit(self, example_id: int) -> bool:
        """Wait until example ``example_id`` fits, then set its worst case aside; False (and
        :attr:`reached`) when it cannot fit even after every example in flight is stored."""
        while True:
            self._settled.clear()  # before the check: a result stored meanwhile wakes us
            if await asyncio.to_thread(self._reserve, example_id):
                self.in_flight += 1
                return True
            if self.in_flight == 0:
                self.reached = True
                return False
            await self._settled.wait()

    def settled(self, costs: Iterable[float | None]) -> None:
        """Results of admitted examples were stored, having cost ``costs`` (None: unpriced)
        each; the store gave their reservations back in the same commit."""
        for cost in costs:
            self.in_flight = max(0, self.in_flight - 1)
            spent = cost or 0.0
            self.spent += spent
            self.reserve = max(self.reserve, spent)
        self._settled.set()

    def lost_words(self) -> str:
        """What of :attr:`spent` is answers lost when an earlier runner stopped, in words."""
        return lost_words(self.lost.answers, self.lost.cost)

    def _reserve(self, example_id: int) -> bool:
        with session_scope(self.engine) as session:
            return reserve_spend(
                session,
                run_id=self.run_id,
                runner_token=self.token,
                example_id=example_id,
                amount=self.reserve,
            )


async def open_spend_cap(
    engine: Engine, scorer: Scorer[Any, Any], *, run_id: int
) -> SpendCap | None:
    """The spend cap of run ``run_id`` (None when it has no cap), its worst case per example
    estimated on a sample of what the run has left; raises
    :class:`~scorer_runtime.costs.cap.CapError` when the run must not start under its cap.
    Call it before the run is marked running: every reservation the run holds then is an
    earlier runner's, lost, and counts as spent."""
    run, spent, lost = await asyncio.to_thread(_cap_of, engine, run_id)
    if run.max_cost is None:
        return None
    estimate = await check_dataset_cap(
        engine,
        scorer,
        dataset_id=run.dataset_id,
        cap=run.max_cost,
        allow_unpriced=run.allow_unpriced,
        run_id=run_id,
        spent=spent + lost.cost,
    )
    reserve = estimate.example_worst_cost or 0.0
    return SpendCap(
        engine, run_id, cap=run.max_cost, reserve=reserve, spent=spent + lost.cost, lost=lost
    )


def _cap_of(engine: Engine, run_id: int) -> tuple[RunInfo, float, ReservedSpend]:
    with read_session(engine) as session:
        run = get_run(session, run_id=run_id)
        _, _, spent = run_counts(session, run_id=run_id)
        lost = held_spend(session, run_id=run_id)
    return run, spent, lost
