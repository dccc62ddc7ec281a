"""The Runs page's reads and actions: cached choices and plans, live run rows, and start /
cancel / resume (each a write through ``services.writing()``, which clears the caches).

Choices and plans are cached per database URL; a run's row is read fresh on every render,
since a process outside the studio is moving it.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime

from scorer_runtime.batch import (
    BatchSummary,
    share_keys,
    summarize_run,
)
from scorer_runtime.costs import CostEstimate, estimate_dataset
from scorer_runtime.runs import RunRequest, plan_run, start_run
from scorer_runtime.store import (
    ScoreFilter,
    ScoreRow,
    database_url,
    get_run,
    get_version_by_id,
    graded_scale,
    list_scorers,
    list_scores,
    list_versions,
    newest_answer_at,
    read_session,
    request_cancel,
)
from scorer_runtime.store.views import (
    RunLine,
    RunsPage,
    cached_answer_counts,
    example_inputs,
    run_line,
    runs_page,
    scorer_titles,
)
from studio import services
from studio.app_pages.runs.logic import (
    PAGE_SIZE,
    Problem,
    RunPlan,
    key_checks,
    plan_problems,
    preview,
    read_run_plan,
)

_cached = services.cached(ttl=30)


@dataclass(frozen=True, slots=True)
class ScorerChoice:
    """A scorer to pick: id, name and what it judges."""

    id: int
    name: str
    description: str
    title: str = ""
    """What people call it: its display name (see ``scorer_titles``), else its name."""


@dataclass(frozen=True, slots=True)
class VersionChoice:
    """A version to pick (newest first)."""

    id: int
    version: int
    note: str
    created_at: datetime


def scorers() -> list[ScorerChoice]:
    """Scorers that are not archived, by name."""
    return _scorers(database_url())


@_cached
def _scorers(url: str) -> list[ScorerChoice]:
    with services.reading() as session:
        titles = scorer_titles(session)
        found = [
            ScorerChoice(s.id, s.name, s.description, titles.get(s.id, s.name))
            for s in list_scorers(session)
            if s.id is not None
        ]
        return sorted(found, key=lambda s: s.title.casefold())


def title(scorer_id: int, name: str) -> str:
    """What people call the scorer (its display name); ``name`` when it is archived."""
    return next((s.title for s in scorers() if s.id == scorer_id and s.title), name)


def versions(scorer_id: int) -> list[VersionChoice]:
    """The scorer's versions, newest first."""
    return _versions(database_url(), scorer_id)


@_cached
def _versions(url: str, scorer_id: int) -> list[VersionChoice]:
    with services.reading() as session:
        return [
            VersionChoice(v.id, v.version, v.note, v.created_at)
            for v in list_versions(session, scorer_id=scorer_id)
            if v.id is not None
        ]


def plan(version_id: int, dataset_id: int) -> RunPlan:
    """What a run of this version on this dataset needs (compiled once, then cached)."""
    return _plan(database_url(), version_id, dataset_id)


@_cached
def _plan(url: str, version_id: int, dataset_id: int) -> RunPlan:
    with services.reading() as session:
        return read_run_plan(session, version_id=version_id, dataset_id=dataset_id)


_EstimateKey = tuple[str, int, int, int | None, bool, datetime | None, int]
_ESTIMATES: dict[_EstimateKey, Future[CostEstimate]] = {}
"""Cost estimates being made or made, by database, version, dataset, run, whether the run
takes answers from the cache, and half-minute."""
_ESTIMATOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cost-estimate")
_ESTIMATES_LOCK = threading.Lock()


