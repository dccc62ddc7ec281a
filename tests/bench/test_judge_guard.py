"""A benchmark of the judge path stops when a run did not ask the judge for every example
(answers from the cache would make it a figure of cache hits)."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from scorer_runtime.store import ExampleData, add_scores, create_run, session_scope
from tests.store.fixtures import db_url, engine, make_dataset, make_version

from .test_run import BENCH

__all__ = ["db_url", "engine"]  # the store's database fixtures, used here


@pytest.fixture
def guard(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    from bench_batch import check_asked_judge

    return check_asked_judge


def _run(engine, attempts: list[int], cached: int) -> int:
    """A stored run of ``len(attempts)`` examples, each with its provider calls."""
    scorer_id, version_id = make_version(engine, "guarded")
    dataset_id = make_dataset(engine, "d", [ExampleData(output=str(i)) for i in attempts])
    with session_scope(engine) as session:
        run = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
        assert run.id is not None
        example_ids = session.execute(
            text("SELECT id FROM examples WHERE dataset_id = :d ORDER BY id"), {"d": dataset_id}
        ).scalars()
        rows = [
            {
                "run_id": run.id,
                "example_id": example_id,
                "scorer_id": scorer_id,
                "scorer_version_id": version_id,
                "dataset_id": dataset_id,
                "outcome": "scored",
                "score": 0.5,
                "attempts": n,
            }
            for example_id, n in zip(example_ids, attempts, strict=True)
        ]
        add_scores(session, rows=rows)
        session.execute(
            text("UPDATE runs SET cached_answers = :c WHERE id = :r"), {"c": cached, "r": run.id}
        )
        return run.id


def test_a_run_that_asked_the_judge_for_each_example_passes(engine, guard):
    guard(engine, _run(engine, [1, 2, 1], cached=0), 3)  # a retry is one call more


@pytest.mark.parametrize(("attempts", "cached"), [([1, 0, 1], 1), ([1, 1, 1], 1), ([0, 0], 0)])
def test_a_run_with_answers_from_the_cache_stops_the_benchmark(engine, guard, attempts, cached):
    run_id = _run(engine, attempts, cached)
    with pytest.raises(RuntimeError, match="does not measure the judge"):
        guard(engine, run_id, len(attempts))
