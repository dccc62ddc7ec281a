"""The judge rate ledger in the store: every runner of one store shares each judge's limit.

A runner takes slots of a judge's second (:class:`~scorer_runtime.judge.rate.RateLedger`)
in one short transaction: insert the second's row if it is new, lock it, grant what fits
(:func:`~scorer_runtime.judge.rate.plan_grant`), write the new counts. SQLite's
``BEGIN IMMEDIATE`` (see :mod:`~scorer_runtime.store.engine`) and PostgreSQL's
``SELECT … FOR UPDATE`` make two runners queue for the row, never both read the old count.
The same lease serves the processes of one machine (an SQLite file) and runners on several
machines (PostgreSQL). A runner asks a few times a second (its gate leases a quarter of a
second's slots at a time), and the first grant of each second deletes the judge's rows
older than a minute.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, delete, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col

from scorer_runtime.judge.rate import Grant, RateLimit, plan_grant
from scorer_runtime.store.engine import session_scope
from scorer_runtime.store.tables import JudgeRateWindowRecord

KEPT_WINDOWS = 60
"""Seconds of rows kept behind the newest (older ones can no longer be granted)."""


class StoreRateLedger:
    """Judge rate windows counted in the store ``engine`` points at."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def take(
        self, key: str, window: int, limit: RateLimit, tokens: Sequence[int], debt: int = 0
    ) -> Grant:
        """Grant what fits of ``tokens``' requests in ``window`` (see ``RateLedger``)."""
        budgets = limit.budgets(window)
        with session_scope(self.engine) as session:
            _insert_missing(session, key, window)
            where = (
                col(JudgeRateWindowRecord.limit_key) == key,
                col(JudgeRateWindowRecord.unix_second) == window,
            )
            query = select(col(JudgeRateWindowRecord.requests), col(JudgeRateWindowRecord.tokens))
            used, spent = session.execute(query.where(*where).with_for_update()).one()
            spent = max(0, int(spent) + debt)
            count = plan_grant(int(used), spent, budgets, tokens)
            values = {"requests": int(used) + count, "tokens": spent + sum(tokens[:count])}
            session.execute(update(JudgeRateWindowRecord).where(*where).values(**values))
            if used == 0:
                _forget_old(session, key, window)
        return Grant(window, int(used), count, spent, *budgets)


_LEDGERS: weakref.WeakKeyDictionary[Engine, StoreRateLedger] = weakref.WeakKeyDictionary()


def ledger_for(engine: Engine) -> StoreRateLedger:
    """The ledger of ``engine``'s store, one per engine: the runs of one process share its
    judges' gates (a pause after a 429 holds all of them)."""
    found = _LEDGERS.get(engine)
    if found is None:
        found = _LEDGERS[engine] = StoreRateLedger(engine)
    return found


def _insert_missing(session: Session, key: str, window: int) -> None:
    row = {"limit_key": key, "unix_second": window, "requests": 0, "tokens": 0}
    table = JudgeRateWindowRecord.__table__  # type: ignore[attr-defined]
    dialect = session.get_bind().dialect.name
    statement: Any
    if dialect == "sqlite":
        statement = sqlite_insert(table).on_conflict_do_nothing()
    elif dialect == "postgresql":
        statement = pg_insert(table).on_conflict_do_nothing()
    else:  # pragma: no cover - the store runs on SQLite and PostgreSQL only
        statement = insert(table)
    session.execute(statement, [row])


def _forget_old(session: Session, key: str, window: int) -> None:
    session.execute(
        delete(JudgeRateWindowRecord).where(
            col(JudgeRateWindowRecord.limit_key) == key,
            col(JudgeRateWindowRecord.unix_second) < window - KEPT_WINDOWS,
        )
    )
