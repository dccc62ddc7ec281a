"""Stability: does a scorer version give the same verdict when it scores the same examples
again?

A check draws a seeded sample of a dataset (the same seed and dataset give the same sample)
and scores it ``repeats`` times with one version; each repeat is an ordinary batch run tagged
with the check, so it has the run engine's progress, cancel and resume. The studio queues
the repeats for its runner (:func:`start_check`); the command line scores them in its own
process (:func:`run_check`). Every repeat calls the judge afresh: see
:data:`REPEAT_RUNS` and :meth:`scorer_runtime.runs.StartPlan.repeat_of`.

A check can be stopped (:func:`stop_check`): every repeat not yet ended is cancelled. What was
scored is kept, but a stopped check is no evidence for the trust policy
(:func:`scorer_runtime.store.latest_flip_evidence` skips it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from sqlalchemy import Engine
from sqlmodel import Session

from scorer_runtime.batch.runner import BatchProgress, BatchRunner
from scorer_runtime.costs.cap import JUDGE_CAP, JudgeCap
from scorer_runtime.counts import plural
from scorer_runtime.money import format_dollars
from scorer_runtime.runs.start import RunRequest, StartPlan, plan_run, store_run
from scorer_runtime.store.engine import read_session, session_scope
from scorer_runtime.store.runs import RunInfo, cancel_unended
from scorer_runtime.store.scorers import get_version_by_id, list_versions
from scorer_runtime.store.stability import (
    StabilityCheckInfo,
    check_ended,
    check_flips,
    check_stopped,
    create_stability_check,
    dataset_example_ids,
    get_stability_check,
    latest_flip_evidence,
    repeat_runs,
)
from scorer_runtime.trust.evidence import FlipEvidence
from scorer_runtime.trust.flips import FlipSummary

DEFAULT_SAMPLE = 20
DEFAULT_REPEATS = 3
MAX_REPEATS = 10
MAX_SAMPLE = 500


@dataclass(frozen=True, slots=True)
class RepeatRunOptions:
    """How every repeat of a stability check runs, set in this one place.

    A repeat must ask the judge again: :meth:`~scorer_runtime.runs.StartPlan.repeat_of` makes
    every repeat's run with the judge answer cache off.
    """

    concurrency: int = 4


REPEAT_RUNS = RepeatRunOptions()
"""The options of every repeat run (the studio's and the command line's)."""


@dataclass(frozen=True, slots=True)
class StabilityPlan:
    """What a check will score, before it starts: the sample and how many judge calls."""

    scorer_version_id: int
    version: int
    dataset_id: int
    example_ids: tuple[int, ...]
    repeats: int
    seed: int
    judge_steps: int
    dataset_size: int

    @property
    def judge_calls(self) -> int:
        """Judge requests the check makes: sample times repeats times steps asking the judge."""
        return len(self.example_ids) * self.repeats * self.judge_steps

    def describe(self) -> str:
        """The estimate in words (where a cost estimate in money joins the call count)."""
        n = len(self.example_ids)
        steps = f"{self.judge_steps} judge step{'s' * (self.judge_steps != 1)}"
        return (
            f"{n} example{'s' * (n != 1)} × {self.repeats} repeats × {steps} = "
            f"{self.judge_calls} judge call{'s' * (self.judge_calls != 1)}."
        )


def sample_examples(example_ids: Sequence[int], size: int, seed: int) -> tuple[int, ...]:
    """``size`` of ``example_ids`` drawn without replacement by a seeded generator (all of
    them when there are fewer), in id order: the same ids and seed give the same sample."""
    ordered = np.array(sorted(example_ids), dtype=np.int64)
    if size >= len(ordered):
        return tuple(int(i) for i in ordered)
    chosen = np.random.default_rng(seed).choice(ordered, size=size, replace=False)
    return tuple(int(i) for i in np.sort(chosen))


def plan_stability(
    session: Session,
    *,
    scorer_version_id: int,
    dataset_id: int,
    sample: int = DEFAULT_SAMPLE,
    repeats: int = DEFAULT_REPEATS,
    seed: int = 0,
) -> StabilityPlan:
    """The check of a version over a dataset; ValueError, in words, for what cannot be run."""
    if not 2 <= repeats <= MAX_REPEATS:
        raise ValueError(f"repeats must be from 2 to {MAX_REPEATS}: a flip needs two scorings")
    if not 1 <= sample <= MAX_SAMPLE:
        raise ValueError(f"the sample must be from 1 to {MAX_SAMPLE} examples")
    version = get_version_by_id(session, version_id=scorer_version_id)
    ids = dataset_example_ids(session, dataset_id=dataset_id)
    if not ids:
        raise ValueError("this dataset has no examples: add some before checking stability")
    return StabilityPlan(
        scorer_version_id,
        version.version,
        dataset_id,
        sample_examples(ids, sample, seed),
        repeats,
        seed,
        len(version.spec.prompt_steps()),
        len(ids),
    )


def _new_check(session: Session, plan: StabilityPlan) -> StabilityCheckInfo:
    return create_stability_check(
        session,
        scorer_version_id=plan.scorer_version_id,
        dataset_id=plan.dataset_id,
        example_ids=list(plan.example_ids),
        repeats=plan.repeats,
        seed=plan.seed,
    )


def start_check(
    engine: Engine, plan: StabilityPlan, options: RepeatRunOptions = REPEAT_RUNS
) -> int:
    """Store the check and queue all its repeats for a runner, in one transaction; the
    check's id. Refused in words (:class:`~scorer_runtime.runs.RunRefusedError`,
    :class:`~scorer_runtime.costs.cap.CapError`) when the version cannot run: a spec that no
    longer compiles, a judge key that is not set, a judge's default cap below what one
    example can cost (a model without a price runs past that cap, as the Trust page says)."""
    request = RunRequest(
        plan.scorer_version_id,
        plan.dataset_id,
        where="queue",
        concurrency=options.concurrency,
        max_cost=JUDGE_CAP,
        allow_unpriced=True,
    )
    repeat = plan_run(engine, request)
    with session_scope(engine) as session:
        check = _new_check(session, plan)
        for _ in range(plan.repeats):
            store_run(session, repeat.repeat_of(check.id))
        return check.id


RepeatProgress = Callable[[int, BatchProgress], None]
"""Told the repeat (1, 2, …) and its progress after every example."""


def plan_repeats(
    engine: Engine,
    plan: StabilityPlan,
    *,
    options: RepeatRunOptions = REPEAT_RUNS,
    api_base: str | None = None,
    max_cost: float | JudgeCap | None = JUDGE_CAP,
    allow_unpriced: bool = True,
) -> StartPlan:
    """The run each repeat of ``plan`` is, scored in this process: the version compiled once
    and its cap checked, before anything is stored (a missing key, or a cap no repeat could
    keep, fails here: :class:`~scorer_runtime.costs.cap.CapError`, below one example's worst
    case or on a model without a price unless ``allow_unpriced``). Each repeat stops at
    ``max_cost`` dollars (by default the judge's default cap, as in the studio; None: no
    cap)."""
    request = RunRequest(
        plan.scorer_version_id,
        plan.dataset_id,
        concurrency=options.concurrency,
        max_cost=max_cost,
        allow_unpriced=allow_unpriced,
        api_base=api_base,
    )
    return plan_run(engine, request)


async def run_check(
    engine: Engine,
    plan: StabilityPlan,
    repeat: StartPlan | None = None,
    *,
    progress: RepeatProgress | None = None,
) -> int:
    """Store the check and score its repeats here, one after another; the check's id.

    ``repeat`` is what :func:`plan_repeats` planned (None: planned here with its defaults).
    Each repeat's run is stored as this process's own (never queued), so a runner serving
    the queue never picks up a repeat this process scores.
    """
    if repeat is None:
        repeat = await asyncio.to_thread(plan_repeats, engine, plan)
    with session_scope(engine) as session:
        check = _new_check(session, plan)
    for number in range(1, plan.repeats + 1):
        with session_scope(engine) as session:
            if check_stopped(session, check=check):
                break  # stopped from the Trust page: no more repeats
            run = store_run(session, repeat.repeat_of(check.id))
        told = None if progress is None else _told(progress, number)
        runner = BatchRunner(
            engine, repeat.scorer, run_id=run.id, progress=told, source=repeat.source
        )
        await runner.run()
    return check.id


def _told(progress: RepeatProgress, repeat: int) -> Callable[[BatchProgress], None]:
    return lambda p: progress(repeat, p)


def stop_check(engine: Engine, check_id: int) -> list[int]:
    """Ask every repeat of the check that has not ended to cancel; the ids of those runs.

    A queued repeat no runner claimed yet is cancelled at once; a running one is cancelled by
    its runner after the examples under way (``store.request_cancel``). Scores stored so far
    are kept. NotFoundError when there is no such check.
    """
    with session_scope(engine) as session:
        get_stability_check(session, check_id=check_id)
        return cancel_unended(session, repeat_runs(session, check_id=check_id))


@dataclass(frozen=True, slots=True)
class StabilityReport:
    """A check as it stands: its repeats, each example's verdicts, the flip rate."""

    check: StabilityCheckInfo
    version: int
    runs: tuple[RunInfo, ...]
    flips: FlipSummary
    ended: bool
    evidence: FlipEvidence | None = None
    """What the trust policy weighs for this version: its latest complete check (this one,
    an earlier one, or none)."""

    @property
    def stopped(self) -> bool:
        """Whether a repeat was cut short (cancelled, or stopped at its spend cap): the check
        did not finish and counts for nothing."""
        return any(run.status in ("cancelled", "stopped") for run in self.runs)

    @property
    def stopping(self) -> bool:
        """Whether someone asked the check to stop and a repeat is still finishing."""
        return not self.ended and any(run.cancel_requested for run in self.runs)

    @property
    def repeats_ended(self) -> int:
        """Repeats that ended (done, stopped by a cap, failed or cancelled)."""
        return sum(run.status in ("done", "stopped", "failed", "cancelled") for run in self.runs)

    def words(self) -> str:
        """The flip rate and its interval in a sentence (never a number that is not one)."""
        f = self.flips
        if self.stopping:
            return (
                f"Stopping the check: {self.repeats_ended} of {self.check.repeats} repeats have "
                "ended; the one under way stops after the examples it is scoring."
            )
        if self.stopped and self.ended:
            return self._stopped_words()
        if not self.ended:
            return (
                f"The check is under way: {self.repeats_ended} of {self.check.repeats} repeats "
                "have ended."
            )
        if f.rate is None or f.ci_low is None or f.ci_high is None:
            return (
                "No example got a score in two repeats, so flips cannot be counted: look at "
                "the repeat runs' errors."
            )
        said = (
            f"{f.flipped} of {f.compared} examples changed verdict between repeats: a flip "
            f"rate of {f.rate:.0%} (95 % interval {f.ci_low:.0%} to {f.ci_high:.0%})."
        )
        if f.not_compared:
            said += f" {plural(f.not_compared, 'example')} had a score in fewer than two repeats."
        return said

    def _stopped_words(self) -> str:
        scored = sum(run.done_count for run in self.runs)
        kept = (
            "Nothing had been scored yet"
            if scored == 0
            else f"The {scored} result{'s' * (scored != 1)} scored before the stop "
            f"{'are' if scored != 1 else 'is'} kept (its repeat runs are on the Runs page)"
        )
        cap = next((r.max_cost for r in self.runs if r.status == "stopped" and r.max_cost), None)
        why = (
            f"This check was stopped before its {self.check.repeats} repeats finished"
            if cap is None
            else f"A repeat reached its spend cap ({format_dollars(cap)}) before the check's "
            f"{self.check.repeats} repeats finished"
        )
        said = (
            f"{why}. {kept}, but a stopped check does not count as evidence for the trust policy: "
        )
        e = self.evidence
        if e is None:
            return said + (
                f"version {self.version} has no complete stability check, so the policy has "
                'no flip rate for it yet. Press "Check stability" to start a new check.'
            )
        return said + (
            f"version {self.version}'s badge still goes by its last complete check ({e.flipped} "
            f'of {e.examples} examples changed verdict, {e.rate:.0%}). Press "Check '
            'stability" to start a new check.'
        )


