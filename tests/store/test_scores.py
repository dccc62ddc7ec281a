"""Stored scores: insert-or-ignore, keyset history pages, and SQL aggregates equal to Python."""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta

import pytest

from scorer_runtime.store import (
    ExampleData,
    ScoreFilter,
    add_scores,
    create_run,
    get_score,
    list_examples,
    list_scores,
    mean_per_day,
    outcome_counts,
    read_session,
    score_histogram,
    score_stats,
    session_scope,
)
from scorer_runtime.types import OUTCOMES
from tests.store.fixtures import make_dataset, make_version

START = datetime(2026, 10, 1, tzinfo=UTC)


@pytest.fixture
def history(engine):
    """1,200 scores over two scorers (two versions each) and ten days, in random order."""
    rng = random.Random(7)
    versions = [make_version(engine, "tone"), make_version(engine, "tone", description="second")]
    versions += [
        make_version(engine, "length"),
        make_version(engine, "length", description="second"),
    ]
    datasets = [make_dataset(engine, f"d{i}", [ExampleData(output="a")]) for i in range(2)]
    rows = []
    for i in range(1200):
        scorer_id, version_id = rng.choice(versions)
        outcome = rng.choice([*OUTCOMES, "scored", "scored", "scored"])
        # Minute resolution: many rows share a timestamp, so the id must break ties.
        at = START + timedelta(minutes=rng.randrange(0, 10 * 24 * 60, 7))
        rows.append(
            {
                "scorer_id": scorer_id,
                "scorer_version_id": version_id,
                "dataset_id": rng.choice(datasets),
                "outcome": outcome,
                "score": round(rng.random() * 4 - 1, 3) if outcome == "scored" else None,
                "reason": f"r{i}",
                "cost": rng.choice([None, 0.001, 0.002]),
                "created_at": at,
            }
        )
    with session_scope(engine) as session:
        add_scores(session, rows=rows)
    return rows, versions, datasets


def _matches(row, f: ScoreFilter) -> bool:
    for name in ("scorer_id", "scorer_version_id", "dataset_id"):
        if getattr(f, name) is not None and row[name] != getattr(f, name):
            return False
    if f.outcomes is not None and row["outcome"] not in f.outcomes:
        return False
    if f.since is not None and row["created_at"] < f.since:
        return False
    return not (f.until is not None and row["created_at"] >= f.until)


def _filters(versions, datasets):
    (tone_id, tone_v1), (_, tone_v2) = versions[0], versions[1]
    return [
        ScoreFilter(),
        ScoreFilter(scorer_id=tone_id),
        ScoreFilter(scorer_version_id=tone_v2),
        ScoreFilter(scorer_id=tone_id, dataset_id=datasets[1]),
        ScoreFilter(scorer_version_id=tone_v1, outcomes=("scored", "not_scorable")),
        ScoreFilter(since=START + timedelta(days=2), until=START + timedelta(days=5, hours=3)),
        ScoreFilter(scorer_id=tone_id, since=START + timedelta(days=20)),  # nothing matches
    ]


def test_history_pages_walk_every_row_newest_first(engine, history):
    rows, versions, datasets = history
    with read_session(engine) as session:
        for f in _filters(versions, datasets):
            expected = [
                r["reason"]
                for i, r in sorted(
                    ((i, r) for i, r in enumerate(rows) if _matches(r, f)),
                    key=lambda p: (p[1]["created_at"], p[0]),
                    reverse=True,
                )
            ]
            seen, cursor = [], None
            while True:
                page = list_scores(session, filter=f, after=cursor, limit=37)
                seen += [row.reason for row in page.rows]
                if page.next_cursor is None:
                    break
                cursor = page.next_cursor
            assert seen == expected


