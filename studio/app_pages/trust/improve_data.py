"""The Trust page's calls for "Improve this judge" (:mod:`scorer_runtime.trust.align`): the
plan, the candidates and their guidelines, the estimate, and the alignment itself."""

from __future__ import annotations

import asyncio

from scorer_runtime.costs.cap import JudgeCap
from scorer_runtime.costs.estimate import CostEstimate
from scorer_runtime.store import list_judge_profiles
from scorer_runtime.trust.align import (
    AlignPlan,
    AlignReport,
    Candidates,
    ProgressFn,
    estimate_alignment,
    plan_alignment,
    prepare_candidates,
    run_alignment,
)
from studio import services


@services.cached()
def plan(version_id: int) -> AlignPlan:
    """The split of the version's graded examples (NotReadyError, in words, when too few)."""
    with services.reading() as session:
        return plan_alignment(session, scorer_version_id=version_id)


@services.cached()
def estimate(version_id: int) -> CostEstimate:
    """What scoring the graded examples with the version and its candidates may cost."""
    return asyncio.run(estimate_alignment(services.engine(), plan(version_id)))


def candidates(chosen: AlignPlan, writer: str | None) -> Candidates:
    """The candidates, with guidelines a judge model wrote from the tuning disagreements."""
    return asyncio.run(prepare_candidates(services.engine(), chosen, guidelines_judge=writer))


def improve(
    chosen: AlignPlan,
    tried: Candidates,
    *,
    max_cost: float | JudgeCap | None,
    progress: ProgressFn,
) -> AlignReport:
    """Score the version and every candidate here; save the best as a new, unapproved
    version when it beats the current one on the holdout."""
    report = asyncio.run(
        run_alignment(services.engine(), chosen, tried, max_cost=max_cost, progress=progress)
    )
    services.changed()
    return report


def judge_names() -> list[str]:
    """The saved judges a person may pick to write the guidelines, by name."""
    with services.reading() as session:
        return sorted(profile.name for profile in list_judge_profiles(session))
