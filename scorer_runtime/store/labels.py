"""Human labels: what a person says an example deserves, to measure the judge against.

Labels are kept, never replaced: grading an example again adds a label, and the latest one
counts: the one graded last (``created_at``; an imported label keeps the time it was graded),
the highest id among labels of the same time. A label holds the grade's score value; its name
comes from the scorer's scale (:func:`scorer_runtime.trust.scale_of`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, Select, and_, func, or_
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from scorer_runtime.store.datasets import ExampleInfo
from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.info import info_of
from scorer_runtime.store.runs import check_runs
from scorer_runtime.store.tables import ExampleRecord, LabelRecord, RunRecord, ScoreRecord
from scorer_runtime.types import Outcome

_CHUNK = 500
"""Ids per ``IN (…)`` list: well under SQLite's and PostgreSQL's limits on bound values."""


@dataclass(frozen=True, slots=True)
class LabelInfo:
    """A person's label of an example for a scorer, as the store hands it out."""

    id: int
    example_id: int
    scorer_id: int
    value: float
    note: str
    labeller: str
    created_at: datetime


def add_label(
    session: Session,
    *,
    example_id: int,
    scorer_id: int,
    value: float,
    labeller: str,
    note: str = "",
    created_at: datetime | None = None,
) -> LabelInfo:
    """Record a person's label of an example for a scorer (labels are kept, never replaced).

    ``created_at`` is when it was graded (now when not given; a time without a zone is UTC),
    so an imported grade keeps its time and the latest grade of an example stays the latest.
    """
    if not math.isfinite(value):
        raise ConflictError("a label must be a finite number")
    if not labeller.strip():
        raise ConflictError("say who labelled the example (labeller)")
    if session.get(ExampleRecord, example_id) is None:
        raise not_found("example", example_id)
    record = LabelRecord(
        example_id=example_id, scorer_id=scorer_id, value=value, labeller=labeller, note=note
    )
    if created_at is not None:
        zoned = created_at if created_at.tzinfo else created_at.replace(tzinfo=UTC)
        record.created_at = zoned.astimezone(UTC)
    session.add(record)
    session.flush()
    return info_of(LabelInfo, record)


def list_labels(
    session: Session, *, scorer_id: int, example_id: int | None = None
) -> list[LabelInfo]:
    """A scorer's labels (of one example, or all), newest first (by time, then id)."""
    query = select(LabelRecord).where(LabelRecord.scorer_id == scorer_id)
    if example_id is not None:
        query = query.where(LabelRecord.example_id == example_id)
    newest_first = (col(LabelRecord.created_at).desc(), col(LabelRecord.id).desc())
    found = session.exec(query.order_by(*newest_first)).all()
    return [info_of(LabelInfo, record) for record in found]


def labels_of_examples(
    session: Session, *, scorer_id: int, example_ids: Collection[int]
) -> dict[int, list[LabelInfo]]:
    """A scorer's labels of each of ``example_ids`` that has some, newest first (by time,
    then id), by example id."""
    newest_first = (col(LabelRecord.created_at).desc(), col(LabelRecord.id).desc())
    found: dict[int, list[LabelInfo]] = {}
    for group in _chunks(example_ids):
        query = select(LabelRecord).where(
            LabelRecord.scorer_id == scorer_id, col(LabelRecord.example_id).in_(group)
        )
        for record in session.exec(query.order_by(*newest_first)).all():
            found.setdefault(record.example_id, []).append(info_of(LabelInfo, record))
    return found


def _chunks(ids: Iterable[int]) -> Iterable[list[int]]:
    unique = sorted(set(ids))
    for start in range(0, len(unique), _CHUNK):
        yield unique[start : start + _CHUNK]


def latest_label_ids(
    scorer_id: int, example_ids: Collection[int] | None = None
) -> Select[tuple[int]]:
    """A query of the ids of the latest label of each example for a scorer (of ``example_ids``,
    or of every example it has labels for): graded last, the highest id among equal times."""
    rank = (
        func.row_number()
        .over(
            partition_by=col(LabelRecord.example_id),
            order_by=(col(LabelRecord.created_at).desc(), col(LabelRecord.id).desc()),
        )
        .label("rank")
    )
    ranked = sa_select(col(LabelRecord.id).label("id"), rank).where(
        col(LabelRecord.scorer_id) == scorer_id
    )
    if example_ids is not None:
        ranked = ranked.where(col(LabelRecord.example_id).in_(example_ids))
    found = ranked.subquery()
    return sa_select(found.c.id).where(found.c.rank == 1)