def check_report(session: Session, *, check_id: int) -> StabilityReport:
    """The check ``check_id`` as it stands (NotFoundError when there is none)."""
    check = get_stability_check(session, check_id=check_id)
    version = get_version_by_id(session, version_id=check.scorer_version_id)
    return StabilityReport(
        check,
        version.version,
        tuple(repeat_runs(session, check_id=check_id)),
        check_flips(session, check=check),
        check_ended(session, check=check),
        latest_flip_evidence(session, check.scorer_version_id),
    )


def load_report(engine: Engine, check_id: int) -> StabilityReport:
    """:func:`check_report` in a read session of its own."""
    with read_session(engine) as session:
        return check_report(session, check_id=check_id)


@dataclass(frozen=True, slots=True)
class VersionFlipRate:
    """The flip rate of one version's latest ended check (what the chart per version shows)."""

    version: int
    scorer_version_id: int
    examples: int
    rate: float
    ci_low: float
    ci_high: float


def flip_rates(session: Session, *, scorer_id: int) -> list[VersionFlipRate]:
    """Each version's flip rate from its latest ended check, oldest version first; versions
    without one are left out."""
    rates = []
    for version in sorted(list_versions(session, scorer_id=scorer_id), key=lambda v: v.version):
        evidence = latest_flip_evidence(session, version.id)
        if evidence is not None:
            rates.append(
                VersionFlipRate(
                    version.version,
                    version.id,
                    evidence.examples,
                    evidence.rate,
                    evidence.ci_low,
                    evidence.ci_high,
                )
            )
    return rates
