"""The spend cap: a run never starts a judge call that could pass it, stops saying so, and
resumes under a higher cap; a cap that cannot be kept starts nothing."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from scorer_runtime.batch import BatchRunner
from scorer_runtime.batch.spend_cap import SpendCap
from scorer_runtime.costs import estimate_dataset
from scorer_runtime.costs.cap import CapError, read_cap
from scorer_runtime.store import (
    ExampleData,
    create_run,
    get_run,
    read_session,
    session_scope,
    set_run_cap,
)
from scorer_runtime.store.reservations import held_spend, settle_spend
from scorer_runtime.store.runs import beat
from tests.batch.judged import verdict_scorer
from tests.store.fixtures import make_dataset, make_version

PRICED = "openai/gpt-4o-mini"
EXAMPLES = 24


def _run(engine, *, examples=EXAMPLES, cap=None, allow_unpriced=False):
    outputs = [
        ExampleData(output=f"answer number {i} " + "words " * (i % 5)) for i in range(examples)
    ]
    dataset_id = make_dataset(engine, "faq", outputs)
    _, version_id = make_version(engine, "verdict")
    with session_scope(engine) as session:
        run = create_run(
            session, scorer_version_id=version_id, dataset_id=dataset_id, concurrency=4
        )
        set_run_cap(session, run_id=run.id, max_cost=cap, allow_unpriced=allow_unpriced)
    return run.id, dataset_id


def _stored_run(engine, run_id):
    with read_session(engine) as session:
        return get_run(session, run_id=run_id)


async def test_a_run_stops_at_its_cap_with_calls_in_flight_and_resumes_under_a_higher_one(
    engine, fake_judge
):
    fake_judge.reply({"verdict": "good"}, usage="counted", latency_s=0.05)
    scorer = verdict_scorer(fake_judge, model=PRICED)
    run_id, dataset_id = _run(engine)
    estimate = await estimate_dataset(engine, scorer, dataset_id=dataset_id)
    assert estimate.typical_cost
    assert estimate.example_worst_cost
    # Room for about a third of the examples at their worst case.
    cap = estimate.example_worst_cost * EXAMPLES / 3
    with session_scope(engine) as session:
        set_run_cap(session, run_id=run_id, max_cost=cap)

    await BatchRunner(engine, scorer, run_id=run_id, concurrency=4, processes=1).run()

    stopped = _stored_run(engine, run_id)
    assert stopped.status == "stopped"
    assert stopped.error is not None
    assert stopped.error.startswith("stopped: budget reached: $")
    assert 4 <= stopped.done_count < EXAMPLES  # several ran at once, and the cap stopped it
    assert stopped.cost <= cap  # the worst case was held back for every call in flight
    assert fake_judge.request_count == stopped.done_count  # nothing started past the cap
    times = sorted(r.received_at for r in fake_judge.requests)
    assert any(b - a < 0.04 for a, b in itertools.pairwise(times))  # in flight together

    with session_scope(engine) as session:
        set_run_cap(session, run_id=run_id, max_cost=cap * 10)
    await BatchRunner(engine, scorer, run_id=run_id, concurrency=4, processes=1).run()
    resumed = _stored_run(engine, run_id)
    assert (resumed.status, resumed.done_count, resumed.error) == ("done", EXAMPLES, None)
    assert fake_judge.request_count == EXAMPLES  # no example was scored twice


async def test_an_unpriced_model_under_a_cap_starts_nothing_unless_accepted(engine, fake_judge):
    fake_judge.reply({"verdict": "good"}, usage="counted")
    scorer = verdict_scorer(fake_judge)  # openai/fake-judge: litellm has no price for it
    run_id, _ = _run(engine, examples=3, cap=1.0)
    with pytest.raises(CapError, match="Price unknown for openai/fake-judge"):
        await BatchRunner(engine, scorer, run_id=run_id, processes=1).run()
    refused = _stored_run(engine, run_id)
    assert refused.status == "failed"
    assert "--allow-unpriced" in (refused.error or "")
    assert fake_judge.request_count == 0

    with session_scope(engine) as session:
        set_run_cap(session, run_id=run_id, max_cost=1.0, allow_unpriced=True)
    await BatchRunner(engine, scorer, run_id=run_id, processes=1).run()
    assert _stored_run(engine, run_id).status == "done"
    assert fake_judge.request_count == 3


async def test_a_cap_below_one_examples_worst_case_starts_nothing(engine, fake_judge):
    fake_judge.reply({"verdict": "good"}, usage="counted")
    run_id, _ = _run(engine, examples=3, cap=1e-9)
    scorer = verdict_scorer(fake_judge, model=PRICED)
    with pytest.raises(CapError, match="below what one example can cost at worst"):
        await BatchRunner(engine, scorer, run_id=run_id, processes=1).run()
    assert fake_judge.request_count == 0
    assert _stored_run(engine, run_id).done_count == 0


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("-1", "above \\$0"),
        ("0", "above \\$0"),
        ("abc", "'abc' is not an amount"),
        ("nan", "above \\$0"),
    ],
)
def test_a_bad_cap_is_refused_in_words(typed, words):
    with pytest.raises(CapError, match=words):
        read_cap(typed)


def test_a_cap_is_read_from_what_a_person_types():
    assert read_cap("") is None
    assert read_cap(None) is None
    assert read_cap(" $1,250.5 ") == 1250.5
    assert read_cap(2) == 2.0


async def test_the_cap_admits_only_what_fits_and_waits_for_results_in_flight(engine):
    run_id, _ = _run(engine, examples=5, cap=1.0)
    budget = SpendCap(engine, run_id, cap=1.0, reserve=0.3)
    assert [await budget.admit(n) for n in (1, 2, 3)] == [True, True, True]
    other = SpendCap(engine, run_id, cap=1.0, reserve=0.3)  # a second runner of the run
    assert not await other.admit(4)  # 0.9 set aside by the first: a fourth would risk 1.2
    assert other.reached
    waiting = asyncio.create_task(budget.admit(4))
    _store_result(engine, budget, run_id, example_id=1, cost=0.1)
    assert await waiting  # 0.1 spent + 3 x 0.3 set aside = 1.0
    for n in (2, 3, 4):
        _store_result(engine, budget, run_id, example_id=n, cost=0.3)
    assert budget.spent == pytest.approx(1.0)
    assert not await budget.admit(5)
    assert budget.reached
    with read_session(engine) as session:
        assert held_spend(session, run_id=run_id).answers == 0  # every result gave its back


def _store_result(engine, budget, run_id, *, example_id, cost):
    """What the writer does for one result: settle its reservation in the commit that adds
    its cost to the run's, then tell the cap."""
    with session_scope(engine) as session:
        settle_spend(session, run_id=run_id, runner_token=budget.token, example_ids=[example_id])
        spent = get_run(session, run_id=run_id).cost
        beat(session, run_id=run_id, done=example_id, failed=0, cost=spent + cost)
    budget.settled([cost])
