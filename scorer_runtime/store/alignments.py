"""Alignments ("Improve this judge"): the graded examples of one scorer version split into
a tuning part and a holdout, and the runs tagged with the alignment that score the version
and each candidate on them. This module stores alignments and reads their runs; building
and measuring candidates is :mod:`scorer_runtime.trust.align`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.info import info_of
from scorer_runtime.store.runs import RunInfo
from scorer_runtime.store.tables import AlignmentRecord, RunRecord, ScorerVersionRecord


@dataclass(frozen=True, slots=True)
class AlignmentInfo:
    """An alignment as the store hands it out (see ``AlignmentRecord``)."""

    id: int
    scorer_id: int
    scorer_version_id: int
    seed: int
    tuning_ids: list[int]
    holdout_ids: list[int]
    created_at: datetime


def create_alignment(
    session: Session,
    *,
    scorer_version_id: int,
    tuning_ids: Sequence[int],
    holdout_ids: Sequence[int],
    seed: int = 0,
) -> AlignmentInfo:
    """An alignment of a version with its split (no run yet); the two parts never share an
    example."""
    if set(tuning_ids) & set(holdout_ids):
        raise ConflictError("an example is either in the tuning part or in the holdout")
    if not tuning_ids or not holdout_ids:
        raise ConflictError("an alignment needs examples in both its tuning part and holdout")
    version = session.get(ScorerVersionRecord, scorer_version_id)
    if version is None:
        raise not_found("scorer version", scorer_version_id)
    record = AlignmentRecord(
        scorer_id=version.scorer_id,
        scorer_version_id=scorer_version_id,
        seed=seed,
        tuning_ids=sorted(tuning_ids),
        holdout_ids=sorted(holdout_ids),
    )
    session.add(record)
    session.flush()
    return info_of(AlignmentInfo, record)


def get_alignment(session: Session, *, alignment_id: int) -> AlignmentInfo:
    """The alignment ``alignment_id``; raises NotFoundError."""
    record = session.get(AlignmentRecord, alignment_id)
    if record is None:
        raise not_found("alignment", alignment_id)
    return info_of(AlignmentInfo, record)


def alignment_runs(session: Session, *, alignment_id: int) -> list[RunInfo]:
    """The alignment's runs in the order they were made."""
    query = select(RunRecord).where(RunRecord.alignment_id == alignment_id)
    return [info_of(RunInfo, r) for r in session.exec(query.order_by(col(RunRecord.id))).all()]
