"""Judge trust: each scorer's trust policy, approvals of its versions, and the pairs of a
person's grade and a version's score that agreement is measured on."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session, col, select

from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.info import info_of
from scorer_runtime.store.labels import latest_label_ids, outside_repeats
from scorer_runtime.store.scorers import get_version_by_id
from scorer_runtime.store.tables import (
    ApprovalRecord,
    ExampleRecord,
    LabelRecord,
    ScoreRecord,
    ScorerRecord,
    ScorerVersionRecord,
    TrustPolicyRecord,
    utc_now,
)
from scorer_runtime.trust.scale import Scale, scale_of


@dataclass(frozen=True, slots=True)
class TrustPolicyInfo:
    """A scorer's saved trust policy (a scorer without one has the default policy)."""

    scorer_id: int
    min_graded: int
    min_kappa_low: float
    max_flip_rate: float
    pass_mark: float | None
    updated_at: datetime
    max_swayed_rate: float | None = None


@dataclass(frozen=True, slots=True)
class ApprovalInfo:
    """An approval of a scorer version: who, when, the badge then, and any override reason."""

    id: int
    scorer_version_id: int
    approver: str
    badge: str
    override_reason: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class GradedScore:
    """An example's latest grade by a person beside the version's latest score of it."""

    example_id: int
    score_id: int
    human: float
    judge: float
    labeller: str
    note: str


@dataclass(frozen=True, slots=True)
class AgreementData:
    """What agreement is measured on, and the labels left out (counted, to say so)."""

    pairs: tuple[GradedScore, ...]
    labelled: int
    """Examples with a person's grade for the scorer."""
    gone: tuple[int, ...]
    """Example ids that have a label but no longer exist."""


def get_trust_policy(session: Session, *, scorer_id: int) -> TrustPolicyInfo | None:
    """The scorer's saved trust policy, or None when it has the default one."""
    found = session.get(TrustPolicyRecord, scorer_id)
    if found is None:
        return None
    return TrustPolicyInfo(
        found.scorer_id,
        found.min_graded,
        found.min_kappa_low,
        found.max_flip_rate,
        found.pass_mark,
        found.updated_at,
        found.max_swayed_rate,
    )


def save_trust_policy(
    session: Session,
    *,
    scorer_id: int,
    min_graded: int,
    min_kappa_low: float,
    max_flip_rate: float,
    pass_mark: float | None = None,
    max_swayed_rate: float | None = None,
) -> TrustPolicyInfo:
    """Set the scorer's trust policy (replacing the one it had); ``max_swayed_rate``: the
    share of verdicts each health check family may change at most (None: not asked)."""
    if session.get(ScorerRecord, scorer_id) is None:
        raise not_found("scorer", scorer_id)
    numbers = (min_kappa_low, max_flip_rate, *(() if pass_mark is None else (pass_mark,)))
    if min_graded < 2 or not all(math.isfinite(x) for x in numbers):
        raise ConflictError("a trust policy needs at least 2 graded examples and real numbers")
    if not -1.0 <= min_kappa_low <= 1.0 or not 0.0 <= max_flip_rate <= 1.0:
        raise ConflictError("kappa is between -1 and 1, and a flip rate between 0 and 1")
    if max_swayed_rate is not None and not 0.0 <= max_swayed_rate <= 1.0:
        raise ConflictError("the share of verdicts swayed is between 0 and 1")
    record = session.get(TrustPolicyRecord, scorer_id) or TrustPolicyRecord(
        scorer_id=scorer_id,
        min_graded=min_graded,
        min_kappa_low=min_kappa_low,
        max_flip_rate=max_flip_rate,
    )
    record.min_graded, record.min_kappa_low = min_graded, min_kappa_low
    record.max_flip_rate, record.pass_mark = max_flip_rate, pass_mark
    record.max_swayed_rate = max_swayed_rate
    record.updated_at = utc_now()
    session.add(record)
    session.flush()
    found = get_trust_policy(session, scorer_id=scorer_id)
    assert found is not None
    return found


