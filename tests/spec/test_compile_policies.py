"""Retry policy helpers, and how a spec's retry policy becomes a StreamErrorRetryProcessor."""

from __future__ import annotations

import pytest

from scorer_runtime import StreamErrorRetryProcessor
from scorer_runtime.errors import ProviderError
from scorer_runtime.processors.policies import exponential_backoff, message_contains, status_in
from scorer_runtime.spec import compile_spec


def test_exponential_backoff_grows_and_is_capped():
    backoff = exponential_backoff(initial_ms=500, factor=2, max_ms=3000)
    assert [backoff(n) for n in range(5)] == [500, 1000, 2000, 3000, 3000]
    assert backoff(10_000) == 3000  # no overflow on absurd counts
    assert repr(backoff) == "exponential_backoff(initial_ms=500, factor=2, max_ms=3000)"
    assert repr(exponential_backoff(factor=1.5)) == (
        "exponential_backoff(initial_ms=1000, factor=1.5, max_ms=30000)"
    )


@pytest.mark.parametrize(
    "kwargs",
    [{"initial_ms": -1}, {"factor": 0.5}, {"max_ms": float("inf")}, {"initial_ms": True}],
)
def test_exponential_backoff_rejects_nonsense(kwargs):
    with pytest.raises(ValueError, match="exponential_backoff"):
        exponential_backoff(**kwargs)


def test_matchers_match_and_print_as_their_calls():
    overloaded = ProviderError("The server is Overloaded, try later", status_code=529)
    other = ProviderError("bad request", status_code=400)
    assert status_in(429, 529)(overloaded)
    assert not status_in(429, 529)(other)
    assert message_contains("overloaded")(overloaded)
    assert not message_contains("x")(other)
    assert repr(status_in(429, 529)) == "status_in(429, 529)"
    assert repr(message_contains("over", "it's")) == "message_contains('over', \"it's\")"
    for bad in ((), (42,), (True,)):
        with pytest.raises(ValueError, match="status_in"):
            status_in(*bad)
    with pytest.raises(ValueError, match="message_contains"):
        message_contains("")


def test_a_processor_prints_as_the_code_that_built_it():
    processor = StreamErrorRetryProcessor(
        max_retries=3,
        delay_ms=exponential_backoff(initial_ms=500, factor=2, max_ms=8000),
        matchers=[status_in(529), message_contains("overloaded")],
    )
    assert repr(processor) == (
        "StreamErrorRetryProcessor(max_retries=3, max_retry_after_ms=30000, "
        "delay_ms=exponential_backoff(initial_ms=500, factor=2, max_ms=8000), "
        "matchers=[status_in(529), message_contains('overloaded')], retry_unknown_errors=False)"
    )


def _judge_of(retry, registry):
    spec = {
        "id": "r",
        "description": "d",
        "judge": {"model": "openai/x", "instructions": "i", "retry": retry},
        "steps": [{"step": "generate_score", "formula": "1"}],
    }
    return compile_spec(spec, registry).judge


def test_a_retry_policy_spec_maps_to_one_budget(registry):
    judge = _judge_of(
        {
            "max_retries": 4,
            "delay": 250,
            "max_retry_after_ms": 5000,
            "retry_on_status": [529],
            "retry_on_text": ["overloaded"],
            "retry_unknown_errors": True,
        },
        registry,
    )
    (processor,) = judge.error_processors
    assert judge.max_processor_retries == processor.max_retries == 4
    assert processor.delay_ms == 250
    assert processor.max_retry_after_ms == 5000
    assert processor.matchers == (status_in(529), message_contains("overloaded"))
    assert processor.retry_unknown_errors is True
    judge = _judge_of({}, registry)
    (processor,) = judge.error_processors
    assert judge.max_processor_retries == processor.max_retries == 2
    assert processor.delay_ms == exponential_backoff(initial_ms=1000, factor=2, max_ms=30000)
    assert processor.matchers == ()
