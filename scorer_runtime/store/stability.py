"""Stability checks and the reads of a version A/B.

A stability check is a seeded sample of a dataset that one scorer version scores several
times; each repeat is an ordinary run tagged with the check (``runs.stability_check_id``),
which scores only the sample. :func:`latest_flip_evidence` is what the trust policy weighs:
the flip rate of the version's latest check whose repeats all ended, none of them cancelled
(a stopped check is no evidence).

The A/B of two versions reads each version's latest finished run of the whole dataset
(never a trust check's run, which scored a sample only), its scores per example, and the
latest human label per example.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.info import info_of
from scorer_runtime.store.runs import RunInfo, people_runs
from scorer_runtime.store.tables import (
    ExampleRecord,
    RunRecord,
    ScoreRecord,
    ScorerVersionRecord,
    StabilityCheckRecord,
)
from scorer_runtime.store.trust import graded_scale
from scorer_runtime.trust.evidence import FlipEvidence
from scorer_runtime.trust.flips import FlipSummary, RepeatScore, flips_of

_ENDED = ("done", "stopped", "failed", "cancelled")


@dataclass(frozen=True, slots=True)
class StabilityCheckInfo:
    """A stability check as the store hands it out (see ``StabilityCheckRecord``)."""

    id: int
    scorer_id: int
    scorer_version_id: int
    dataset_id: int
    repeats: int
    seed: int
    example_ids: list[int]
    created_at: datetime


@dataclass(frozen=True, slots=True)
class RunScore:
    """One example's stored result in a run, as an A/B compares them."""

    example_id: int
    score: float | None
    outcome: str
    cost: float | None
    latency_ms: float | None


def dataset_example_ids(session: Session, *, dataset_id: int) -> list[int]:
    """The ids of a dataset's examples, in id order (what a sample is drawn from)."""
    query = select(ExampleRecord.id).where(ExampleRecord.dataset_id == dataset_id)
    return [int(i) for i in session.exec(query.order_by(col(ExampleRecord.id))).all() if i]


def create_stability_check(
    session: Session,
    *,
    scorer_version_id: int,
    dataset_id: int,
    example_ids: list[int],
    repeats: int,
    seed: int = 0,
) -> StabilityCheckInfo:
    """A stability check of a version over a sample of a dataset (no repeat run yet)."""
    if not example_ids:
        raise ConflictError("a stability check needs at least one example")
    if repeats < 2:
        raise ConflictError("a stability check scores the examples at least twice")
    version = session.get(ScorerVersionRecord, scorer_version_id)
    if version is None:
        raise not_found("scorer version", scorer_version_id)
    check = StabilityCheckRecord(
        scorer_id=version.scorer_id,
        scorer_version_id=scorer_version_id,
        dataset_id=dataset_id,
        repeats=repeats,
        seed=seed,
        example_ids=sorted(example_ids),
    )
    session.add(check)
    session.flush()
    return info_of(StabilityCheckInfo, check)


def get_stability_check(session: Session, *, check_id: int) -> StabilityCheckInfo:
    """The check ``check_id``; raises NotFoundError."""
    check = session.get(StabilityCheckRecord, check_id)
    if check is None:
        raise not_found("stability check", check_id)
    return info_of(StabilityCheckInfo, check)


def check_example_ids(session: Session, *, check_id: int) -> list[int]:
    """The sample a check's repeats score."""
    return list(get_stability_check(session, check_id=check_id).example_ids)


def latest_stability_check(
    session: Session, *, scorer_version_id: int, dataset_id: int | None = None
) -> StabilityCheckInfo | None:
    """The version's newest check (on one dataset, or any), ended or not."""
    query = select(StabilityCheckRecord).where(
        StabilityCheckRecord.scorer_version_id == scorer_version_id
    )
    if dataset_id is not None:
        query = query.where(StabilityCheckRecord.dataset_id == dataset_id)
    found = session.exec(query.order_by(col(StabilityCheckRecord.id).desc()).limit(1)).first()
    return None if found is None else info_of(StabilityCheckInfo, found)


def repeat_runs(session: Session, *, check_id: int) -> list[RunInfo]:
    """The check's repeat runs, in the order they were made."""
    query = select(RunRecord).where(RunRecord.stability_check_id == check_id)
    return [info_of(RunInfo, r) for r in session.exec(query.order_by(col(RunRecord.id))).all()]


