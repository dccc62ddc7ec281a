"""The judge answer cache in the store: look-ups for a run, writes with its scores, stats, clears.

A run looks answers up through a :class:`StoreAnswerCache`: the answers its scorer stored
are read in one query the first time (up to :data:`PREFETCH_LIMIT`, newest first), with the
set of every key in the table (keys only, while there are at most :data:`KEY_SET_LIMIT`), so
a repeated run asks the database once, not once per judge step, and a first run's misses ask
it nothing. Only a key in that set but not among the scorer's answers (another scorer's, or
an older one), or any key when the table is bigger than the bound, is read by its own query.
New answers are written by the run's result writer in the same commit as its scores
(:func:`store_answers`): insert-or-ignore, so two runs writing the same key at once both
succeed and the first answer stays.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, delete, func, insert, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col

from scorer_runtime.judge.cache import CachedAnswer
from scorer_runtime.results import Usage
from scorer_runtime.store.engine import read_session
from scorer_runtime.store.tables import JudgeAnswerRecord, utc_now

_log = logging.getLogger(__name__)

PREFETCH_LIMIT = 50_000
"""Answers of the run's scorer read at once; older ones are looked up one by one."""

KEY_SET_LIMIT = 200_000
"""Keys of the whole table read at once (about 20 MB at most): a key not among them is a
miss without a query. A bigger table is asked about each key its scorer's answers lack."""

_ROW = (
    col(JudgeAnswerRecord.key),
    col(JudgeAnswerRecord.answer),
    col(JudgeAnswerRecord.cost),
    col(JudgeAnswerRecord.input_tokens),
    col(JudgeAnswerRecord.output_tokens),
    col(JudgeAnswerRecord.total_tokens),
)


def _answer(row: Sequence[Any]) -> CachedAnswer | None:
    """A stored row as an answer; None (logged) when the row is unreadable."""
    _key, text, cost, input_tokens, output_tokens, total_tokens = row
    if not isinstance(text, str):
        _log.warning("The stored judge answer %s is not text; it is ignored.", _key)
        return None
    usage = Usage(int(input_tokens or 0), int(output_tokens or 0), int(total_tokens or 0))
    return CachedAnswer(text=text, cost=None if cost is None else float(cost), usage=usage)


class StoreAnswerCache:
    """The answers kept in the store, as a run's judge steps look them up.

    Used from one event loop: look-ups are short reads on the loop's thread.
    """

    def __init__(self, engine: Engine, *, scorer_id: int | None) -> None:
        self.engine = engine
        self.scorer_id = scorer_id
        self._known: dict[str, CachedAnswer | None] | None = None
        self._keys: set[str] | None = None
        """Every key in the table when it was read (None: more than KEY_SET_LIMIT)."""

    def _prefetch(self) -> dict[str, CachedAnswer | None]:
        with read_session(self.engine) as session:
            known = _scorer_rows(session, self.scorer_id)
            self._keys = _all_keys(session, known)
        return known

    def preload(self) -> None:
        """Read the scorer's answers now (off the event loop), not at the first look-up."""
        if self._known is None:
            self._known = self._prefetch()

    def get(self, key: str) -> CachedAnswer | None:
        """The stored answer for ``key``, or None."""
        if self._known is None:
            self._known = self._prefetch()
        if key in self._known:
            return self._known[key]
        if self._keys is not None and key not in self._keys:
            return None  # not in the table when the run started: a miss, no query
        with read_session(self.engine) as session:
            return read_answer(session, key)


def scorer_answers(engine: Engine, *, scorer_id: int | None) -> dict[str, CachedAnswer]:
    """The scorer's readable stored answers, read in one query as a run's look-ups prefetch
    them (for scoring processes that cannot reach the store, such as Ray actors)."""
    with read_session(engine) as session:
        known = _scorer_rows(session, scorer_id)
    return {key: answer for key, answer in known.items() if answer is not None}


