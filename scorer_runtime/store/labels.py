"""Human labels: what a person says an example deserves, to measure the judge against."""

from __future__ import annotations

import math
from collections.abc import Sequence

from sqlmodel import Session, col, select

from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.tables import ExampleRecord, LabelRecord


def add_label(
    session: Session,
    *,
    example_id: int,
    scorer_id: int,
    value: float,
    labeller: str,
    note: str = "",
) -> LabelRecord:
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
    return record


def list_labels(
    session: Session, *, scorer_id: int, example_id: int | None = None
) -> Sequence[LabelRecord]:
    """A scorer's labels (of one example, or all), newest first."""
    query = select(LabelRecord).where(LabelRecord.scorer_id == scorer_id)
    if example_id is not None:
        query = query.where(LabelRecord.example_id == example_id)
    return session.exec(query.order_by(col(LabelRecord.id).desc())).all()
