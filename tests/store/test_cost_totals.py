"""Cost totals say how much of them is known: priced and unpriced results, counted in SQL.

A stored cost is NULL exactly when the judge was called and litellm had no price for the
model (a result without judge calls is stored with cost 0; tests/batch checks the writer):
NULL is unpriced, a positive cost priced, zero neither. The SQL counts are checked against
that rule applied in Python.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func
from sqlalchemy import select as sa_select

from scorer_runtime.store import (
    ExampleData,
    ScoreFilter,
    add_scores,
    create_run,
    list_examples,
    read_session,
    score_stats,
    session_scope,
)
from scorer_runtime.store.aggregates import cost_total, priced_unpriced_columns
from scorer_runtime.store.tables import ScoreRecord
from tests.store.fixtures import counting_selects, make_dataset, make_version

START = datetime(2026, 11, 1, tzinfo=UTC)
# (attempts, cost): priced judge calls, one priced at $0 (a free model), an unpriced one, a
# function-only result (cost 0, no call), and a row written by hand with a cost but no attempts.
KINDS = [(1, 0.002), (3, 0.0004), (1, 0.0), (2, None), (0, 0.0), (0, 0.001)]


def _priced(row) -> bool:
    return row["cost"] is not None and row["cost"] > 0


def _unpriced(row) -> bool:
    return row["cost"] is None


@pytest.fixture
def runs(engine):
    """Three runs (two versions of one scorer, one of another) of mixed priced, unpriced and
    judge-free results, in random order; returns (rows, run ids, scorer ids)."""
    rng = random.Random(11)
    versions = [make_version(engine, "tone"), make_version(engine, "tone", description="second")]
    versions.append(make_version(engine, "length"))
    dataset_id = make_dataset(engine, "d", [ExampleData(output=f"a{i}") for i in range(60)])
    rows, run_ids = [], []
    with session_scope(engine) as session:
        examples = [e.id for e in list_examples(session, dataset_id=dataset_id, limit=100)]
        for scorer_id, version_id in versions:
            run = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
            run_ids.append(run.id)
            for i, example_id in enumerate(examples):
                attempts, cost = rng.choice(KINDS)
                outcome = rng.choice(["scored", "scored", "provider_error", "not_scorable"])
                rows.append(
                    {
                        "run_id": run.id,
                        "example_id": example_id,
                        "scorer_id": scorer_id,
                        "scorer_version_id": version_id,
                        "dataset_id": dataset_id,
                        "outcome": outcome,
                        "score": rng.random() if outcome == "scored" else None,
                        "attempts": attempts,
                        "cost": cost,
                        "created_at": START + timedelta(minutes=i),
                    }
                )
        rng.shuffle(rows)
        add_scores(session, rows=rows)
    return rows, run_ids, sorted({s for s, _ in versions})


def _expected(rows, keep):
    chosen = [r for r in rows if keep(r)]
    cost = sum(r["cost"] or 0.0 for r in chosen)
    return cost, sum(map(_priced, chosen)), sum(map(_unpriced, chosen))


def test_stats_count_priced_and_unpriced_results_under_every_filter(engine, runs):
    rows, run_ids, scorer_ids = runs
    filters = [
        (ScoreFilter(), lambda r: True),
        (ScoreFilter(run_id=run_ids[1]), lambda r: r["run_id"] == run_ids[1]),
        (ScoreFilter(scorer_id=scorer_ids[0]), lambda r: r["scorer_id"] == scorer_ids[0]),
        (
            ScoreFilter(scorer_id=scorer_ids[0], outcomes=("scored",)),
            lambda r: r["scorer_id"] == scorer_ids[0] and r["outcome"] == "scored",
        ),
        (
            ScoreFilter(since=START + timedelta(minutes=30)),
            lambda r: r["created_at"] >= START + timedelta(minutes=30),
        ),
    ]
    with read_session(engine) as session:
        for flt, keep in filters:
            cost, priced, unpriced = _expected(rows, keep)
            stats = score_stats(session, filter=flt)
            assert (stats.priced, stats.unpriced) == (priced, unpriced), flt
            assert stats.cost == pytest.approx(cost)
            total = cost_total(session, filter=flt)
            assert (total.priced, total.unpriced) == (priced, unpriced)
            assert total.cost == pytest.approx(cost)
    # The fixture holds every kind, so the counts above were not all zero.
    assert 0 < sum(map(_priced, rows)) < len(rows)
    assert 0 < sum(map(_unpriced, rows)) < len(rows)


def test_results_without_judge_calls_are_neither_priced_nor_unpriced(engine):
    scorer_id, version_id = make_version(engine, "keywords")
    rows = [
        {"scorer_id": scorer_id, "scorer_version_id": version_id, "outcome": o, "cost": c}
        for o, c in [("scored", 0.0), ("scored", 0.0), ("step_error", 0.0)]
    ]
    with session_scope(engine) as session:
        add_scores(
            session, rows=[{**r, "score": 1.0 if r["outcome"] == "scored" else None} for r in rows]
        )
    with read_session(engine) as session:
        stats = score_stats(session, filter=ScoreFilter(scorer_id=scorer_id))
    assert (stats.total, stats.cost, stats.priced, stats.unpriced) == (3, 0.0, 0, 0)


def test_an_empty_filter_counts_nothing(engine, runs):
    with read_session(engine) as session:
        stats = score_stats(session, filter=ScoreFilter(run_id=10_000))
        total = cost_total(session, filter=ScoreFilter(run_id=10_000))
    assert (stats.priced, stats.unpriced, stats.cost) == (0, 0, 0.0)
    assert (total.priced, total.unpriced, total.cost) == (0, 0, 0.0)


def test_cost_total_is_one_statement(engine, runs):
    _, run_ids, _ = runs
    with counting_selects(engine) as seen, read_session(engine) as session:
        cost_total(session, filter=ScoreFilter(run_id=run_ids[0]))
    assert len(seen) == 1


def test_the_columns_count_the_same_per_run_in_a_grouped_query(engine, runs):
    rows, run_ids, _ = runs
    query = sa_select(ScoreRecord.run_id, *priced_unpriced_columns(), func.count()).group_by(
        ScoreRecord.run_id
    )
    with read_session(engine) as session:
        got = {r: (p, u) for r, p, u, _ in session.execute(query).all()}
    for run_id in run_ids:
        _, priced, unpriced = _expected(rows, lambda r, run_id=run_id: r["run_id"] == run_id)
        assert got[run_id] == (priced, unpriced)
