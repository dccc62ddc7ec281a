"""Health checks: a seeded sample of a dataset that one scorer version scores as it is (the
baseline run) and once per perturbation family (each run tagged with the check and carrying
its ``perturbation``). This module stores checks and reads their runs and scores; the
counting is :mod:`scorer_runtime.trust.sway`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.info import info_of
from scorer_runtime.store.runs import RunInfo
from scorer_runtime.store.tables import (
    HealthCheckRecord,
    RunRecord,
    ScoreRecord,
    ScorerVersionRecord,
)
from scorer_runtime.store.trust import graded_scale
from scorer_runtime.trust.sway import FamilyScore, SwayEvidence, sway_of

_COUNTED = ("done", "failed")
"""A run that ended without being cut short (a failed run's scores are its evidence)."""


@dataclass(frozen=True, slots=True)
class HealthCheckInfo:
    """A health check as the store hands it out (see ``HealthCheckRecord``)."""

    id: int
    scorer_id: int
    scorer_version_id: int
    dataset_id: int
    seed: int
    example_ids: list[int]
    families: list[str]
    created_at: datetime


def create_health_check(
    session: Session,
    *,
    scorer_version_id: int,
    dataset_id: int,
    example_ids: list[int],
    families: list[str],
    seed: int = 0,
) -> HealthCheckInfo:
    """A health check of a version over a sample of a dataset (no run yet)."""
    if not example_ids:
        raise ConflictError("a health check needs at least one example")
    if not families:
        raise ConflictError("a health check tries at least one perturbation family")
    version = session.get(ScorerVersionRecord, scorer_version_id)
    if version is None:
        raise not_found("scorer version", scorer_version_id)
    check = HealthCheckRecord(
        scorer_id=version.scorer_id,
        scorer_version_id=scorer_version_id,
        dataset_id=dataset_id,
        seed=seed,
        example_ids=sorted(example_ids),
        families=list(families),
    )
    session.add(check)
    session.flush()
    return info_of(HealthCheckInfo, check)


def get_health_check(session: Session, *, check_id: int) -> HealthCheckInfo:
    """The health check ``check_id``; raises NotFoundError."""
    check = session.get(HealthCheckRecord, check_id)
    if check is None:
        raise not_found("health check", check_id)
    return info_of(HealthCheckInfo, check)


def health_example_ids(session: Session, *, check_id: int) -> list[int]:
    """The sample every run of a health check scores."""
    return list(get_health_check(session, check_id=check_id).example_ids)


def latest_health_check(
    session: Session, *, scorer_version_id: int, dataset_id: int | None = None
) -> HealthCheckInfo | None:
    """The version's newest health check (on one dataset, or any), ended or not."""
    query = select(HealthCheckRecord).where(
        HealthCheckRecord.scorer_version_id == scorer_version_id
    )
    if dataset_id is not None:
        query = query.where(HealthCheckRecord.dataset_id == dataset_id)
    found = session.exec(query.order_by(col(HealthCheckRecord.id).desc()).limit(1)).first()
    return None if found is None else info_of(HealthCheckInfo, found)


def health_checks_of(session: Session, *, scorer_version_id: int) -> list[HealthCheckInfo]:
    """The version's health checks, newest first."""
    query = select(HealthCheckRecord).where(
        HealthCheckRecord.scorer_version_id == scorer_version_id
    )
    found = session.exec(query.order_by(col(HealthCheckRecord.id).desc())).all()
    return [info_of(HealthCheckInfo, record) for record in found]


def health_runs(session: Session, *, check_id: int) -> list[RunInfo]:
    """The check's runs in the order they were made: the baseline first, then one per family."""
    query = select(RunRecord).where(RunRecord.health_check_id == check_id)
    return [info_of(RunInfo, r) for r in session.exec(query.order_by(col(RunRecord.id))).all()]


def health_scores(session: Session, *, check_id: int) -> list[FamilyScore]:
    """Every stored result of the check's runs, with the family of its run (None: baseline)."""
    query = (
        sa_select(
            col(RunRecord.perturbation),
            col(ScoreRecord.id),
            col(ScoreRecord.example_id),
            col(ScoreRecord.score),
            col(ScoreRecord.reason),
        )
        .join(RunRecord, col(RunRecord.id) == col(ScoreRecord.run_id))
        .where(col(RunRecord.health_check_id) == check_id)
    )
    return [
        FamilyScore(
            None if perturbation is None else str(perturbation["family"]),
            int(example_id),
            score,
            int(score_id),
            reason,
        )
        for perturbation, score_id, example_id, score, reason in session.execute(query).all()
        if example_id is not None and score_id is not None
    ]


def health_check_counts(session: Session, *, check: HealthCheckInfo) -> bool:
    """Whether the check is evidence: every run made (the baseline and one per family) and
    ended, none cut short (cancelled, or stopped at its cap)."""
    runs = health_runs(session, check_id=check.id)
    made = len(runs) == 1 + len(check.families)
    return made and all(r.status in _COUNTED for r in runs)


def latest_sway_evidence(session: Session, scorer_version_id: int) -> SwayEvidence | None:
    """Each family's changed verdicts in the version's latest health check that counts
    (:func:`health_check_counts`); None when it has none."""
    for check in health_checks_of(session, scorer_version_id=scorer_version_id):
        if not health_check_counts(session, check=check):
            continue
        scale = graded_scale(session, scorer_version_id=scorer_version_id)
        scores = health_scores(session, check_id=check.id)
        families = sway_of(scale, families=check.families, scores=scores)
        return SwayEvidence(check.id, len(check.example_ids), families)
    return None
