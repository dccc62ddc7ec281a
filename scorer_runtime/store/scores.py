"""Stored scores: bulk insert (insert-or-ignore per run and example) and history pages.

History is newest first and paginated by keyset — ``(created_at, id)`` of the last row seen —
so page 1,000 costs what page 1 does.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, insert, or_, tuple_
from sqlmodel import Session, col, select

from scorer_runtime.secrets import environment_secrets, redact, redact_evidence
from scorer_runtime.store.bulk import gc_paused, insert_scores_sqlite
from scorer_runtime.store.errors import not_found
from scorer_runtime.store.info import info_of
from scorer_runtime.store.runs import check_runs
from scorer_runtime.store.tables import RunRecord, ScoreRecord, utc_now
from scorer_runtime.types import OUTCOMES, Outcome

_COLUMNS = tuple(c.name for c in ScoreRecord.__table__.columns if c.name != "id")  # type: ignore[attr-defined]
_COLUMN_SET = frozenset(_COLUMNS)
_DEFAULTS: dict[str, Any] = {
    "attempts": 0,
    "input_tokens": 0,
    "output_tokens": 0,
    "total_tokens": 0,
}


@dataclass(frozen=True, slots=True)
class ScoreFilter:
    """Which scores a history page or an aggregate covers; unset fields do not filter.

    ``since`` is inclusive, ``until`` exclusive (both timezone-aware).
    """

    scorer_id: int | None = None
    scorer_version_id: int | None = None
    dataset_id: int | None = None
    run_id: int | None = None
    outcomes: tuple[str, ...] | None = None
    trace_ids: tuple[str, ...] | None = None
    """Scores of these traces only (trace scores have no run, example or dataset)."""
    since: datetime | None = None
    until: datetime | None = None
    repeats: bool = True
    """Whether the scores of stability checks' repeat runs count. The Results page leaves
    them out: a repeat scores a check's sample again, so it belongs to the check, not to the
    runs people started."""

    def clauses(self) -> list[ColumnElement[bool]]:
        """The WHERE clauses of this filter."""
        out: list[ColumnElement[bool]] = []
        if not self.repeats:
            out.append(no_repeat_scores())
        for name in ("scorer_id", "scorer_version_id", "dataset_id", "run_id"):
            value = getattr(self, name)
            if value is not None:
                out.append(getattr(ScoreRecord, name) == value)
        if self.outcomes is not None:
            out.append(col(ScoreRecord.outcome).in_(self.outcomes))
        if self.trace_ids is not None:
            out.append(col(ScoreRecord.trace_id).in_(self.trace_ids))
        if self.since is not None:
            out.append(col(ScoreRecord.created_at) >= self.since)
        if self.until is not None:
            out.append(col(ScoreRecord.created_at) < self.until)
        return out


def no_repeat_scores() -> ColumnElement[bool]:
    """Scores outside every trust check's runs (stability repeats, health check runs; trace
    scores, which have no run, included). Those are few runs, so the list of their ids is read
    once per query."""
    repeat_runs = select(RunRecord.id).where(check_runs())
    return or_(col(ScoreRecord.run_id).is_(None), col(ScoreRecord.run_id).not_in(repeat_runs))


def _normalise(row: Mapping[str, Any], template: dict[str, Any]) -> dict[str, Any]:
    # Runs once per row of a bulk insert: kept to a dict merge and three checks.
    if not _COLUMN_SET.issuperset(row):
        unknown = sorted(set(row) - _COLUMN_SET)
        raise ValueError(f"scores have no column {', '.join(unknown)}")
    out = {**template, **row}
    if out["created_at"] is None:
        out["created_at"] = template["created_at"]
    outcome, score = out["outcome"], out["score"]
    if outcome == "scored":
        if score is None or not math.isfinite(score):
            raise ValueError("a score with outcome 'scored' needs a finite score")
    elif outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, not {outcome!r}")
    elif score is not None:
        raise ValueError(f"a score with outcome {outcome!r} must have no score")
    return out


def add_scores(session: Session, *, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert score rows in bulk (one statement, executemany).

    A row for a (run, example) pair that already has a score is ignored, on SQLite and
    PostgreSQL alike, so a resumed or doubled run never stores an example twice; so is a row
    whose ``event_key`` is stored (an evaluation event delivered twice). Errors and
    the judge's texts in the evidence are redacted on the way in (key-shaped text, and the
    values of the process's ``*_KEY``/``*_TOKEN`` variables), whoever made the rows.
    """
    if not rows:
        return
    connection = session.connection()
    template = {name: _DEFAULTS.get(name) for name in _COLUMNS}
    template["created_at"] = utc_now()
    secrets = environment_secrets()
    with gc_paused(len(rows) >= 1000):
        values = [_redacted(_normalise(row, template), secrets) for row in rows]
        _insert(connection, values)


def _redacted(row: dict[str, Any], secrets: tuple[str, ...]) -> dict[str, Any]:
    # Runs once per row: a row without an error or evidence costs two lookups.
    if row["error"]:
        row["error"] = redact(row["error"], secrets)
    if row["judge"]:
        row["judge"] = redact_evidence(row["judge"], secrets)
    return row


