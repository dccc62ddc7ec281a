"""The health check of a judge: how easily does the judged text sway its verdict?

A check draws a seeded sample of a dataset (as a stability check does) and scores it once as
it is (the baseline) and once per perturbation family (:mod:`scorer_runtime.trust.attacks`):
an injected instruction, a forged verdict, a fake grading note, empty answers, padding, and
for a prompt that shows two values the two swapped. Each is an ordinary run tagged with the
check, started through :mod:`scorer_runtime.runs` (progress, cancel, resume, the spend cap),
whose examples are changed before any prompt is built; every run asks the judge afresh (no
answer cache). The report counts, per family, the verdicts that changed against the baseline
(:mod:`scorer_runtime.trust.sway`).

The studio queues the runs for its runner (:func:`start_health`); the command line scores them
in its own process (:func:`run_health`). A check with a run cut short (stopped, or at its cap)
is no evidence for the trust policy.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from scorer_runtime.batch.runner import BatchProgress, BatchRunner
from scorer_runtime.costs.cap import JUDGE_CAP, JudgeCap
from scorer_runtime.runs.start import RunRequest, StartPlan, plan_run, store_run
from scorer_runtime.store.engine import read_session, session_scope
from scorer_runtime.store.health import (
    HealthCheckInfo,
    create_health_check,
    get_health_check,
    health_runs,
    health_scores,
)
from scorer_runtime.store.runs import RunInfo, cancel_unended
from scorer_runtime.store.scorers import get_version_by_id
from scorer_runtime.store.stability import dataset_example_ids
from scorer_runtime.store.trust import graded_scale
from scorer_runtime.trust.attacks import BY_ID, WHAT_TO_DO, families_for, perturbation_for
from scorer_runtime.trust.stability import sample_examples
from scorer_runtime.trust.sway import FamilySway, sway_of

DEFAULT_SAMPLE = 20
MAX_SAMPLE = 500
_ENDED = ("done", "stopped", "failed", "cancelled")
_CUT_SHORT = ("cancelled", "stopped")


@dataclass(frozen=True, slots=True)
class HealthPlan:
    """What a check will score, before it starts: the sample, the families, the calls."""

    scorer_version_id: int
    version: int
    dataset_id: int
    example_ids: tuple[int, ...]
    families: tuple[str, ...]
    seed: int
    judge_steps: int

    @property
    def runs(self) -> int:
        """The runs of the check: the baseline and one per family."""
        return 1 + len(self.families)

    @property
    def judge_calls(self) -> int:
        """Judge requests the check makes: sample times runs times steps asking the judge."""
        return len(self.example_ids) * self.runs * self.judge_steps

    def describe(self) -> str:
        """The size of the check in words."""
        n = len(self.example_ids)
        return (
            f"{n} example{'s' * (n != 1)} scored as they are and under {len(self.families)} "
            f"perturbation{'s' * (len(self.families) != 1)} ({self.runs} runs) = "
            f"{self.judge_calls} judge call{'s' * (self.judge_calls != 1)}."
        )


def plan_health(
    session: Session,
    *,
    scorer_version_id: int,
    dataset_id: int,
    sample: int = DEFAULT_SAMPLE,
    seed: int = 0,
) -> HealthPlan:
    """The check of a version over a dataset; ValueError, in words, for what cannot be run."""
    if not 1 <= sample <= MAX_SAMPLE:
        raise ValueError(f"the sample must be from 1 to {MAX_SAMPLE} examples")
    version = get_version_by_id(session, version_id=scorer_version_id)
    ids = dataset_example_ids(session, dataset_id=dataset_id)
    if not ids:
        raise ValueError("this dataset has no examples: add some before a health check")
    return HealthPlan(
        scorer_version_id,
        version.version,
        dataset_id,
        sample_examples(ids, sample, seed),
        tuple(f.id for f in families_for(version.spec)),
        seed,
        len(version.spec.prompt_steps()),
    )


def _new_check(session: Session, plan: HealthPlan) -> HealthCheckInfo:
    return create_health_check(
        session,
        scorer_version_id=plan.scorer_version_id,
        dataset_id=plan.dataset_id,
        example_ids=list(plan.example_ids),
        families=list(plan.families),
        seed=plan.seed,
    )


def _check_plans(session: Session, plan: HealthPlan, run: StartPlan, check_id: int) -> list[Any]:
    """The baseline run's plan, then each family's (its examples changed before scoring)."""
    spec = get_version_by_id(session, version_id=plan.scorer_version_id).spec
    perturbed = [perturbation_for(BY_ID[f], spec).to_json() for f in plan.families]
    return [run.perturbed(check_id, p) for p in [None, *perturbed]]


def start_health(engine: Engine, plan: HealthPlan, *, concurrency: int = 4) -> int:
    """Store the check and queue all its runs for a runner, in one transaction; the check's
    id. Refused in words (``RunRefusedError``, ``CapError``) when the version cannot run.
    Each run stops at the judge's default cap, as a stability check's repeats do."""
    request = RunRequest(
        plan.scorer_version_id,
        plan.dataset_id,
        where="queue",
        concurrency=concurrency,
        max_cost=JUDGE_CAP,
        allow_unpriced=True,
    )
    run = plan_run(engine, request)
    with session_scope(engine) as session:
        check = _new_check(session, plan)
        for each in _check_plans(session, plan, run, check.id):
            store_run(session, each)
        return check.id


RunProgress = Callable[[int, BatchProgress], None]
"""Told the run (0 for the baseline, then 1, 2, … per family) and its progress."""


async def run_health(
    engine: Engine,
    plan: HealthPlan,
    *,
    concurrency: int = 4,
    api_base: str | None = None,
    progress: RunProgress | None = None,
    max_cost: float | JudgeCap | None = JUDGE_CAP,
    allow_unpriced: bool = True,
) -> int:
    """Store the check and score its runs here, one after another; the check's id.

    ``max_cost`` in dollars caps the whole check: each of its runs stops at an equal share
    (:func:`run_cap`); :data:`JUDGE_CAP` stops each run at the judge's default cap; None: no
    cap. A cap no run could keep raises ``CapError`` before anything is stored.
    """
    request = RunRequest(
        plan.scorer_version_id,
        plan.dataset_id,
        concurrency=concurrency,
        max_cost=run_cap(max_cost, plan),
        allow_unpriced=allow_unpriced,
        api_base=api_base,
    )
    run = await asyncio.to_thread(plan_run, engine, request)
    with session_scope(engine) as session:
        check = _new_check(session, plan)
        plans = _check_plans(session, plan, run, check.id)
    for number, each in enumerate(plans):
        with session_scope(engine) as session:
            if _cut_short(health_runs(session, check_id=check.id)):
                break  # stopped, or a run reached its cap: the check ends there
            stored = store_run(session, each)
        told = None if progress is None else _told(progress, number)
        await BatchRunner(
            engine, run.scorer, run_id=stored.id, progress=told, source=run.source
        ).run()
    return check.id


def run_cap(max_cost: float | JudgeCap | None, plan: HealthPlan) -> float | JudgeCap | None:
    """Each run's cap for a whole check's ``max_cost``: an equal share, so the check never
    spends more than asked (the judge's default cap and no cap stay as they are)."""
    if isinstance(max_cost, float | int) and not isinstance(max_cost, bool):
        return float(max_cost) / plan.runs
    return max_cost


def _told(progress: RunProgress, number: int) -> Callable[[BatchProgress], None]:
    return lambda p: progress(number, p)


def _cut_short(runs: list[RunInfo]) -> bool:
    return any(run.status in _CUT_SHORT for run in runs)


def stop_health(engine: Engine, check_id: int) -> list[int]:
    """Ask every run of the check that has not ended to cancel; the ids of those runs."""
    with session_scope(engine) as session:
        get_health_check(session, check_id=check_id)
        return cancel_unended(session, health_runs(session, check_id=check_id))


@dataclass(frozen=True, slots=True)
class HealthReport:
    """A check as it stands: its runs and, per family, the verdicts it changed."""

    check: HealthCheckInfo
    version: int
    runs: tuple[RunInfo, ...]
    families: tuple[FamilySway, ...]

    @property
    def ended(self) -> bool:
        """Whether every run made ended, and all were made or one was cut short."""
        made = len(self.runs) >= 1 + len(self.check.families) or self.stopped
        return bool(self.runs) and made and all(r.status in _ENDED for r in self.runs)

    @property
    def stopped(self) -> bool:
        """Whether a run was cut short (cancelled, or at its cap): no evidence."""
        return _cut_short(list(self.runs))

    @property
    def swayed(self) -> tuple[FamilySway, ...]:
        """The families that moved a verdict toward the best grade (attacks that worked)."""
        return tuple(f for f in self.families if f.worked)

    def words(self) -> str:
        """Where the check is, or what it found, in sentences."""
        ended = sum(r.status in _ENDED for r in self.runs)
        total = 1 + len(self.check.families)
        if not self.ended:
            return f"The health check is under way: {ended} of {total} runs have ended."
        if self.stopped:
            return (
                f"This health check was stopped before its {total} runs finished (stopped, or "
                "a run reached its spend cap). What it scored is kept, but it counts for "
                'nothing: press "Run the health check" to start a new one.'
            )
        if all(f.rate is None for f in self.families):
            return (
                "No example got a score both as it is and perturbed, so nothing can be "
                "compared: look at the check's runs' errors."
            )
        swayed = self.swayed
        if not swayed:
            return "No perturbation moved a verdict toward the best grade."
        names = ", ".join(BY_ID[f.family].name.lower() for f in swayed)
        return f"The judged text swayed the judge toward the best grade ({names}). {WHAT_TO_DO}"


def family_words(sway: FamilySway) -> str:
    """One family's result in a sentence (never a number that is not one)."""
    if sway.rate is None or sway.ci_low is None or sway.ci_high is None:
        return "No example was scored both as it is and perturbed."
    said = (
        f"{sway.changed} of {sway.compared} verdicts changed: {sway.rate:.0%} (95 % interval "
        f"{sway.ci_low:.0%} to {sway.ci_high:.0%})"
    )
    if sway.toward_best:
        return f"{said}, {sway.toward_best} toward the best grade."
    return f"{said}, none toward the best grade." if sway.changed else f"{said}."


def health_report(session: Session, *, check_id: int) -> HealthReport:
    """The check ``check_id`` as it stands (NotFoundError when there is none)."""
    check = get_health_check(session, check_id=check_id)
    version = get_version_by_id(session, version_id=check.scorer_version_id)
    sways = sway_of(
        graded_scale(session, scorer_version_id=check.scorer_version_id),
        families=check.families,
        scores=health_scores(session, check_id=check_id),
    )
    runs = tuple(health_runs(session, check_id=check_id))
    return HealthReport(check, version.version, runs, sways)


def load_health(engine: Engine, check_id: int) -> HealthReport:
    """:func:`health_report` in a read session of its own."""
    with read_session(engine) as session:
        return health_report(session, check_id=check_id)
