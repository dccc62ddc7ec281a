"""Hostile input: a judge's server that answers with something other than a chat completion.

An HTML page, an empty body, bytes that are not JSON, JSON without ``choices``, an empty
``choices`` list, a choice without a message — each sent over real HTTP by the fake judge.
Each is a ``server_error`` (stored as a ``provider_error`` outcome) whose one-line message says
what came back, within seconds; never "IndexError: list index out of range". Each is retried
by the retry processor like a 5xx: a gateway sends these while the model server restarts.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from scorer_runtime import (
    ErrorKind,
    Judge,
    PromptStep,
    ScorerRunError,
    StreamErrorRetryProcessor,
    create_scorer,
)
from scorer_runtime.batch.outcome import ExampleInput, score_example
from scorer_runtime.judge.bad_answers import PREVIEW_CHARS

LONG_PAGE = "<!DOCTYPE html><html><head><title>Sign in</title></head><body>" + "x" * 5000

# name -> (fault options, what the message must say)
ANSWERS: dict[str, tuple[dict, str]] = {
    "html page with 200": (
        {"status": 200, "raw": LONG_PAGE},
        "The judge's server answered with an HTML page, not a chat completion: <!DOCTYPE html>",
    ),
    "empty body with 200": (
        {"status": 200, "raw": b""},
        "The judge's server answered with an empty body, not a chat completion.",
    ),
    "garbage bytes with 200": (
        {"status": 200, "raw": b"\x00\x01 not json", "headers": {"Content-Type": "text/plain"}},
        "The judge's server answered with plain text, not a chat completion:",
    ),
    "json without choices": (
        {"status": 200, "body": {"id": "x", "object": "chat.completion", "model": "m"}},
        "answered with JSON that is not a chat completion (no list of 'choices'; its keys: id",
    ),
    "json list": (
        {"status": 200, "body": [1, 2, 3]},
        "The judge's server answered with JSON, not a chat completion: [1, 2, 3]",
    ),
    "empty choices": (
        {"status": 200, "body": {"id": "x", "object": "chat.completion", "choices": []}},
        "a chat completion without any answer in it (an empty 'choices' list)",
    ),
    "choice without message": (
        {
            "status": 200,
            "body": {"id": "x", "object": "chat.completion", "model": "m", "choices": [{}]},
        },
        "The judge's server answered with a chat completion that cannot be read",
    ),
    "html page with 502": (
        {"status": 502, "raw": "<html><body><h1>502 Bad Gateway</h1></body></html>"},
        "HTTP 502: The judge's server answered with an HTML page: <html><body><h1>502 Bad",
    ),
}


@pytest.fixture(autouse=True, scope="module")
def _library_loaded() -> None:
    """The model library is imported once (seconds) before anything is timed."""
    from scorer_runtime.judge.client import _litellm

    _litellm()


def _scorer(fake_judge, **judge_options):
    judge = Judge(
        model="openai/fake-judge",
        instructions="Grade.",
        api_base=fake_judge.base_url,
        api_key="sk-test",
        json_prompt_injection="system",
        timeout_s=5,
        **judge_options,
    )
    return create_scorer(id="answers", description="d", judge=judge).generate_score(
        PromptStep(
            description="s",
            create_prompt=lambda: "p",
            calculate_score=lambda judge_output: float(judge_output["score"]),
        )
    )


@pytest.mark.parametrize("name", list(ANSWERS))
def test_an_answer_that_is_not_a_chat_completion_says_what_came_back(fake_judge, name):
    fault, says = ANSWERS[name]
    fake_judge.fault(**fault)
    started = time.monotonic()
    with pytest.raises(ScorerRunError) as caught:
        _scorer(fake_judge).run_sync(output="x")
    assert time.monotonic() - started < 5
    error = caught.value
    message = str(error.__cause__)
    assert says in message
    assert "\n" not in message
    assert "Traceback" not in message
    assert "IndexError" not in str(error)
    assert len(message) < PREVIEW_CHARS + 400  # a 5,000-character page is quoted, not pasted
    assert error.error_kind is ErrorKind.SERVER_ERROR


@pytest.mark.parametrize("name", ["empty choices", "html page with 200"])
def test_it_is_stored_as_a_provider_error_with_that_message(fake_judge, name):
    fault, says = ANSWERS[name]
    fake_judge.fault(**fault)
    stored = asyncio.run(score_example(_scorer(fake_judge), ExampleInput(1, output="x")))
    assert stored.outcome == "provider_error"
    assert says in (stored.error or "")
    assert stored.judge["generate_score"]["error_kind"] == "server_error"


@pytest.mark.parametrize("name", ["html page with 200", "empty body with 200", "empty choices"])
def test_the_retry_processor_retries_it_like_a_5xx(fake_judge, name):
    fault, _ = ANSWERS[name]
    fake_judge.fault(**fault)  # once; then the server answers properly
    fake_judge.reply({"score": 0.75})
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    retry = StreamErrorRetryProcessor(sleep=sleep)
    result = _scorer(fake_judge, error_processors=[retry]).run_sync(output="x")
    assert result.score == 0.75
    execution = result.judge["generate_score"]
    assert [c.ok for c in execution.calls] == [False, True]
    assert execution.calls[0].error_kind is ErrorKind.SERVER_ERROR
    assert len(waits) == 1