def latest_labels(
    session: Session, *, scorer_id: int, example_ids: Collection[int] | None = None
) -> dict[int, LabelInfo]:
    """The latest label of each example for a scorer (of ``example_ids``, or of every example
    it has labels for), by example id."""
    if example_ids is None:
        groups: Iterable[list[int] | None] = [None]
    else:
        groups = list(_chunks(example_ids))
    found: dict[int, LabelInfo] = {}
    for group in groups:
        newest = latest_label_ids(scorer_id, group)
        records = session.exec(select(LabelRecord).where(col(LabelRecord.id).in_(newest))).all()
        found.update((r.example_id, info_of(LabelInfo, r)) for r in records)
    return found


def graded_count(session: Session, *, scorer_id: int, example_ids: Collection[int]) -> int:
    """How many of ``example_ids`` have at least one label for the scorer (for progress)."""
    total = 0
    for group in _chunks(example_ids):
        query = select(func.count(func.distinct(LabelRecord.example_id))).where(
            LabelRecord.scorer_id == scorer_id, col(LabelRecord.example_id).in_(group)
        )
        total += int(session.exec(query).one())
    return total


def existing_example_ids(session: Session, *, example_ids: Collection[int]) -> set[int]:
    """Which of ``example_ids`` are examples the store holds (a label file may name others)."""
    found: set[int] = set()
    for group in _chunks(example_ids):
        rows = session.exec(select(ExampleRecord.id).where(col(ExampleRecord.id).in_(group)))
        found.update(int(i) for i in rows if i is not None)
    return found


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """The judge's result of one example, to show beside (or after) a person's grade."""

    example_id: int
    score_id: int
    score: float | None
    outcome: Outcome
    reason: str | None


def judge_verdicts(
    session: Session,
    *,
    example_ids: Collection[int],
    scorer_version_id: int | None = None,
    run_id: int | None = None,
) -> dict[int, JudgeVerdict]:
    """The latest result of each example by one scorer version's runs (a stability check's
    repeats left out) or in one run, by example id.

    Exactly one of ``scorer_version_id`` and ``run_id`` is given; examples never scored are
    left out.
    """
    if (scorer_version_id is None) == (run_id is None):
        raise ValueError("give a scorer version or a run, not both")
    where = (
        ScoreRecord.run_id == run_id
        if run_id is not None
        else and_(col(ScoreRecord.scorer_version_id) == scorer_version_id, outside_repeats())
    )
    found: dict[int, JudgeVerdict] = {}
    for group in _chunks(example_ids):
        newest = (
            select(func.max(ScoreRecord.id))
            .where(where, col(ScoreRecord.example_id).in_(group))
            .group_by(col(ScoreRecord.example_id))
        )
        query = sa_select(
            col(ScoreRecord.id),
            col(ScoreRecord.example_id),
            col(ScoreRecord.score),
            col(ScoreRecord.outcome),
            col(ScoreRecord.reason),
        ).where(col(ScoreRecord.id).in_(newest))
        for score_id, example_id, score, outcome, reason in session.execute(query):
            if score_id is not None and example_id is not None:
                found[example_id] = JudgeVerdict(example_id, score_id, score, outcome, reason)
    return found


def outside_repeats() -> ColumnElement[bool]:
    """Scores that no stability check's repeat made: what a version's judge said of an
    example is what its runs said. A repeat asks the judge again only to see whether it
    changes its mind; it never replaces the run's verdict that agreement is measured on."""
    repeats = select(RunRecord.id).where(check_runs())  # a health check's too
    return or_(col(ScoreRecord.run_id).is_(None), col(ScoreRecord.run_id).not_in(repeats))


def review_example_ids(session: Session, *, dataset_id: int) -> list[int]:
    """The ids of a dataset's examples, in dataset order (the order people grade them in)."""
    query = select(ExampleRecord.id).where(ExampleRecord.dataset_id == dataset_id)
    return [int(i) for i in session.exec(query.order_by(col(ExampleRecord.id))) if i is not None]


def examples_by_id(session: Session, *, example_ids: Collection[int]) -> dict[int, ExampleInfo]:
    """The examples of ``example_ids`` the store holds, by id (missing ones are left out)."""
    found: dict[int, ExampleInfo] = {}
    for group in _chunks(example_ids):
        records = session.exec(select(ExampleRecord).where(col(ExampleRecord.id).in_(group)))
        found.update((int(r.id or 0), info_of(ExampleInfo, r)) for r in records)
    return found