def _scorer_rows(session: Session, scorer_id: int | None) -> dict[str, CachedAnswer | None]:
    """The scorer's newest :data:`PREFETCH_LIMIT` answers by key (None: unreadable)."""
    if scorer_id is None:
        return {}
    query = (
        select(*_ROW)
        .where(col(JudgeAnswerRecord.scorer_id) == scorer_id)
        .order_by(col(JudgeAnswerRecord.created_at).desc())
        .limit(PREFETCH_LIMIT)
    )
    return {row[0]: _answer(row) for row in session.execute(query).all()}


def _all_keys(session: Session, known: Mapping[str, object]) -> set[str] | None:
    """Every key in the table, or None when there are more than :data:`KEY_SET_LIMIT`."""
    count = session.execute(select(func.count()).select_from(JudgeAnswerRecord)).scalar_one()
    if count <= len(known):  # the scorer's answers are the whole table
        return set(known)
    if count > KEY_SET_LIMIT:
        return None
    query = select(col(JudgeAnswerRecord.key)).limit(KEY_SET_LIMIT + 1)
    keys = set(session.execute(query).scalars().all())
    return keys if len(keys) <= KEY_SET_LIMIT else None


def read_answer(session: Session, key: str) -> CachedAnswer | None:
    """The stored answer for ``key`` read in ``session`` (for callers that look up a few
    keys on one connection, e.g. the cost estimate), or None."""
    row = session.execute(select(*_ROW).where(col(JudgeAnswerRecord.key) == key)).first()
    return None if row is None else _answer(row)


def newest_answer_at(session: Session, *, scorer_id: int) -> datetime | None:
    """When the scorer's newest judge answer was stored (None: none yet): an estimate made
    before it no longer knows every cached answer."""
    query = select(func.max(JudgeAnswerRecord.created_at)).where(
        col(JudgeAnswerRecord.scorer_id) == scorer_id
    )
    newest: datetime | None = session.execute(query).scalar_one()
    return newest


def store_answers(session: Session, *, rows: Sequence[Mapping[str, Any]]) -> None:
    """Keep judge answers (``JudgeAnswerRecord`` fields); a key already stored is left as
    it is (insert-or-ignore on SQLite and PostgreSQL), so concurrent runs never collide."""
    if not rows:
        return
    now = utc_now()
    unique = list({row["key"]: {"created_at": now, **row} for row in rows}.values())
    table = JudgeAnswerRecord.__table__  # type: ignore[attr-defined]
    dialect = session.connection().dialect.name
    if dialect == "sqlite":
        statement: Any = sqlite_insert(table).on_conflict_do_nothing(index_elements=["key"])
    elif dialect == "postgresql":
        statement = pg_insert(table).on_conflict_do_nothing(index_elements=["key"])
    else:  # pragma: no cover - the store runs on SQLite and PostgreSQL only
        statement = insert(table)
    session.execute(statement, unique)


@dataclass(frozen=True, slots=True)
class CacheStats:
    """What the judge answer cache holds (for one scorer, or all)."""

    answers: int
    cost: float
    """What the stored answers cost when first asked (known prices only)."""
    oldest: datetime | None
    newest: datetime | None


def _clauses(scorer_id: int | None, before: datetime | None) -> list[Any]:
    out: list[Any] = []
    if scorer_id is not None:
        out.append(col(JudgeAnswerRecord.scorer_id) == scorer_id)
    if before is not None:
        out.append(col(JudgeAnswerRecord.created_at) < before)
    return out


def cache_stats(session: Session, *, scorer_id: int | None = None) -> CacheStats:
    """How many answers the cache holds, what they cost, and their age span."""
    query = select(
        func.count(),
        func.coalesce(func.sum(col(JudgeAnswerRecord.cost)), 0.0),
        func.min(JudgeAnswerRecord.created_at),
        func.max(JudgeAnswerRecord.created_at),
    ).where(*_clauses(scorer_id, None))
    count, cost, oldest, newest = session.execute(query).one()
    return CacheStats(int(count), float(cost), oldest, newest)


def clear_answers(
    session: Session, *, scorer_id: int | None = None, before: datetime | None = None
) -> int:
    """Forget cached answers (of one scorer, stored before a time, or all); how many."""
    result: Any = session.execute(delete(JudgeAnswerRecord).where(*_clauses(scorer_id, before)))
    return int(result.rowcount or 0)
