"""Bulk insert of score rows on SQLite: each value bound once, then the driver's executemany.

Profiled at a million rows, SQLAlchemy's executemany spent more time building a parameter
dict per row and dispatching each column's bind processor than SQLite spent inserting.
Here the statement is compiled once per dialect, and every row becomes a tuple in one pass
through the *same* bind processors SQLAlchemy would run (JSON text, timestamps in SQLite's
storage format, floats), so the stored bytes are exactly those of the generic path; a test
compares the two. PostgreSQL keeps the generic path (its driver batches on its own).

A big batch is converted with the cyclic garbage collector paused: the conversion makes
tuples and strings by the hundred thousand, none of which can form a cycle, yet each few
hundred allocations made the collector walk every live object of the process (profiled:
40% of the insert time at a million rows).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import lru_cache
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection, Dialect
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from scorer_runtime.store.tables import ScoreRecord

_Processor = Callable[[Any], Any]


class _Plan:
    """The compiled INSERT of one dialect, and how to turn a row dict into its parameters."""

    def __init__(self, dialect: Dialect, columns: tuple[str, ...]) -> None:
        table = ScoreRecord.__table__  # type: ignore[attr-defined]
        # Any unique key: (run, example), and an evaluation event's key.
        statement = sqlite_insert(table).on_conflict_do_nothing()
        compiled = statement.compile(dialect=dialect, column_keys=list(columns))
        order = tuple(compiled.positiontup or ())
        if sorted(order) != sorted(columns):  # every column bound once, by position
            raise RuntimeError(f"unexpected parameters in the scores INSERT: {order}")
        self.sql = str(compiled)
        self.values = itemgetter(*order)
        self.processors: list[tuple[int, _Processor, bool]] = []
        for index, name in enumerate(order):
            column_type = table.c[name].type
            processor = column_type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                by_value = column_type.python_type is datetime
                self.processors.append((index, processor, by_value))

    def parameters(self, rows: Sequence[dict[str, Any]]) -> list[tuple[Any, ...]]:
        """The positional parameters of ``rows``, each value through its bind processor."""
        # Column by column: map() and zip() loop in C, which per-row code cannot match.
        columns: list[Any] = list(zip(*map(self.values, rows), strict=True))
        for index, processor, by_value in self.processors:
            columns[index] = _processed(processor, columns[index], by_value=by_value)
        return list(zip(*columns, strict=True))


def _processed(processor: _Processor, values: tuple[Any, ...], *, by_value: bool) -> list[Any]:
    if by_value:
        # Timestamps repeat (a batch shares its default created_at): process each distinct
        # one once. Equal datetimes are the same instant, so they give the same text.
        distinct = set(values)
        if len(distinct) < len(values):
            done = {value: processor(value) for value in distinct}
            return list(map(done.__getitem__, values))
    return list(map(processor, values))


@lru_cache(maxsize=8)
def _plan(dialect: Dialect, columns: tuple[str, ...]) -> _Plan:
    return _Plan(dialect, columns)


def insert_scores_sqlite(
    connection: Connection, rows: Sequence[dict[str, Any]], columns: tuple[str, ...]
) -> None:
    """Insert complete score rows (every column in ``columns`` present) on SQLite.

    A row for a (run, example) pair that already has a score is ignored, and so is an
    evaluation event already stored (same ``event_key``).
    """
    plan = _plan(connection.dialect, columns)
    connection.exec_driver_sql(plan.sql, plan.parameters(rows))


@contextmanager
def gc_paused(pause: bool = True) -> Iterator[None]:
    """Cyclic garbage collection off inside the block (when ``pause``), as it was after.

    For bulk conversions of acyclic data only; reference counting still frees everything.
    """
    if not pause or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
