"""Spend reservations in the store: runners racing on one run never pass its cap together,
a result's commit gives back only its own runner's reservation, and a lost one stays spent."""

from __future__ import annotations

import threading

import pytest

from scorer_runtime.store import ExampleData, create_run, read_session, session_scope, set_run_cap
from scorer_runtime.store.reservations import (
    held_spend,
    lost_spend,
    mark_lost,
    reserve_spend,
    settle_spend,
)
from tests.store.fixtures import make_dataset, make_version


def _run(engine, *, cap):
    dataset_id = make_dataset(engine, "faq", [ExampleData(output=f"a{i}") for i in range(3)])
    _, version_id = make_version(engine, "verdict")
    with session_scope(engine) as session:
        run = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
        set_run_cap(session, run_id=run.id, max_cost=cap)
    return run.id


def _reserve(engine, run_id, token, example_id, amount=0.3):
    with session_scope(engine) as session:
        return reserve_spend(
            session, run_id=run_id, runner_token=token, example_id=example_id, amount=amount
        )


def test_runners_racing_for_one_run_never_pass_its_cap_together(engine):
    run_id = _run(engine, cap=1.0)
    runners = 8
    start = threading.Barrier(runners)
    granted: list[bool] = []

    def runner(n: int) -> None:
        start.wait()  # every runner checks the cap at the same moment
        granted.append(_reserve(engine, run_id, f"runner{n}", n))

    threads = [threading.Thread(target=runner, args=(n,)) for n in range(runners)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(granted) == [False] * 5 + [True] * 3  # 3 x 0.3 fit in 1.0, a 4th would not
    with read_session(engine) as session:
        held = held_spend(session, run_id=run_id)
    assert held.answers == 3
    assert held.cost == pytest.approx(0.9)


def test_a_lost_reservation_stays_spent_when_its_example_is_scored_again(engine):
    run_id = _run(engine, cap=1.0)
    assert _reserve(engine, run_id, "killed", 1)
    assert _reserve(engine, run_id, "killed", 2)
    with session_scope(engine) as session:
        mark_lost(session, run_id=run_id)  # the run resumes: the first runner is gone
    assert _reserve(engine, run_id, "resumed", 1)  # example 1 is scored again
    assert not _reserve(engine, run_id, "resumed", 2)  # 0.9 held: 0.3 more would pass 1.0
    with session_scope(engine) as session:
        settle_spend(session, run_id=run_id, runner_token="resumed", example_ids=[1])
    with read_session(engine) as session:
        lost, held = lost_spend(session, run_id=run_id), held_spend(session, run_id=run_id)
    assert (lost.answers, held.answers) == (2, 2)  # only the resumed runner's was given back
    assert lost.cost == pytest.approx(0.6)


def test_a_run_without_a_cap_sets_aside_without_checking(engine):
    run_id = _run(engine, cap=None)
    assert all(_reserve(engine, run_id, "any", n, amount=5.0) for n in range(3))
