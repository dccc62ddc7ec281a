"""The cost estimate counts the judge answers the cache will give: after a run, the same
dataset's estimate has every call cached and nothing to pay; an edited request misses."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlmodel import select

from scorer_runtime.costs import estimate_dataset
from scorer_runtime.store import read_session
from scorer_runtime.store.tables import DatasetRecord
from tests.batch import test_answer_cache as runs
from tests.batch.test_answer_cache import _scorer, _steps_asked

setup = runs.setup  # the dataset "faq" of four answers, and a run of it on the fake judge


@pytest.fixture
def estimate(engine, setup):
    with read_session(engine) as session:
        dataset_id = session.exec(select(DatasetRecord.id).where(DatasetRecord.name == "faq")).one()

    async def made(scorer, *, use_cache=True):
        return await estimate_dataset(engine, scorer, dataset_id=dataset_id, use_cache=use_cache)

    return made


async def test_after_a_run_every_call_is_cached_and_nothing_is_left_to_pay(
    setup, estimate, fake_judge
):
    before = await estimate(_scorer(fake_judge))
    assert (before.calls, before.cached_calls) == (8, 0)
    assert before.typical_cost
    assert before.typical_cost > 0
    _, _, asked = await setup(_scorer(fake_judge))
    assert _steps_asked(asked) == (4, 4)
    sent = len(fake_judge.chat_requests)

    after = await estimate(_scorer(fake_judge))
    assert len(fake_judge.chat_requests) == sent  # the estimate calls no provider
    # The reason steps of the "bad" answers are cached too: their prompts are rendered from
    # the stored verdicts, not from a typical one ("good", the schema's first).
    assert (after.calls, after.cached_calls, after.worst_calls) == (8, 8, 0)
    assert (after.typical_cost, after.worst_cost) == (0.0, 0.0)
    assert (after.input_tokens, after.output_tokens) == (0, 0)
    # Without the cache the same calls are paid for (priced from the stored answers' length,
    # shorter than the typical answer the rehearsal gives), and one example can still cost.
    assert after.uncached_typical_cost
    assert after.uncached_worst_cost
    assert 0 < after.uncached_typical_cost < after.uncached_worst_cost
    assert after.example_worst_cost
    assert after.example_worst_cost > 0
    words = after.describe()
    assert "About 8 judge calls for 4 examples, all likely answered from the cache" in words
    assert "$0 to pay (without the cache $" in words


async def test_an_edited_prompt_misses_for_its_steps_only(setup, estimate, fake_judge):
    await setup(_scorer(fake_judge))
    edited = await estimate(_scorer(fake_judge, instructions="You grade answers strictly."))
    assert (edited.calls, edited.cached_calls) == (8, 0)
    assert "from the cache" not in edited.describe()

    reason_edited = await estimate(_scorer(fake_judge, reason_prompt="Why {} for: {}?"))
    assert (reason_edited.calls, reason_edited.cached_calls) == (8, 4)
    assert reason_edited.typical_cost is not None
    assert reason_edited.uncached_typical_cost
    assert 0 < reason_edited.typical_cost < reason_edited.uncached_typical_cost
    assert "4 likely from the cache (the other 4 up to" in reason_edited.describe()


async def test_a_run_without_the_cache_is_estimated_in_full(setup, estimate, fake_judge):
    await setup(_scorer(fake_judge))
    off = await estimate(_scorer(fake_judge), use_cache=False)
    assert (off.calls, off.cached_calls) == (8, 0)
    scorer_off = await estimate(replace(_scorer(fake_judge), cache_answers=False))
    assert (scorer_off.calls, scorer_off.cached_calls) == (8, 0)
    assert off.typical_cost == pytest.approx(scorer_off.typical_cost)
