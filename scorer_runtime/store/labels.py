"""Human labels: what a person says an example deserves, to measure the judge against."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.info import info_of
from scorer_runtime.store.tables import ExampleRecord, LabelRecord


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
) -> LabelInfo:
    """Record a person's label of an example for a scorer (labels are kept, never replaced)."""
    if not math.isfinite(value):
        raise ConflictError("a label must be a finite number")
    if not labeller.strip():
        raise ConflictError("say who labelled the example (labeller)")
    if session.get(ExampleRecord, example_id) is None:
        raise not_found("example", example_id)
    record = LabelRecord(
        example_id=example_id, scorer_id=scorer_id, value=value, labeller=labeller, note=note
    )
    session.add(record)
    session.flush()
    return info_of(LabelInfo, record)


def list_labels(
    session: Session, *, scorer_id: int, example_id: int | None = None
) -> list[LabelInfo]:
    """A scorer's labels (of one example, or all), newest first."""
    query = select(LabelRecord).where(LabelRecord.scorer_id == scorer_id)
    if example_id is not None:
        query = query.where(LabelRecord.example_id == example_id)
    found = session.exec(query.order_by(col(LabelRecord.id).desc())).all()
    return [info_of(LabelInfo, record) for record in found]
