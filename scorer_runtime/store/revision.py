"""The store's revision: a cheap reading that changes whenever what the studio shows changes.

A cached read keyed on :func:`store_revision` is never stale: a grade, a score, a run moving
on or ending, a stability check, an approval, a saved policy, a new version or dataset, a
scoring rule added or paused by its cap —
written by the studio, the command line or a runner in another process — gives a new
revision. Each part is a count, a largest id or a latest time, read through an index or
from a small table, in one statement.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col

from scorer_runtime.store.rule_tables import RuleAlertRecord, ScoringRuleRecord
from scorer_runtime.store.tables import (
    ApprovalRecord,
    DatasetRecord,
    ExampleRecord,
    JudgeProfileRecord,
    LabelRecord,
    RunRecord,
    ScoreRecord,
    ScorerRecord,
    ScorerVersionRecord,
    StabilityCheckRecord,
    TraceRecord,
    TrustPolicyRecord,
)

Revision = tuple[Any, ...]
"""Plain values (numbers, times, None): equal revisions mean nothing shown has changed."""


def _parts() -> list[Any]:
    count, largest, latest, total = sa.func.count, sa.func.max, sa.func.max, sa.func.sum
    return [
        sa.select(largest(col(ScoreRecord.id))),
        sa.select(count(), largest(col(LabelRecord.id))),
        sa.select(
            count(),
            largest(col(RunRecord.id)),
            total(col(RunRecord.done_count)),
            total(col(RunRecord.failed_count)),
            count(col(RunRecord.started_at)),
            count(col(RunRecord.finished_at)),
            count(col(RunRecord.error)),
            count(sa.case((col(RunRecord.cancel_requested), 1))),
            count(sa.case((col(RunRecord.status) == "running", 1))),
        ),
        sa.select(count(), largest(col(StabilityCheckRecord.id))),
        sa.select(count(), largest(col(ApprovalRecord.id))),
        sa.select(count(), latest(col(TrustPolicyRecord.updated_at))),
        sa.select(largest(col(ScorerVersionRecord.id))),
        sa.select(
            count(),
            latest(col(ScorerRecord.updated_at)),
            count(col(ScorerRecord.archived_at)),
        ),
        sa.select(count(), largest(col(DatasetRecord.id)), count(col(DatasetRecord.archived_at))),
        sa.select(count(), largest(col(ExampleRecord.id))),
        sa.select(count(), latest(col(JudgeProfileRecord.updated_at))),
        sa.select(count(), latest(col(TraceRecord.updated_at))),
        sa.select(
            count(),
            largest(col(ScoringRuleRecord.id)),
            latest(col(ScoringRuleRecord.capped_on)),
            latest(col(ScoringRuleRecord.changed_at)),
        ),
        sa.select(
            count(),
            count(col(RuleAlertRecord.sent_at)),
            count(col(RuleAlertRecord.send_error)),
        ),
    ]


def store_revision(session: Session) -> Revision:
    """The store's revision now: equal to an earlier reading exactly when no grade, score,
    run progress, stability check, approval, policy, version, scorer, dataset, example,
    judge, trace, scoring rule or drift alert was added, changed in what pages show, or
    removed since."""
    row = session.execute(_statement()).one()
    return tuple(_plain(value) for value in row)


@cache
def _statement() -> Any:
    """The one statement, built once (building it costs more than running it)."""
    parts = [query.subquery() for query in _parts()]
    joined: Any = parts[0]
    for part in parts[1:]:  # each part is one row: joined on nothing, still one row
        joined = joined.join(part, sa.true())
    columns = [column for part in parts for column in part.c]
    return sa.select(*columns).select_from(joined)


def _plain(value: Any) -> Any:
    """Numbers as ints (PostgreSQL sums are Decimals), times as ISO text: hashable and equal
    across backends."""
    if value is None or isinstance(value, int | str):
        return value
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return int(value)
