"""The retry fault matrix: real HTTP faults through litellm, counted at the fake server."""

from __future__ import annotations

import email.utils
import time
from datetime import UTC, datetime, timedelta

import pytest

from scorer_runtime import (
    ErrorKind,
    Judge,
    PromptStep,
    RetryMatcher,
    ScorerRunError,
    StreamErrorRetryProcessor,
    create_scorer,
)
from scorer_runtime.judge import rate
from tests.fakes.clock import SteppedClock


@pytest.fixture(autouse=True)
def _gate_on_a_stepped_clock():
    """These tests are about the retry policy: the rate gate's pause after a 429 (tested in
    tests/judge/rate/) passes on a clock of its own, not in real time."""
    clock = SteppedClock()
    with rate.using_time(clock.now, clock.sleep):
        yield


TIMEOUT_S = 10.0  # generous: a loaded machine must not turn a scripted fault into a timeout
READ_TIMEOUT_S = 0.5  # the judge timeout of the read-timeout fault only


class SleepRecorder:
    """An injectable sleep that records the delays requested instead of waiting."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


def _http_date(seconds_ahead: int) -> str:
    return email.utils.format_datetime(
        datetime.now(UTC) + timedelta(seconds=seconds_ahead), usegmt=True
    )


# name -> (fault kwargs factory, expected error kind, transient?)
FAULTS = {
    "429": (lambda: {"status": 429}, ErrorKind.RATE_LIMITED, True),
    "429-retry-after-s": (
        lambda: {"status": 429, "headers": {"Retry-After": "2"}},
        ErrorKind.RATE_LIMITED,
        True,
    ),
    "429-retry-after-date": (
        lambda: {"status": 429, "headers": {"Retry-After": _http_date(3)}},
        ErrorKind.RATE_LIMITED,
        True,
    ),
    "429-retry-after-ms": (
        lambda: {"status": 429, "headers": {"retry-after-ms": "1500"}},
        ErrorKind.RATE_LIMITED,
        True,
    ),
    "408": (lambda: {"status": 408}, ErrorKind.TIMEOUT, True),
    "409": (lambda: {"status": 409}, ErrorKind.SERVER_ERROR, True),
    "500": (lambda: {"status": 500}, ErrorKind.SERVER_ERROR, True),
    "502": (lambda: {"status": 502}, ErrorKind.SERVER_ERROR, True),
    "503": (lambda: {"status": 503}, ErrorKind.SERVER_ERROR, True),
    "drop-before-response": (
        lambda: {"drop": "before_response"},
        ErrorKind.CONNECTION,
        True,
    ),
    "reset-mid-body": (lambda: {"drop": "mid_body"}, ErrorKind.CONNECTION, True),
    "read-timeout": (lambda: {"latency_s": 6 * READ_TIMEOUT_S}, ErrorKind.TIMEOUT, True),
    "400": (lambda: {"status": 400}, ErrorKind.INVALID_REQUEST, False),
    "400-context-length": (
        lambda: {
            "status": 400,
            "body": {
                "error": {
                    "message": "This model's maximum context length is 8192 tokens.",
                    "type": "invalid_request_error",
                    "code": "context_length_exceeded",
                }
            },
        },
        ErrorKind.CONTEXT_LENGTH,
        False,
    ),
    "401": (lambda: {"status": 401}, ErrorKind.AUTH, False),
    "403": (lambda: {"status": 403}, ErrorKind.AUTH, False),
}


def _expected_calls(config: str, fault: str) -> int:
    transient = FAULTS[fault][2]
    auth = fault in ("401", "403")
    return {
        "no-processor": 1,
        "default-processor": 2 if transient else 1,
        "max2-cap2": 3 if transient else 1,
        "max5-no-cap": 6 if transient else 1,
        "retry-unknown": 1 if auth else 2,
        "matcher-401": 3 if fault == "401" else (2 if transient else 1),
        "step-empty-list": 1,
    }[config]


def _judges(config: str, sleep: SleepRecorder) -> tuple[dict, dict | None]:
    """(scorer judge options, step judge options) for a configuration of the matrix."""
    if config == "no-processor":
        return {}, None
    if config == "default-processor":
        return {"error_processors": [StreamErrorRetryProcessor(sleep=sleep)]}, None
    if config == "max2-cap2":
        processor = StreamErrorRetryProcessor(max_retries=2, sleep=sleep)
        return {"error_processors": [processor], "max_processor_retries": 2}, None
    if config == "max5-no-cap":
        return {"error_processors": [StreamErrorRetryProcessor(max_retries=5, sleep=sleep)]}, None
    if config == "retry-unknown":
        processor = StreamErrorRetryProcessor(retry_unknown_errors=True, sleep=sleep)
        return {"error_processors": [processor]}, None
    if config == "matcher-401":
        matcher = RetryMatcher(lambda e: e.status_code == 401, max_retries=2)
        processor = StreamErrorRetryProcessor(matchers=[matcher], sleep=sleep)
        return {"error_processors": [processor]}, None
    if config == "step-empty-list":
        processor = StreamErrorRetryProcessor(max_retries=5, sleep=sleep)
        return {"error_processors": [processor]}, {"error_processors": []}
    raise AssertionError(config)


def _scorer(server, scorer_judge: dict, step_judge: dict | None, timeout_s: float = TIMEOUT_S):
    judge = Judge(
        model="openai/fake-judge",
        instructions="Grade.",
        api_base=server.base_url,
        api_key="sk-test",
        timeout_s=timeout_s,
        json_prompt_injection="system",
        **scorer_judge,
    )
    return create_scorer(id="matrix", description="d", judge=judge).generate_score(
        PromptStep(
            description="score",
            create_prompt=lambda run: f"Rate: {run.output}",
            judge=Judge(**step_judge) if step_judge is not None else None,
            calculate_score=lambda judge_output: judge_output["score"],
        )
    )


CONFIGS = [
    "no-processor",
    "default-processor",
    "max2-cap2",
    "max5-no-cap",
    "retry-unknown",
    "matcher-401",
    "step-empty-list",
]


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("config", CONFIGS)
async def test_fault_matrix(fake_judge, config, fault):
    make_fault, kind, _ = FAULTS[fault]
    fake_judge.fault(times=None, **make_fault())
    fake_judge.reply({"score": 1})  # only reached by requests the fault lets through
    sleep = SleepRecorder()
    timeout_s = READ_TIMEOUT_S if fault == "read-timeout" else TIMEOUT_S
    scorer = _scorer(fake_judge, *_judges(config, sleep), timeout_s=timeout_s)

    with pytest.raises(ScorerRunError) as caught:
        await scorer.run(output="answer")

    calls = _expected_calls(config, fault)
    assert fake_judge.request_count == calls
    err = caught.value
    assert err.failed_step == "generate_score"
    assert err.error_kind is kind
    execution = err.result.judge["generate_score"]
    assert execution.status == "failed"
    assert execution.error_kind is kind
    assert execution.model_call_count == calls
    assert execution.attempt_count == 1
    assert len(execution.calls) == calls
    assert all(not c.ok and c.error_kind is kind for c in execution.calls)
    assert len(sleep.seconds) == calls - 1
    assert [c.delay_ms for c in execution.calls[:-1]] == [s * 1000 for s in sleep.seconds]
    assert execution.calls[-1].delay_ms is None
    _check_delays(fault, sleep.seconds)


def _check_delays(fault: str, seconds: list[float]) -> None:
    for s in seconds:
        if fault == "429-retry-after-s":
            assert s == 2.0
        elif fault == "429-retry-after-ms":
            assert s == 1.5
        elif fault == "429-retry-after-date":
            assert 0.5 < s <= 3.0
        else:
            assert s == 0.0


def test_a_transient_failure_then_success(fake_judge):
    fake_judge.fault(status=503, times=1)
    fake_judge.reply({"score": 0.9})
    sleep = SleepRecorder()
    scorer = _scorer(fake_judge, *_judges("default-processor", sleep))
    result = scorer.run_sync(output="x")
    assert result.score == 0.9
    execution = result.judge["generate_score"]
    assert (execution.attempt_count, execution.model_call_count) == (1, 2)
    assert [c.ok for c in execution.calls] == [False, True]
    assert execution.status == "success"
    assert fake_judge.request_count == 2


def test_without_a_cap_the_judge_allows_ten_retries(fake_judge):
    fake_judge.fault(status=500, times=None)
    sleep = SleepRecorder()
    processor = StreamErrorRetryProcessor(max_retries=20, sleep=sleep)
    scorer = _scorer(fake_judge, {"error_processors": [processor]}, None)
    with pytest.raises(ScorerRunError):
        scorer.run_sync(output="x")
    assert fake_judge.request_count == 11


def test_the_reference_example_makes_at_most_three_provider_attempts(fake_judge):
    """createScorer.md: maxRetries 2, maxProcessorRetries 2, backoff delay, network matcher."""
    sleep = SleepRecorder()
    retry = StreamErrorRetryProcessor(
        max_retries=2,
        max_retry_after_ms=30_000,
        delay_ms=lambda retry_count: min(1_000 * 2**retry_count, 30_000),
        matchers=[lambda e: "connection" in str(e).lower()],
        retry_unknown_errors=False,
        sleep=sleep,
    )
    judge = Judge(
        model="openai/fake-judge",
        instructions="Return a score and concise reason.",
        api_base=fake_judge.base_url,
        api_key="sk-test",
        json_prompt_injection="system",
        error_processors=[retry],
        max_processor_retries=2,
    )
    scorer = (
        create_scorer(id="response-quality", description="Scores response quality", judge=judge)
        .generate_score(
            PromptStep(
                description="Score the response quality.",
                create_prompt=lambda run: f"Score: {run.output}",
                calculate_score=lambda judge_output: judge_output["score"],
            )
        )
        .generate_reason(
            PromptStep(description="Explain the score.", create_prompt=lambda: "Explain the score.")
        )
    )
    fake_judge.fault(drop="before_response", times=None, when="Score:")
    with pytest.raises(ScorerRunError) as caught:
        scorer.run_sync(output="ok")
    assert fake_judge.request_count == 3
    assert sleep.seconds == [1.0, 2.0]
    assert caught.value.error_kind is ErrorKind.CONNECTION


def test_generate_reason_retries_alone(fake_judge):
    """If generate_score completes and generate_reason fails transiently, only it retries."""
    sleep = SleepRecorder()
    fake_judge.reply({"score": 0.7}, when="Rate:")
    fake_judge.fault(status=503, when="Explain", times=1)
    fake_judge.reply("Because it is fine.", when="Explain")
    processor = StreamErrorRetryProcessor(max_retries=2, sleep=sleep)
    scorer = (
        _scorer(fake_judge, {"error_processors": [processor], "max_processor_retries": 2}, None)
    ).generate_reason(PromptStep(description="why", create_prompt=lambda: "Explain it"))
    result = scorer.run_sync(output="x")
    prompts = [r.last_user_content for r in fake_judge.chat_requests]
    assert prompts == ["Rate: x", "Explain it", "Explain it"]
    assert result.score == 0.7
    assert result.reason == "Because it is fine."
    assert result.judge["generate_score"].model_call_count == 1
    assert result.judge["generate_reason"].model_call_count == 2


def test_the_format_re_ask_has_its_own_retry_budget(fake_judge):
    sleep = SleepRecorder()
    # Calls: 429, "no json" (first request: 1 retry used), then the re-ask: 429, valid.
    fake_judge.fault(status=429, times=1)
    fake_judge.fault(status=429, times=1, after=1)
    fake_judge.reply("no json here", times=1)
    fake_judge.reply({"score": 0.4})
    scorer = _scorer(fake_judge, *_judges("default-processor", sleep))  # one retry per request
    result = scorer.run_sync(output="x")
    assert result.score == 0.4
    execution = result.judge["generate_score"]
    assert (execution.attempt_count, execution.model_call_count) == (2, 4)
    assert [c.ok for c in execution.calls] == [False, True, False, True]


def test_a_retry_wait_can_be_cancelled(fake_judge):
    import asyncio

    fake_judge.fault(status=429, headers={"Retry-After": "20"}, times=None)
    scorer = _scorer(
        fake_judge, {"error_processors": [StreamErrorRetryProcessor(max_retries=3)]}, None
    )

    async def main():
        task = asyncio.create_task(scorer.run(output="x"))
        await asyncio.sleep(0.3)
        started = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - started

    assert asyncio.run(main()) < 5
    assert fake_judge.request_count == 1


def test_connection_refused_is_a_connection_error_and_retried(refused_base_url):
    sleep = SleepRecorder()
    judge = Judge(
        model="openai/fake-judge",
        instructions="Grade.",
        api_base=refused_base_url,
        api_key="sk-test",
        json_prompt_injection="system",
        error_processors=[StreamErrorRetryProcessor(max_retries=2, sleep=sleep)],
    )
    scorer = create_scorer(id="refused", description="d", judge=judge).generate_score(
        PromptStep(description="s", create_prompt=lambda: "p", calculate_score=lambda: 1)
    )
    with pytest.raises(ScorerRunError) as caught:
        scorer.run_sync(output="x")
    execution = caught.value.result.judge["generate_score"]
    assert execution.model_call_count == 3
    assert execution.error_kind is ErrorKind.CONNECTION
    assert len(sleep.seconds) == 2
