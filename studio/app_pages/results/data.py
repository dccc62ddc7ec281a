"""Cached reads for the Results and Compare runs pages, keyed by the database URL and plain
arguments.

Writes in the studio clear these caches (``services.changed()``); a batch run writes scores
from outside the studio's sessions, so score reads also expire after a few seconds and the
pages offer a refresh. Each read opens its own read-only session.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from scorer_runtime.store import (
    HistogramBin,
    NameBook,
    NotFoundError,
    ScorePage,
    ScoreStats,
    database_url,
    list_runs,
    list_scores,
    load_names,
    pass_count,
    score_histogram,
    score_spread,
    score_stats,
)
from scorer_runtime.store import views as cmp
from scorer_runtime.store.views import Trends, version_trends
from studio import services
from studio.app_pages.results.logic import PAGE_SIZE, example_previews, run_choices, version_title
from studio.widgets import pickers
from studio.widgets.results_filter import Choice, ResultsFilter
from studio.widgets.score_view import load_score

_TTL = 10
"""Seconds a score read is reused: short, since runs add scores while the page is open."""
_cached = services.cached(ttl=_TTL)


def refresh() -> None:
    """Forget every cached read (the page's "Refresh" button)."""
    services.changed()


def names() -> NameBook:
    """Scorer, version and dataset names."""
    return _names(database_url())


@_cached
def _names(url: str) -> NameBook:
    with services.reading() as session:
        return load_names(session)


def titles() -> dict[int, str]:
    """What the page calls each scorer: its display name (see ``pickers.scorer_titles_by_id``)."""
    return pickers.scorer_titles_by_id()


def runs(scorer_id: int | None, version_id: int | None, dataset_id: int | None) -> list[Choice]:
    """Runs to choose from, newest first."""
    return _runs(database_url(), scorer_id, version_id, dataset_id)


@_cached
def _runs(
    url: str, scorer_id: int | None, version_id: int | None, dataset_id: int | None
) -> list[Choice]:
    with services.reading() as session:
        return run_choices(
            session,
            _names(url),
            scorer_id=scorer_id,
            version_id=version_id,
            dataset_id=dataset_id,
            titles=titles(),
        )


def stats(filter: ResultsFilter) -> ScoreStats:
    """Count, mean, median, range, outcome counts and cost of the filtered scores."""
    return _stats(database_url(), filter)


@_cached
def _stats(url: str, filter: ResultsFilter) -> ScoreStats:
    with services.reading() as session:
        return score_stats(session, filter=filter.score_filter())


def scorers_in(filter: ResultsFilter) -> list[tuple[int, ScoreStats]]:
    """Each scorer that has results matching ``filter``, with the stats of its own results
    (what the page shows instead of one mean when several scorers are mixed)."""
    found = []
    for scorer_id in names().scorers:
        own = stats(replace(filter, scorer_id=scorer_id))
        if own.total:
            found.append((scorer_id, own))
    return found


def spread(filter: ResultsFilter) -> float | None:
    """Standard deviation of the filtered scores."""
    return _spread(database_url(), filter)


@_cached
def _spread(url: str, filter: ResultsFilter) -> float | None:
    with services.reading() as session:
        return score_spread(session, filter=filter.score_filter())


def passed(filter: ResultsFilter, threshold: float) -> int:
    """Scored results at or above the threshold."""
    return _passed(database_url(), filter, threshold)


@_cached
def _passed(url: str, filter: ResultsFilter, threshold: float) -> int:
    with services.reading() as session:
        return pass_count(session, filter=filter.score_filter(), threshold=threshold)


def inputs(example_ids: tuple[int, ...]) -> dict[int, str]:
    """A one-line preview of each example's input (what the table and picker lead with)."""
    return _inputs(database_url(), example_ids)


@_cached
def _inputs(url: str, example_ids: tuple[int, ...]) -> dict[int, str]:
    with services.reading() as session:
        return example_previews(session, ids=list(example_ids))


def page(filter: ResultsFilter, after: tuple[datetime, int] | None) -> ScorePage:
    """One page of the table, newest first."""
    return _page(database_url(), filter, after)


@_cached
def _page(url: str, filter: ResultsFilter, after: tuple[datetime, int] | None) -> ScorePage:
    with services.reading() as session:
        return list_scores(session, filter=filter.score_filter(), after=after, limit=PAGE_SIZE)


def histogram(filter: ResultsFilter, lo: float, hi: float, bins: int = 10) -> list[HistogramBin]:
    """Histogram bins counted in SQL."""
    return _histogram(database_url(), filter, lo, hi, bins)


@_cached
def _histogram(
    url: str, filter: ResultsFilter, lo: float, hi: float, bins: int
) -> list[HistogramBin]:
    with services.reading() as session:
        return score_histogram(session, filter=filter.score_filter(), bins=bins, lo=lo, hi=hi)


def trends(filter: ResultsFilter) -> Trends:
    """Mean per day and version, from SQL."""
    return _trends(database_url(), filter)


@_cached
def _trends(url: str, filter: ResultsFilter) -> Trends:
    with services.reading() as session:
        found = version_trends(session, filter=filter.score_filter(), names=_names(url))
    names, titles = _names(url), pickers.scorer_titles_by_id()
    # A line named with its scorer is named as people call the scorer (its display name).
    points = [
        p
        if p.version.startswith("v")
        else replace(p, version=version_title(names, titles, p.version_id))
        for p in found.points
    ]
    return replace(found, points=points)


def score(score_id: int) -> dict[str, Any] | None:
    """One score with its evidence and example (None when it no longer exists)."""
    return _score(database_url(), score_id)


@_cached
def _score(url: str, score_id: int) -> dict[str, Any] | None:
    with services.reading() as session:
        try:
            return load_score(session, score_id=score_id, names=_names(url))
        except NotFoundError:
            return None


# -- Compare runs ---------------------------------------------------------------------------


def default_pair() -> cmp.RunPair | None:
    """The newest run with an earlier run on its dataset, and that earlier run."""
    return _default_pair(database_url())


@_cached
def _default_pair(url: str) -> cmp.RunPair | None:
    with services.reading() as session:
        return cmp.default_pair(session)


def version_pair(scorer_id: int) -> tuple[int, int, int] | None:
    """(older version, newer version, dataset): the scorer's newest finished run's version
    and dataset, and the newest other version with a finished run on that dataset; None when
    no two of its versions ran on one dataset."""
    return _version_pair(database_url(), scorer_id)


@_cached
def _version_pair(url: str, scorer_id: int) -> tuple[int, int, int] | None:
    with services.reading() as session:
        found = list_runs(session, scorer_id=scorer_id, limit=200, repeats=False)
    runs = [r for r in found if r.done_count]
    if not runs:
        return None
    newest = runs[0]
    for run in runs[1:]:
        other = run.scorer_version_id != newest.scorer_version_id
        if other and run.dataset_id == newest.dataset_id:
            older, newer = sorted((run.scorer_version_id, newest.scorer_version_id))
            return older, newer, newest.dataset_id
    return None


def run_facts(run_id: int) -> cmp.RunFacts | None:
    """A run's version, dataset, status and start (None when it is gone)."""
    return _run_facts(database_url(), run_id)


@_cached
def _run_facts(url: str, run_id: int) -> cmp.RunFacts | None:
    with services.reading() as session:
        return cmp.run_facts(session, run_id=run_id)


def latest_run(version_id: int, dataset_id: int) -> int | None:
    """The run a version's side of a comparison uses on a dataset."""
    return _latest_run(database_url(), version_id, dataset_id)


@_cached
def _latest_run(url: str, version_id: int, dataset_id: int) -> int | None:
    with services.reading() as session:
        run = cmp.latest_run(session, version_id=version_id, dataset_id=dataset_id)
        return run.id if run is not None else None


def compare_summary(pair: cmp.RunPair, threshold: float) -> cmp.CompareSummary:
    """Summary deltas of two runs."""
    return _compare_summary(database_url(), pair, threshold)


@_cached
def _compare_summary(url: str, pair: cmp.RunPair, threshold: float) -> cmp.CompareSummary:
    with services.reading() as session:
        return cmp.compare_summary(session, pair=pair, threshold=threshold)


def compare_count(pair: cmp.RunPair, threshold: float, only_changed: bool) -> int:
    """How many examples the comparison table lists."""
    return _compare_count(database_url(), pair, threshold, only_changed)


@_cached
def _compare_count(url: str, pair: cmp.RunPair, threshold: float, only_changed: bool) -> int:
    with services.reading() as session:
        return cmp.count_rows(session, pair=pair, threshold=threshold, only_changed=only_changed)


def compare_page(
    pair: cmp.RunPair, threshold: float, offset: int, only_changed: bool
) -> tuple[list[cmp.CompareRow], dict[int, str], dict[int, int]]:
    """A page of the comparison, the input previews of its examples and their numbers in
    the dataset (as the Examples page numbers them)."""
    return _compare_page(database_url(), pair, threshold, offset, only_changed)


@_cached
def _compare_page(
    url: str, pair: cmp.RunPair, threshold: float, offset: int, only_changed: bool
) -> tuple[list[cmp.CompareRow], dict[int, str], dict[int, int]]:
    with services.reading() as session:
        rows = cmp.compare_rows(
            session,
            pair=pair,
            threshold=threshold,
            offset=offset,
            limit=PAGE_SIZE,
            only_changed=only_changed,
        )
        ids = [r.example_id for r in rows]
        return rows, example_previews(session, ids=ids), cmp.example_numbers(session, ids=ids)
