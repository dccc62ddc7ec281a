"""A capped run's spend reservations: what its examples on their way to the judge may cost.

Before an example of a capped run is handed to a worker, its runner sets its worst-case cost
aside here (:func:`reserve_spend`) in one transaction with the cap check: the run's row is
locked (SQLite's ``BEGIN IMMEDIATE``, see :mod:`~scorer_runtime.store.engine`; PostgreSQL's
``SELECT … FOR UPDATE``), so two runners never both pass the cap on the same old sum. The
commit that stores the example's result deletes its reservation (:func:`settle_spend`): the
result's actual cost, in the run's ``cost``, counts instead.

A reservation left behind is an example whose answers may have been paid for and were lost
when its runner stopped (``kill -9``, a crash, a cancel with calls in flight). It is never
deleted: the run counts it as spent, at its worst case, for good (:func:`lost_spend`), so
the cap holds whenever the runner dies.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import delete, func, select, update
from sqlmodel import Session, col

from scorer_runtime.store.errors import not_found
from scorer_runtime.store.tables import RunRecord, SpendReservationRecord

_ROUNDING = 1e-12
"""Dollars a sum of floats may lie above the cap and still fit (0.1 + 0.2 > 0.3)."""


@dataclass(frozen=True, slots=True)
class ReservedSpend:
    """Reservations of a run: how many, and the dollars they hold at worst."""

    answers: int = 0
    cost: float = 0.0


def reserve_spend(
    session: Session, *, run_id: int, runner_token: str, example_id: int, amount: float
) -> bool:
    """Set ``amount`` dollars aside for example ``example_id`` of run ``run_id`` when what the
    run has spent (its stored results' cost), what is set aside already and ``amount``
    together stay within the run's cap; False (nothing written) when they would pass it."""
    query = select(col(RunRecord.max_cost), col(RunRecord.cost)).where(col(RunRecord.id) == run_id)
    row = session.execute(query.with_for_update()).one_or_none()
    if row is None:
        raise not_found("run", run_id)
    cap, spent = row
    if cap is not None:
        held = session.execute(
            select(func.coalesce(func.sum(SpendReservationRecord.amount), 0.0)).where(
                col(SpendReservationRecord.run_id) == run_id
            )
        ).scalar_one()
        if float(spent) + float(held) + amount > cap + _ROUNDING:
            return False
    reservation = SpendReservationRecord(
        run_id=run_id, runner_token=runner_token, example_id=example_id, amount=amount
    )
    session.add(reservation)
    session.flush()
    return True


def settle_spend(
    session: Session, *, run_id: int, runner_token: str, example_ids: Collection[int]
) -> None:
    """Give back what ``runner_token`` set aside for ``example_ids``: call it in the
    transaction that stores their results (their actual cost counts from then on)."""
    if not example_ids:
        return
    session.execute(
        delete(SpendReservationRecord).where(
            col(SpendReservationRecord.run_id) == run_id,
            col(SpendReservationRecord.runner_token) == runner_token,
            col(SpendReservationRecord.example_id).in_(list(example_ids)),
        )
    )


def mark_lost(session: Session, *, run_id: int) -> None:
    """Mark every reservation of run ``run_id`` lost: its runner is gone (a run resumes, or
    ends with examples in flight), so no result will ever settle them."""
    session.execute(
        update(SpendReservationRecord)
        .where(col(SpendReservationRecord.run_id) == run_id)
        .values(lost=True)
    )


def held_spend(session: Session, *, run_id: int, lost_only: bool = False) -> ReservedSpend:
    """What run ``run_id`` holds set aside (only what is lost, with ``lost_only``)."""
    query = select(func.count(), func.coalesce(func.sum(SpendReservationRecord.amount), 0.0)).where(
        col(SpendReservationRecord.run_id) == run_id
    )
    if lost_only:
        query = query.where(col(SpendReservationRecord.lost))
    answers, cost = session.execute(query).one()
    return ReservedSpend(int(answers), float(cost))


def lost_spend(session: Session, *, run_id: int) -> ReservedSpend:
    """What run ``run_id`` counts as spent for answers lost when a runner of it stopped."""
    return held_spend(session, run_id=run_id, lost_only=True)
