"""Reads behind browsing results, on a real database holding 260 results: names, runs to pick
from, pass counts, spread, trends per version, and the stream a download reads."""

from __future__ import annotations

import statistics
from collections import defaultdict
from datetime import date

import pytest

from scorer_runtime.store import (
    NotFoundError,
    ScoreFilter,
    list_runs,
    list_scores,
    load_names,
    read_session,
)
from scorer_runtime.store.aggregates import pass_count, score_spread
from scorer_runtime.store.scores import iter_score_rows
from scorer_runtime.store.views import get_score_with_example
from scorer_runtime.store.views.results_page import version_trends
from tests.store.history import History, seed_history


@pytest.fixture
def history(engine) -> History:
    return seed_history(engine)


def _scored(rows):
    return [r["score"] for r in rows if r["outcome"] == "scored"]


def test_names_of_scorers_versions_and_datasets(engine, history):
    with read_session(engine) as session:
        names = load_names(session)
    assert names.scorer(history.tone) == "tone"
    assert names.version(history.tone_v2) == "tone v2"
    assert names.version(history.tone_v2, with_scorer=False) == "v2"
    assert names.dataset(history.support) == "support"
    assert (names.scorer(None), names.version(999), names.dataset(None)) == ("—", "—", "—")
    assert names.archived_scorers == frozenset()


def test_runs_to_pick_follow_the_filters_newest_first(engine, history):
    with read_session(engine) as session:
        every = list_runs(session, limit=200)
        tone_v1 = list_runs(session, version_id=history.tone_v1)
        tone_support = list_runs(session, scorer_id=history.tone, dataset_id=history.support)
        newest = list_runs(session, limit=1)
    assert [r.id for r in every] == [history.run3, history.run2, history.run1]
    assert [r.id for r in tone_v1] == [history.run1]
    assert [r.id for r in tone_support] == [history.run2, history.run1]
    assert [r.id for r in newest] == [history.run3]


def test_pass_count_and_spread_match_the_scores(engine, history):
    run2 = history.of_run(history.run2)
    scores = _scored(run2)
    with read_session(engine) as session:
        run_filter = ScoreFilter(run_id=history.run2)
        passed = pass_count(session, filter=run_filter, threshold=0.6)
        spread = score_spread(session, filter=run_filter)
        nothing = score_spread(session, filter=ScoreFilter(run_id=999))
    assert passed == sum(1 for s in scores if s >= 0.6)
    assert spread == pytest.approx(statistics.pstdev(scores))
    assert nothing is None


def test_trends_give_each_versions_daily_mean(engine, history):
    expected: dict[tuple[str, date], list[float]] = defaultdict(list)
    for row in history.rows:
        if row["outcome"] == "scored" and row["scorer_id"] == history.tone:
            v = "v1" if row["scorer_version_id"] == history.tone_v1 else "v2"
            expected[(v, row["created_at"].date())].append(row["score"])
    with read_session(engine) as session:
        names = load_names(session)
        trends = version_trends(session, filter=ScoreFilter(scorer_id=history.tone), names=names)
        capped = version_trends(session, filter=ScoreFilter(), names=names, max_versions=1)
    got = {(p.version, p.day): (p.count, p.mean) for p in trends.points}
    assert got.keys() == expected.keys()
    for key, scores in expected.items():
        assert got[key][0] == len(scores)
        assert got[key][1] == pytest.approx(statistics.mean(scores))
    # Across scorers, lines are named with the scorer; only the busiest version is kept.
    assert (capped.versions_shown, capped.versions_total) == (1, 3)
    assert {p.version for p in capped.points} == {"tone v1"}


def test_a_download_streams_the_history_order_up_to_its_cap(engine, history):
    chosen = ScoreFilter(run_id=history.run2)
    with read_session(engine) as session:
        streamed = list(iter_score_rows(session, filter=ScoreFilter(), cap=30, page_size=4))
        every = list(iter_score_rows(session, filter=chosen))
        pages = list_scores(session, filter=ScoreFilter(), limit=30).rows
        expected = list_scores(session, filter=chosen, limit=1000).rows
    assert streamed == pages
    assert every == expected
    assert len(every) == len(history.of_run(history.run2))


def test_one_score_comes_with_the_example_it_scored(engine, history):
    with read_session(engine) as session:
        first = list_scores(session, filter=ScoreFilter(run_id=history.run1), limit=1).rows[0]
        record, example = get_score_with_example(session, score_id=first.id)
        with pytest.raises(NotFoundError):
            get_score_with_example(session, score_id=99_999)
    assert record.id == first.id
    assert example is not None
    assert example.id == first.example_id
    assert example.input.startswith("support question ")
