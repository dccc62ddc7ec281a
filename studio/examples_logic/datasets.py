"""Datasets for the Examples page: the overview, renaming, what archiving affects, paging.

The store has no "rename a dataset" and pages examples by keyset only; the page needs both
(a renamed dataset, and page numbers a person can jump to), so they live here until the
store offers them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session, col, select

from scorer_runtime.store import (
    ConflictError,
    DatasetRecord,
    ExampleRecord,
    RunRecord,
    ScoreRecord,
    example_counts,
    get_dataset,
    list_datasets,
    list_examples,
)
from studio.examples_logic.grid import GridRow, row_of

PAGE_SIZE = 50
"""Examples per page of the grid: enough to scan, few enough to edit comfortably."""


@dataclass(frozen=True, slots=True)
class DatasetRow:
    """One dataset as the overview lists it."""

    id: int
    name: str
    description: str
    examples: int
    created_at: datetime
    archived: bool


def dataset_rows(session: Session, *, include_archived: bool = False) -> list[DatasetRow]:
    """Every dataset with its number of examples, by name."""
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


def describe_dataset(
    session: Session, *, dataset_id: int, name: str, description: str
) -> DatasetRecord:
    """Give a dataset a new name and description; the name must be free."""
    dataset = get_dataset(session, id=dataset_id)
    name = name.strip()
    if not name:
        raise ConflictError("a dataset needs a name")
    if name != dataset.name:
        taken = session.exec(select(DatasetRecord.id).where(DatasetRecord.name == name)).first()
        if taken is not None:
            raise ConflictError(f"a dataset named {name!r} already exists; choose another name")
    dataset.name = name
    dataset.description = description.strip()
    session.add(dataset)
    session.flush()
    return dataset


@dataclass(frozen=True, slots=True)
class ArchiveImpact:
    """What archiving a dataset touches: its examples, and the runs and scores made on it."""

    examples: int
    runs: int
    scores: int

    def sentence(self, name: str) -> str:
        """The impact in words, for the confirmation."""
        hides = (
            f"Archiving “{name}” hides it and its {_plural(self.examples, 'example')} from "
            "the studio's lists."
        )
        if self.runs or self.scores:
            kept = (
                f" Nothing is deleted: its {_plural(self.runs, 'run')} and "
                f"{_plural(self.scores, 'score')} stay in the history."
            )
        else:
            kept = " Nothing is deleted, and no run has used it yet."
        return f"{hides}{kept} You can restore it at any time (Settings → Archived datasets)."


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def archive_impact(session: Session, *, dataset_id: int) -> ArchiveImpact:
    """How many examples, runs and scores belong to the dataset."""
    examples = select(func.count(col(ExampleRecord.id))).where(
        ExampleRecord.dataset_id == dataset_id
    )
    runs = select(func.count(col(RunRecord.id))).where(RunRecord.dataset_id == dataset_id)
    scores = select(func.count(col(ScoreRecord.id))).where(ScoreRecord.dataset_id == dataset_id)
    return ArchiveImpact(
        examples=int(session.exec(examples).one()),
        runs=int(session.exec(runs).one()),
        scores=int(session.exec(scores).one()),
    )


@dataclass(frozen=True, slots=True)
class ExamplePage:
    """One page of a dataset's examples, with where it sits in the whole."""

    rows: list[GridRow]
    total: int
    page: int
    pages: int
    first_number: int
    """The 1-based number of the first row on this page (0 when the dataset is empty)."""

    def label(self) -> str:
        """What the page shows, in words: 'Examples 51 to 100 of 1,234' (with a dash)."""
        if not self.rows:
            return "No examples yet"
        last = self.first_number + len(self.rows) - 1
        return f"Examples {self.first_number:,}–{last:,} of {self.total:,}"


def example_page(
    session: Session, *, dataset_id: int, page: int = 1, page_size: int = PAGE_SIZE
) -> ExamplePage:
    """Page ``page`` (1-based, clamped to the pages there are) of a dataset, read in the
    database: the page's first id is found by offset, then the store's keyset read."""
    total = int(
        session.exec(
            select(func.count(col(ExampleRecord.id))).where(ExampleRecord.dataset_id == dataset_id)
        ).one()
    )
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
    return ExamplePage(
        rows=[row_of(r) for r in records],
        total=total,
        page=page,
        pages=pages,
        first_number=skip + 1 if records else 0,
    )
