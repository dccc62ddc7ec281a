"""Reads behind the Examples page: datasets with their example counts, what belongs to a
dataset, numbered pages of examples, and which examples have scores."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session, col, select

from scorer_runtime.store.datasets import (
    ExampleInfo,
    count_examples,
    example_counts,
    list_datasets,
    list_examples,
)
from scorer_runtime.store.tables import ExampleRecord, RunRecord, ScoreRecord


@dataclass(frozen=True, slots=True)
class DatasetRow:
    """A dataset as an overview lists it: its record's plain fields and how many examples
    it has (read without loading the examples)."""

    id: int
    name: str
    description: str
    examples: int
    created_at: datetime
    archived: bool


def dataset_rows(session: Session, *, include_archived: bool = False) -> list[DatasetRow]:
    """Every dataset with its number of examples, by name (archived ones too when asked);
    two statements whatever the number of datasets."""
    counts = example_counts(session)
    return [
        DatasetRow(
            id=int(record.id or 0),
            name=record.name,
            description=record.description,
            examples=counts.get(int(record.id or 0), 0),
            created_at=record.created_at,
            archived=record.archived_at is not None,
        )
        for record in list_datasets(session, include_archived=include_archived)
    ]


@dataclass(frozen=True, slots=True)
class DatasetUsage:
    """What belongs to a dataset: its examples, and the runs and scores made on it (what
    archiving it hides, and what keeps it in the history)."""

    examples: int
    runs: int
    scores: int


def dataset_usage(session: Session, *, dataset_id: int) -> DatasetUsage:
    """How many examples, runs and scores belong to the dataset (three counts)."""
    examples = select(func.count(col(ExampleRecord.id))).where(
        ExampleRecord.dataset_id == dataset_id
    )
    runs = select(func.count(col(RunRecord.id))).where(RunRecord.dataset_id == dataset_id)
    scores = select(func.count(col(ScoreRecord.id))).where(ScoreRecord.dataset_id == dataset_id)
    return DatasetUsage(
        examples=int(session.exec(examples).one()),
        runs=int(session.exec(runs).one()),
        scores=int(session.exec(scores).one()),
    )


@dataclass(frozen=True, slots=True)
class NumberedExamplePage:
    """One page of a dataset's examples picked by its number, with where it sits in the
    whole (for lists a person jumps around in, where a keyset cursor is not enough)."""

    examples: list[ExampleInfo]
    total: int
    """Examples in the dataset."""
    page: int
    """The page shown, 1-based (the one asked for, clamped to the pages there are)."""
    pages: int
    """How many pages there are (at least 1, also for an empty dataset)."""
    first_number: int
    """The 1-based number of the first example on this page (0 when the page is empty)."""


def numbered_example_page(
    session: Session, *, dataset_id: int, page: int, page_size: int
) -> NumberedExamplePage:
    """Page ``page`` (1-based, clamped to the pages there are) of a dataset, read in the
    database: a count, the page's first id found by offset, then the keyset read of
    :func:`list_examples` (an offset scan of ids only, never of whole rows)."""
    total = count_examples(session, dataset_id=dataset_id)
    pages = max(1, math.ceil(total / page_size))
    page = min(max(1, page), pages)
    skip = (page - 1) * page_size
    after: int | None = None
    if skip:
        after = session.exec(
            select(ExampleRecord.id)
            .where(ExampleRecord.dataset_id == dataset_id)
            .order_by(col(ExampleRecord.id))
            .offset(skip - 1)
            .limit(1)
        ).first()
    records = list_examples(session, dataset_id=dataset_id, after_id=after, limit=page_size)
    return NumberedExamplePage(
        examples=list(records),
        total=total,
        page=page,
        pages=pages,
        first_number=skip + 1 if records else 0,
    )


def example_score_counts(session: Session, *, example_ids: Sequence[int]) -> dict[int, int]:
    """How many stored scores each of these examples has (examples without any are left
    out): an example with scores cannot be deleted, since the scores point at it."""
    if not example_ids:
        return {}
    query = (
        select(ScoreRecord.example_id, func.count(col(ScoreRecord.id)))
        .where(col(ScoreRecord.example_id).in_(example_ids))
        .group_by(col(ScoreRecord.example_id))
    )
    return {int(example_id or 0): int(n) for example_id, n in session.exec(query).all()}