def _insert(connection: Connection, values: list[dict[str, Any]]) -> None:
    dialect = connection.dialect.name
    if dialect == "sqlite":
        insert_scores_sqlite(connection, values, _COLUMNS)
        return
    # The Core table, not the ORM class: the ORM's bulk path is ~2.5x slower here.
    table = ScoreRecord.__table__  # type: ignore[attr-defined]
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        # Any unique key: (run, example), and an evaluation event's key.
        stmt: Any = pg_insert(table).on_conflict_do_nothing()
    else:  # other databases: duplicates fail loudly on the unique constraint
        stmt = insert(table)
    connection.execute(stmt, values)


@dataclass(frozen=True, slots=True)
class ScoreRow:
    """A score as a history table shows it (without the large JSON evidence)."""

    id: int
    created_at: datetime
    scorer_id: int
    scorer_version_id: int
    run_id: int | None
    example_id: int | None
    dataset_id: int | None
    trace_id: str | None
    span_id: str | None
    score: float | None
    outcome: Outcome
    reason: str | None
    error: str | None
    latency_ms: float | None
    total_tokens: int
    cost: float | None
    label: str | None = None
    """A verdict in words (an external score's label)."""


_ROW_COLUMNS = tuple(f for f in ScoreRow.__dataclass_fields__)


@dataclass(frozen=True, slots=True)
class ScorePage:
    """One page of history and the cursor for the next (None on the last page)."""

    rows: list[ScoreRow] = field(default_factory=list)
    next_cursor: tuple[datetime, int] | None = None


def list_scores(
    session: Session,
    *,
    filter: ScoreFilter | None = None,
    after: tuple[datetime, int] | None = None,
    limit: int = 50,
) -> ScorePage:
    """Scores newest first; pass a page's ``next_cursor`` as ``after`` for the next page."""
    created, ident = col(ScoreRecord.created_at), col(ScoreRecord.id)
    clauses = (filter or ScoreFilter()).clauses()
    if after is not None:
        at, last_id = after
        # A row-value comparison, so the (…, created_at) index serves it as a range.
        clauses.append(tuple_(created, ident) < tuple_(at, last_id))
    query = (
        select(*(getattr(ScoreRecord, name) for name in _ROW_COLUMNS))
        .where(*clauses)
        .order_by(created.desc(), ident.desc())
        .limit(limit + 1)
    )
    rows = [ScoreRow(*row) for row in session.exec(query).all()]
    page, more = rows[:limit], len(rows) > limit
    return ScorePage(page, (page[-1].created_at, page[-1].id) if more and page else None)


def iter_score_rows(
    session: Session,
    *,
    filter: ScoreFilter | None = None,
    cap: int | None = None,
    page_size: int = 2_000,
) -> Iterator[ScoreRow]:
    """The filtered scores newest first (the history's order), at most ``cap`` of them (None:
    all), for a download.

    One query, fetched ``page_size`` rows at a time from its cursor: the database sorts once,
    where keyset pages would sort again for every page of a large export.
    """
    created, ident = col(ScoreRecord.created_at), col(ScoreRecord.id)
    query = (
        select(*(getattr(ScoreRecord, name) for name in _ROW_COLUMNS))
        .where(*(filter or ScoreFilter()).clauses())
        .order_by(created.desc(), ident.desc())
        .limit(cap)
        .execution_options(yield_per=page_size)
    )
    for values in session.execute(query):
        yield ScoreRow(*values)


@dataclass(frozen=True, slots=True)
class ScoreInfo:
    """One stored score with all its evidence, as the store hands it out (see
    :class:`~scorer_runtime.store.tables.ScoreRecord` for what each field means)."""

    id: int
    run_id: int | None
    example_id: int | None
    scorer_id: int
    scorer_version_id: int
    dataset_id: int | None
    trace_id: str | None
    span_id: str | None
    score: float | None
    outcome: Outcome
    reason: str | None
    error: str | None
    failed_step: str | None
    step_results: dict[str, Any] | None
    prompts: dict[str, Any] | None
    judge: dict[str, Any] | None
    attempts: int
    latency_ms: float | None
    input_tokens: int
    output_tokens: int
    total_tokens: int
    cost: float | None
    created_at: datetime
    label: str | None = None
    """A verdict in words another tool sent (external scores)."""
    event_key: str | None = None
    """Set only on a score another tool sent (an evaluation event's identity)."""

    def json_data(self) -> dict[str, Any]:
        """Every field as JSON-ready data (timestamps as ISO text), as a drill-down reads it."""
        from pydantic import TypeAdapter

        data: dict[str, Any] = TypeAdapter(ScoreInfo).dump_python(self, mode="json")
        return data


def get_score(session: Session, *, score_id: int) -> ScoreInfo:
    """One score with all its evidence (step results, prompts, judge executions)."""
    found = session.get(ScoreRecord, score_id)
    if found is None:
        raise not_found("score", score_id)
    return info_of(ScoreInfo, found)