def repeat_scores(session: Session, *, check_id: int) -> list[RepeatScore]:
    """Every stored score of the check's repeats (``None`` for a result without a score)."""
    query = (
        select(ScoreRecord.run_id, ScoreRecord.example_id, ScoreRecord.score)
        .join(RunRecord, col(RunRecord.id) == col(ScoreRecord.run_id))
        .where(RunRecord.stability_check_id == check_id)
    )
    return [
        RepeatScore(int(run_id), int(example_id), score)
        for run_id, example_id, score in session.exec(query).all()
        if run_id is not None and example_id is not None
    ]


def check_flips(session: Session, *, check: StabilityCheckInfo) -> FlipSummary:
    """The check's flips so far, on its version's scale (with the trust policy's pass mark)."""
    runs = repeat_runs(session, check_id=check.id)
    return flips_of(
        graded_scale(session, scorer_version_id=check.scorer_version_id),
        example_ids=check.example_ids,
        run_ids=[run.id for run in runs],
        scores=repeat_scores(session, check_id=check.id),
    )


_CUT_SHORT = ("cancelled", "stopped")
"""A repeat that ended before its sample was scored: cancelled (the check was stopped), or
stopped at its spend cap (the judge's default cap)."""


def check_ended(session: Session, *, check: StabilityCheckInfo) -> bool:
    """Whether every repeat of the check that was made ended (done, stopped, failed or
    cancelled), and either all were made or one was cut short (a check cut short makes no
    more repeats)."""
    runs = repeat_runs(session, check_id=check.id)
    made = len(runs) >= check.repeats or any(run.status in _CUT_SHORT for run in runs)
    return bool(runs) and made and all(run.status in _ENDED for run in runs)


def check_stopped(session: Session, *, check: StabilityCheckInfo) -> bool:
    """Whether a repeat of the check was cut short (cancelled, or stopped at its spend cap):
    the check did not finish, and its flips are no evidence for the trust policy."""
    return any(run.status in _CUT_SHORT for run in repeat_runs(session, check_id=check.id))


def latest_flip_evidence(session: Session, scorer_version_id: int) -> FlipEvidence | None:
    """The flip rate of the version's latest stability check whose repeats all ended, none
    cancelled (a stopped check is skipped), and compared at least one example; ``None`` when
    it has none (no complete stability check yet)."""
    query = (
        select(StabilityCheckRecord)
        .where(StabilityCheckRecord.scorer_version_id == scorer_version_id)
        .order_by(col(StabilityCheckRecord.id).desc())
    )
    for record in session.exec(query).all():
        check = info_of(StabilityCheckInfo, record)
        if not check_ended(session, check=check) or check_stopped(session, check=check):
            continue
        flips = check_flips(session, check=check)
        if flips.rate is None or flips.ci_low is None or flips.ci_high is None:
            continue
        ended = max(r.finished_at or r.created_at for r in repeat_runs(session, check_id=check.id))
        return FlipEvidence(
            scorer_version_id,
            flips.compared,
            check.repeats,
            flips.flipped,
            flips.rate,
            flips.ci_low,
            flips.ci_high,
            ended,
        )
    return None


# -- the A/B of two versions --------------------------------------------------------------


def latest_full_run(session: Session, *, scorer_version_id: int, dataset_id: int) -> RunInfo | None:
    """The version's newest run of the whole dataset that finished (not a stability repeat)."""
    query = (
        select(RunRecord)
        .where(
            RunRecord.scorer_version_id == scorer_version_id,
            RunRecord.dataset_id == dataset_id,
            RunRecord.status == "done",
            people_runs(),
        )
        .order_by(col(RunRecord.id).desc())
        .limit(1)
    )
    found = session.exec(query).first()
    return None if found is None else info_of(RunInfo, found)


def run_scores(session: Session, *, run_id: int) -> list[RunScore]:
    """Every example's result in the run, in example order."""
    query = (
        sa_select(
            col(ScoreRecord.example_id),
            col(ScoreRecord.score),
            col(ScoreRecord.outcome),
            col(ScoreRecord.cost),
            col(ScoreRecord.latency_ms),
        )
        .where(col(ScoreRecord.run_id) == run_id, col(ScoreRecord.example_id).is_not(None))
        .order_by(col(ScoreRecord.example_id))
    )
    return [
        RunScore(int(example_id), score, str(outcome), cost, latency)
        for example_id, score, outcome, cost, latency in session.execute(query).all()
    ]


def example_outputs(session: Session, *, example_ids: Sequence[int]) -> dict[int, Any]:
    """The output of each of these examples (what a person recognises an example by)."""
    query = select(ExampleRecord.id, ExampleRecord.output).where(
        col(ExampleRecord.id).in_(list(example_ids))
    )
    return {int(i): output for i, output in session.exec(query).all() if i is not None}