def add_approval(
    session: Session, *, scorer_version_id: int, approver: str, badge: str, override_reason: str
) -> ApprovalInfo:
    """Record that ``approver`` approved the version (the caller checks the policy first)."""
    if not approver.strip():
        raise ConflictError("say who approves the version")
    if session.get(ScorerVersionRecord, scorer_version_id) is None:
        raise not_found("scorer version", scorer_version_id)
    record = ApprovalRecord(
        scorer_version_id=scorer_version_id,
        approver=approver.strip(),
        badge=badge,
        override_reason=override_reason.strip(),
    )
    session.add(record)
    session.flush()
    return info_of(ApprovalInfo, record)


def list_approvals(session: Session, *, scorer_id: int) -> list[ApprovalInfo]:
    """Approvals of every version of the scorer, newest first."""
    query = (
        select(ApprovalRecord)
        .join(ScorerVersionRecord, col(ScorerVersionRecord.id) == ApprovalRecord.scorer_version_id)
        .where(ScorerVersionRecord.scorer_id == scorer_id)
        .order_by(col(ApprovalRecord.id).desc())
    )
    return [info_of(ApprovalInfo, record) for record in session.exec(query).all()]


def agreement_data(
    session: Session,
    *,
    scorer_id: int,
    scorer_version_id: int | None = None,
    run_id: int | None = None,
) -> AgreementData:
    """Per example, the latest label for the scorer and the latest score (with a number) of
    the version's runs (a stability check's repeats left out), or of the run when ``run_id``
    is given."""
    latest_label = latest_label_ids(scorer_id)
    labels = session.exec(select(LabelRecord).where(col(LabelRecord.id).in_(latest_label))).all()
    labelled = select(LabelRecord.example_id).where(LabelRecord.scorer_id == scorer_id)
    existing = set(
        session.exec(select(ExampleRecord.id).where(col(ExampleRecord.id).in_(labelled))).all()
    )
    scores = _latest_scores(
        session, scorer_version_id=scorer_version_id, run_id=run_id, scorer_id=scorer_id
    )
    scores = {k: v for k, v in scores.items() if k in existing}
    pairs = tuple(
        GradedScore(
            label.example_id,
            scores[label.example_id][0],
            label.value,
            scores[label.example_id][1],
            label.labeller,
            label.note,
        )
        for label in sorted(labels, key=lambda r: r.example_id)
        if label.example_id in scores
    )
    gone = tuple(sorted(r.example_id for r in labels if r.example_id not in existing))
    return AgreementData(pairs=pairs, labelled=len(labels), gone=gone)


def _latest_scores(
    session: Session, *, scorer_version_id: int | None, run_id: int | None, scorer_id: int
) -> dict[int, tuple[int, float]]:
    """Example id → (score id, score) of its latest scored result of the version or run."""
    if scorer_version_id is None and run_id is None:
        raise ConflictError("say which version or run to measure")
    labelled = select(LabelRecord.example_id).where(LabelRecord.scorer_id == scorer_id)
    latest = select(func.max(ScoreRecord.id)).where(
        col(ScoreRecord.example_id).in_(labelled), col(ScoreRecord.score).is_not(None)
    )
    if run_id is not None:
        latest = latest.where(ScoreRecord.run_id == run_id)
    else:  # the version's runs: a stability check's repeats are not runs to measure on
        latest = latest.where(ScoreRecord.scorer_version_id == scorer_version_id, outside_repeats())
    query = select(ScoreRecord.id, ScoreRecord.example_id, ScoreRecord.score).where(
        col(ScoreRecord.id).in_(latest.group_by(col(ScoreRecord.example_id)))
    )
    found: dict[int, tuple[int, float]] = {}
    for score_id, example_id, score in session.exec(query).all():
        if example_id is not None and score is not None and score_id is not None:
            found[example_id] = (score_id, score)
    return found


def graded_scale(session: Session, *, scorer_version_id: int) -> Scale:
    """The scale a version grades on: its spec's, with the pass mark of its scorer's trust
    policy when the policy sets one (agreement, stability and A/B all count verdicts so)."""
    version = get_version_by_id(session, version_id=scorer_version_id)
    scale = scale_of(version.spec)
    policy = get_trust_policy(session, scorer_id=version.scorer_id)
    if policy is not None and policy.pass_mark is not None:
        scale = scale.with_pass_mark(policy.pass_mark)
    return scale