def cost(
    chosen: RunPlan, run_id: int | None = None, *, use_cache: bool = True
) -> Future[CostEstimate] | None:
    """What the run (or what ``run_id`` has left) will cost, made in the background (the first
    estimate loads the model client, seconds); None when the version does not compile (its
    problems are listed instead). An estimate is made again after half a minute.
    ``use_cache``: the run takes answers from the judge answer cache (a resumed run: as it
    was started); those already there are counted as cached, with nothing to pay."""
    if chosen.spec_problems:
        return None
    url = database_url()
    # Made again every half minute, and at once when the scorer's answers grew (a run ended).
    newest = _newest_answer(chosen.scorer_id) if use_cache else None
    key: _EstimateKey = (
        url,
        chosen.version_id,
        chosen.dataset_id,
        run_id,
        use_cache,
        newest,
        int(time.time() // 30),
    )
    with _ESTIMATES_LOCK:
        if key not in _ESTIMATES:
            for old in [k for k in _ESTIMATES if k[:5] == key[:5]]:
                del _ESTIMATES[old]
            _ESTIMATES[key] = _ESTIMATOR.submit(_estimate, chosen, run_id, url, use_cache)
        return _ESTIMATES[key]


def _newest_answer(scorer_id: int) -> datetime | None:
    with services.reading() as session:
        return newest_answer_at(session, scorer_id=scorer_id)


def _estimate(chosen: RunPlan, run_id: int | None, url: str, use_cache: bool) -> CostEstimate:
    # On the estimator's thread: the database is the one the estimate was asked for (``url``),
    # not whatever the setting says when the thread gets to it.
    from scorer_runtime.saved_scorers import compile_version

    engine = services.engine(url)
    with read_session(engine) as session:
        version = get_version_by_id(session, version_id=chosen.version_id)
        scorer = compile_version(session, version)
    found = estimate_dataset(
        engine, scorer, dataset_id=chosen.dataset_id, run_id=run_id, use_cache=use_cache
    )
    return asyncio.run(found)


def problems(chosen: RunPlan) -> list[Problem]:
    """What stops the run, checked against the studio's environment now (keys can change)."""
    return plan_problems(chosen, os.environ)


def line(run_id: int) -> RunLine | None:
    """The run's row, names and mean, read now."""
    with services.reading() as session:
        return run_line(session, run_id=run_id)


def newest_scores(
    run_id: int, limit: int = 10
) -> tuple[list[ScoreRow], dict[int, str], dict[int, tuple[int, int]]]:
    """The run's newest results (newest first), their examples' inputs, and how many of each
    result's judge answers came from the cache (of how many), read now."""
    with services.reading() as session:
        rows = list_scores(session, filter=ScoreFilter(run_id=run_id), limit=limit).rows
        ids = [r.example_id for r in rows if r.example_id is not None]
        inputs = {i: preview(v) for i, v in example_inputs(session, ids=ids).items()}
        return rows, inputs, cached_answer_counts(session, score_ids=[r.id for r in rows])


def page(before_id: int | None) -> RunsPage:
    """A page of runs, newest first, read now (runs move while the page is open)."""
    with services.reading() as session:
        return runs_page(session, before_id=before_id, limit=PAGE_SIZE)


def saved_pass_mark(version_id: int) -> float:
    """The pass mark stored for a version: its scorer's saved trust policy's, else the
    scale's own (what a value typed on another page and not saved never changes)."""
    return _saved_pass_mark(database_url(), version_id)


@_cached
def _saved_pass_mark(url: str, version_id: int) -> float:
    with services.reading() as session:
        return graded_scale(session, scorer_version_id=version_id).pass_mark


def summary(run_id: int, threshold: float) -> BatchSummary:
    """The run's mean, median, pass rate, outcome mix and cost, with the verdict."""
    with services.reading() as session:
        return summarize_run(session, run_id=run_id, threshold=threshold)


def _share_keys(chosen: RunPlan) -> None:
    # A key pasted in the studio after its runner started: the runner gets it now.
    share_keys(check.env for check in key_checks(chosen, os.environ))


def start(
    chosen: RunPlan,
    concurrency: int,
    max_cost: float | None = None,
    allow_unpriced: bool = False,
    *,
    use_cache: bool = True,
) -> int:
    """Queue a new run of the plan for the runner (under the spend cap ``max_cost``); its id.
    Refused in words (RunRefusedError, CapError) when the judge's key is not set or the cap
    cannot be kept. ``use_cache``: judge answers may come from the judge answer cache."""
    _share_keys(chosen)
    request = RunRequest(
        chosen.version_id,
        chosen.dataset_id,
        where="queue",
        concurrency=concurrency,
        use_cache=use_cache,
        max_cost=max_cost,
        allow_unpriced=allow_unpriced,
    )
    engine = services.engine()
    run = start_run(engine, plan_run(engine, request))
    services.changed()
    return run.id


def resume(
    run: RunLine, chosen: RunPlan, max_cost: float | None = None, allow_unpriced: bool = False
) -> None:
    """Queue the run again, under the spend cap ``max_cost`` (None: no cap): the runner
    scores its examples that have no result yet."""
    _share_keys(chosen)
    engine = services.engine()
    with services.reading() as session:
        stored = get_run(session, run_id=run.run_id)
    request = RunRequest.resuming(
        stored, where="queue", max_cost=max_cost, allow_unpriced=allow_unpriced
    )
    start_run(engine, plan_run(engine, request))
    services.changed()


def cancel(run_id: int) -> None:
    """Ask the run to stop after the examples in flight; a queued run stops at once."""
    with services.writing() as session:
        request_cancel(session, run_id=run_id)