def test_aggregates_equal_a_python_computation_on_the_same_rows(engine, history):
    rows, versions, datasets = history
    threshold = 0.5
    with read_session(engine) as session:
        for f in _filters(versions, datasets):
            mine = [r for r in rows if _matches(r, f)]
            scores = [r["score"] for r in mine if r["outcome"] == "scored"]
            stats = score_stats(session, filter=f, threshold=threshold)
            assert stats.count == len(scores)
            assert stats.total == len(mine)
            assert stats.outcome_counts == dict(Counter(r["outcome"] for r in mine))
            assert outcome_counts(session, filter=f) == stats.outcome_counts
            assert stats.cost == pytest.approx(math.fsum(r["cost"] or 0 for r in mine))
            if not scores:
                assert (stats.mean, stats.median, stats.pass_rate) == (None, None, None)
                assert score_histogram(session, filter=f) == []
                continue
            assert stats.mean == pytest.approx(statistics.fmean(scores))
            assert stats.median == pytest.approx(statistics.median(scores))
            assert (stats.min, stats.max) == (min(scores), max(scores))
            assert stats.pass_rate == pytest.approx(
                sum(s >= threshold for s in scores) / len(scores)
            )
            _check_histogram(session, f, scores)
            _check_daily(session, f, [r for r in mine if r["outcome"] == "scored"])


def _check_histogram(session, f, scores):
    for bins, lo, hi in ((10, None, None), (4, 0.0, 1.0), (1, None, None)):
        got = score_histogram(session, filter=f, bins=bins, lo=lo, hi=hi)
        low = min(scores) if lo is None else lo
        high = max(scores) if hi is None else hi
        counts = Counter()
        for s in scores:
            if not low <= s <= high:
                continue
            b = bins - 1 if s >= high else int((s - low) * float(bins) / (high - low))
            counts[b] += 1
        assert [b.count for b in got] == [counts[i] for i in range(bins)]
        assert got[0].lo == low
        assert got[-1].hi == pytest.approx(high)


def _check_daily(session, f, scored_rows):
    by_day = defaultdict(list)
    for r in scored_rows:
        by_day[r["created_at"].date()].append(r["score"])
    got = mean_per_day(session, filter=f)
    assert [(d.day, d.count) for d in got] == [(day, len(v)) for day, v in sorted(by_day.items())]
    for d in got:
        assert d.mean == pytest.approx(statistics.fmean(by_day[d.day]))


def test_median_of_an_even_count_averages_the_middle_two(engine):
    scorer_id, version_id = make_version(engine)
    base = {"scorer_id": scorer_id, "scorer_version_id": version_id, "outcome": "scored"}
    with session_scope(engine) as session:
        add_scores(session, rows=[{**base, "score": s} for s in (4.0, 1.0, 3.0, 2.0)])
        assert score_stats(session).median == 2.5


def test_a_run_stores_each_example_once_whatever_is_inserted_again(engine):
    dataset_id = make_dataset(engine, "faq", [ExampleData(output=str(i)) for i in range(3)])
    scorer_id, version_id = make_version(engine)
    with session_scope(engine) as session:
        run = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
        examples = list_examples(session, dataset_id=dataset_id)

    def row(example, score):
        return {
            "run_id": run.id,
            "example_id": example.id,
            "scorer_id": scorer_id,
            "scorer_version_id": version_id,
            "outcome": "scored",
            "score": score,
        }

    with session_scope(engine) as session:
        add_scores(session, rows=[row(examples[0], 0.1), row(examples[1], 0.2)])
    with session_scope(engine) as session:  # a resumed runner writing the same examples again
        add_scores(session, rows=[row(e, 0.9) for e in examples])
    with read_session(engine) as session:
        page = list_scores(session, filter=ScoreFilter(run_id=run.id))
        full = get_score(session, score_id=page.rows[0].id)
    assert sorted((r.example_id, r.score) for r in page.rows) == [
        (examples[0].id, 0.1),
        (examples[1].id, 0.2),
        (examples[2].id, 0.9),
    ]
    assert full.step_results is None
    assert full.outcome == "scored"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"outcome": "great"}, "outcome must be one of"),
        ({"score": None}, "needs a finite score"),
        ({"score": float("nan")}, "needs a finite score"),
        ({"outcome": "step_error"}, "must have no score"),
        ({"colour": "red"}, "no column colour"),
    ],
)
def test_bad_score_rows_are_refused_before_anything_is_written(engine, change, message):
    scorer_id, version_id = make_version(engine)
    good = {
        "scorer_id": scorer_id,
        "scorer_version_id": version_id,
        "outcome": "scored",
        "score": 1.0,
    }
    with pytest.raises(ValueError, match=message), session_scope(engine) as session:
        add_scores(session, rows=[good, {**good, **change}])
    with read_session(engine) as session:
        assert score_stats(session).total == 0
