"""The rate gate over real HTTP: a fake provider that admits R requests a second (429 and
Retry-After above it) counts what arrives each second; the judge keeps under it."""

from __future__ import annotations

import asyncio
import threading

import pytest

from scorer_runtime import Judge, PromptStep, RetryMatcher, StreamErrorRetryProcessor, create_scorer
from scorer_runtime.judge import rate

R = 20
"""The fake provider's requests a second (small, so a test takes about two seconds)."""


def _scorer(server, *, retries: int = 0, on_retry=None, **judge):
    processors = []
    if retries:
        matcher = RetryMatcher(lambda e: e.status_code == 429, on_retry=on_retry)
        processors = [StreamErrorRetryProcessor(max_retries=retries, matchers=[matcher])]
    made = Judge(
        model="openai/fake-judge",
        instructions="Grade.",
        api_base=server.base_url,
        api_key="sk-test",
        json_prompt_injection="system",
        error_processors=processors,
        max_processor_retries=retries,
        **judge,
    )
    return create_scorer(id="limited", description="d", judge=made).generate_score(
        PromptStep(
            description="score",
            create_prompt=lambda run: f"Rate: {run.output}",
            calculate_score=lambda judge_output: judge_output["score"],
        )
    )


async def _score_all(scorer, count: int, concurrency: int = 16) -> list:
    """Score ``count`` examples, ``concurrency`` at a time; failures come back as errors."""
    lanes = asyncio.Semaphore(concurrency)

    async def one(i: int):
        async with lanes:
            return await scorer.run(output=f"answer {i}")

    return await asyncio.gather(*(one(i) for i in range(count)), return_exceptions=True)


def _busiest_second(server) -> int:
    return max(s.received for s in server.seconds())


async def test_a_judge_with_the_providers_limit_is_never_refused_and_never_over_it(fake_judge):
    fake_judge.limit_rate(R)
    fake_judge.reply({"score": 1})
    scorer = _scorer(fake_judge, requests_per_minute=R * 60)  # no retries: a 429 would fail

    results = await _score_all(scorer, 2 * R)

    assert [type(r).__name__ for r in results if isinstance(r, BaseException)] == []
    assert sum(s.refused for s in fake_judge.seconds()) == 0
    assert _busiest_second(fake_judge) <= 1.2 * R
    held = [r.judge["generate_score"] for r in results if r.judge["generate_score"].held_ms > 0]
    assert held  # 40 requests at R a second: most waited for their slot
    assert {e.held_by for e in held} == {"limit"}
    assert {e.held_rate for e in held} == {R}
    assert all(e.model_call_count == 1 for e in held)  # waiting spent no retry


async def test_without_a_limit_the_judge_finds_the_providers_rate_and_no_example_fails(
    fake_judge,
):
    fake_judge.limit_rate(R)
    fake_judge.reply({"score": 1})
    scorer = _scorer(fake_judge, retries=2)

    results = await _score_all(scorer, 3 * R)

    assert [str(r) for r in results if isinstance(r, BaseException)] == []
    seconds = fake_judge.seconds()
    refused, received = sum(s.refused for s in seconds), sum(s.received for s in seconds)
    assert refused <= 0.25 * received, seconds  # the first second's burst, then few
    assert any(r.judge["generate_score"].held_by == "provider" for r in results)


async def test_a_429_pauses_every_request_to_the_judge_for_its_retry_after(fake_judge):
    fake_judge.fault(status=429, headers={"Retry-After": "1"}, when="first", times=1)
    fake_judge.reply({"score": 1})
    told = asyncio.Event()
    scorer = _scorer(fake_judge, retries=1, on_retry=lambda: told.set())

    first = asyncio.create_task(scorer.run(output="first"))
    await told.wait()  # the first request got its 429: now a second one starts
    second = await scorer.run(output="second")
    await first

    arrived = {r.last_user_content.split()[-1]: r.received_at for r in fake_judge.chat_requests}
    refused_at = fake_judge.chat_requests[0].received_at
    assert arrived["second"] - refused_at >= 0.95  # held for the Retry-After it was not told
    execution = second.judge["generate_score"]
    assert execution.held_by == "provider"
    assert execution.held_ms >= 900
    assert execution.model_call_count == 1


def test_event_loops_of_one_process_share_a_judges_limit(fake_judge):
    fake_judge.limit_rate(R)
    fake_judge.reply({"score": 1})
    failures: list[BaseException] = []

    def runner() -> None:
        scorer = _scorer(fake_judge, requests_per_minute=R * 60)
        results = asyncio.run(_score_all(scorer, R, concurrency=8))
        failures.extend(r for r in results if isinstance(r, BaseException))

    threads = [threading.Thread(target=runner) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert sum(s.refused for s in fake_judge.seconds()) == 0
    assert _busiest_second(fake_judge) <= 1.2 * R


@pytest.fixture(autouse=True)
def _fresh_process_ledger(monkeypatch):
    """Each test counts in a ledger of its own (the process's would carry over windows)."""
    ledger = rate.MemoryLedger()
    monkeypatch.setattr(rate, "_PROCESS_LEDGER", ledger)
    return ledger
