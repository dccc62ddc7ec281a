"""The Trust page's reads and writes for stability checks and version A/B (through the
store's package API and :mod:`scorer_runtime.trust`)."""

from __future__ import annotations

import asyncio

import streamlit as st

from scorer_runtime.batch import share_keys
from scorer_runtime.costs import CostEstimate, estimate_dataset
from scorer_runtime.runs import RunRefusedError
from scorer_runtime.store import (
    RunInfo,
    database_url,
    example_outputs,
    get_version_by_id,
    latest_stability_check,
    list_runs,
    list_versions,
    read_session,
)
from scorer_runtime.trust.ab import AbReport, ab_report, queue_missing, runs_to_compare
from scorer_runtime.trust.stability import (
    StabilityPlan,
    StabilityReport,
    VersionFlipRate,
    check_report,
    flip_rates,
    plan_stability,
    start_check,
    stop_check,
)
from studio import services

_OPEN = ("queued", "running")


def versions(scorer_id: int) -> dict[int, int]:
    """The scorer's versions, newest first: version id → version number."""
    with services.reading() as session:
        found = list_versions(session, scorer_id=scorer_id)
    return {v.id: v.version for v in sorted(found, key=lambda v: -v.version)}


def asks_judge(version_id: int) -> bool:
    """Whether the version has a step that asks the judge (one that has none cannot flip)."""
    with services.reading() as session:
        return bool(get_version_by_id(session, version_id=version_id).spec.prompt_steps())


def plan(version_id: int, dataset_id: int, sample: int, repeats: int) -> StabilityPlan:
    """The check the form describes (ValueError, in words, for one that cannot run)."""
    with services.reading() as session:
        return plan_stability(
            session,
            scorer_version_id=version_id,
            dataset_id=dataset_id,
            sample=sample,
            repeats=repeats,
        )


def _share_keys(version_ids: list[int]) -> None:
    # A key pasted in the studio after its runner started: the runner gets it now.
    from scorer_runtime.saved_scorers import judge_profiles

    with services.reading() as session:
        specs = [get_version_by_id(session, version_id=v).spec for v in version_ids]
        profiles = judge_profiles(session)  # a judge named by its saved profile: its key too
    share_keys({env for spec in specs for env in spec.key_envs(profiles)})


def start(chosen: StabilityPlan) -> int:
    """Store the check and queue its repeats for the runner; the check's id."""
    _share_keys([chosen.scorer_version_id])
    check_id = start_check(services.engine(), chosen)
    services.changed()
    return check_id


def stop(check_id: int) -> int:
    """Cancel every repeat of the check that has not ended; how many were asked to stop."""
    asked = stop_check(services.engine(), check_id)
    services.changed()
    return len(asked)


def latest_report(version_id: int, dataset_id: int) -> StabilityReport | None:
    """The newest check of the version on the dataset as it stands, read now."""
    with services.reading() as session:
        check = latest_stability_check(session, scorer_version_id=version_id, dataset_id=dataset_id)
        return None if check is None else check_report(session, check_id=check.id)


def outputs(example_ids: list[int]) -> dict[int, object]:
    """Each example's output, to show beside its id."""
    with services.reading() as session:
        return example_outputs(session, example_ids=example_ids)


def rates(scorer_id: int) -> list[VersionFlipRate]:
    """Each version's flip rate from its latest ended check."""
    with services.reading() as session:
        return flip_rates(session, scorer_id=scorer_id)


def compared_runs(a: int, b: int, dataset_id: int) -> tuple[RunInfo | None, RunInfo | None]:
    """Each version's latest finished run of the whole dataset, read now."""
    with services.reading() as session:
        return runs_to_compare(session, version_a=a, version_b=b, dataset_id=dataset_id)


def open_run(version_id: int, dataset_id: int) -> RunInfo | None:
    """A run of the whole dataset by the version that is queued or running, if any."""
    with services.reading() as session:
        found = list_runs(session, version_id=version_id, dataset_id=dataset_id, limit=20)
    return next((r for r in found if r.status in _OPEN and not r.of_check), None)


def ab(run_a: RunInfo, run_b: RunInfo) -> AbReport:
    with services.reading() as session:
        return ab_report(session, run_a=run_a, run_b=run_b)


def score_missing(version_ids: list[int], dataset_id: int) -> str | None:
    """Queue a run for each version without a finished one; why not, in words, or None."""
    _share_keys(version_ids)
    try:
        queue_missing(services.engine(), version_ids=version_ids, dataset_id=dataset_id)
    except RunRefusedError as error:
        return str(error)
    finally:
        services.changed()
    return None


def stopped_run(version_id: int, dataset_id: int) -> RunInfo | None:
    """The version's newest run of the whole dataset when its spend cap stopped it (to be
    resumed with a higher cap rather than scored again from the start)."""
    with services.reading() as session:
        found = list_runs(session, version_id=version_id, dataset_id=dataset_id, limit=20)
    newest = next((r for r in found if not r.of_check), None)
    return newest if newest is not None and newest.status == "stopped" else None


def judge_cap(version_id: int) -> float | None:
    """The default spend cap of the version's judge: what the runs a check queues stop at."""
    return _judge_cap(database_url(), version_id)


@services.cached(ttl=30)
def _judge_cap(url: str, version_id: int) -> float | None:
    from scorer_runtime.costs.cap import default_cap
    from scorer_runtime.saved_scorers import compile_version

    try:
        with read_session(services.engine(url)) as session:
            scorer = compile_version(session, get_version_by_id(session, version_id=version_id))
    except Exception:  # a version that does not compile says so where it is started
        return None
    return default_cap(scorer)


def cost(version_id: int, dataset_id: int, scorings: int | None = None) -> CostEstimate | str:
    """What ``scorings`` scorings of the version cost (None: the whole dataset once), estimated
    on a sample of the dataset without calling the judge; why not, in words, when it cannot be."""
    return _cost(database_url(), version_id, dataset_id, scorings)


@st.cache_data(ttl=30, show_spinner="Estimating the cost…")
def _cost(url: str, version_id: int, dataset_id: int, scorings: int | None) -> CostEstimate | str:
    from scorer_runtime.saved_scorers import compile_version

    engine = services.engine(url)
    try:
        with read_session(engine) as session:
            scorer = compile_version(session, get_version_by_id(session, version_id=version_id))
        made = asyncio.run(estimate_dataset(engine, scorer, dataset_id=dataset_id))
    except Exception as error:  # the estimate is a help: say why it is missing, go on
        return f"The cost could not be estimated: {error}"
    return made if scorings is None else made.scaled(scorings)
