"""Classification of judge failures and the default retry policy."""

from __future__ import annotations

from typing import Any

import pytest

from scorer_runtime.errors import ErrorKind, ProviderError
from scorer_runtime.processors import classify_error, is_auth_failure, is_retryable_by_default


def err(message: str = "failed", **fields: Any) -> ProviderError:
    return ProviderError(message, **fields)


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (err(status_code=429), ErrorKind.RATE_LIMITED),
        (err(code="rate_limit_exceeded"), ErrorKind.RATE_LIMITED),
        (err(type="rate_limit_error"), ErrorKind.RATE_LIMITED),
        (err(status_code=429, code="insufficient_quota"), ErrorKind.RATE_LIMITED),
        (err(transport="timeout"), ErrorKind.TIMEOUT),
        (err(status_code=408), ErrorKind.TIMEOUT),
        (err(code="request_timeout"), ErrorKind.TIMEOUT),
        (err(transport="connect"), ErrorKind.CONNECTION),
        (err(transport="reset"), ErrorKind.CONNECTION),
        (err(transport="dropped"), ErrorKind.CONNECTION),
        (err(status_code=401), ErrorKind.AUTH),
        (err(status_code=403), ErrorKind.AUTH),
        (err(code="invalid_api_key", type="invalid_request_error"), ErrorKind.AUTH),
        (err(code="permission_denied"), ErrorKind.AUTH),
        (err(type="authentication_error"), ErrorKind.AUTH),
        (err(code="ACCESS_DENIED"), ErrorKind.AUTH),
        (err(type="forbidden"), ErrorKind.AUTH),
        (err(status_code=400, code="context_length_exceeded"), ErrorKind.CONTEXT_LENGTH),
        (
            err("This model's maximum context length is 8192 tokens", status_code=400),
            ErrorKind.CONTEXT_LENGTH,
        ),
        (err("Input exceeds the context length"), ErrorKind.CONTEXT_LENGTH),
        (err("Too many tokens in the request", status_code=400), ErrorKind.CONTEXT_LENGTH),
        (
            err("prompt is too long: 210000 tokens > 200000", status_code=400),
            ErrorKind.CONTEXT_LENGTH,
        ),
        (err(status_code=400), ErrorKind.INVALID_REQUEST),
        (err(status_code=404), ErrorKind.INVALID_REQUEST),
        (err(status_code=413), ErrorKind.INVALID_REQUEST),
        (err(status_code=422), ErrorKind.INVALID_REQUEST),
        (err(status_code=418), ErrorKind.INVALID_REQUEST),
        (err(type="invalid_request_error"), ErrorKind.INVALID_REQUEST),
        (err(status_code=500), ErrorKind.SERVER_ERROR),
        (err(status_code=503), ErrorKind.SERVER_ERROR),
        (err(status_code=529, type="overloaded_error"), ErrorKind.SERVER_ERROR),
        (err(status_code=409), ErrorKind.SERVER_ERROR),
        (err(code="server_error"), ErrorKind.SERVER_ERROR),
        (err(code="internal_error"), ErrorKind.SERVER_ERROR),
        (err(type="overloaded"), ErrorKind.SERVER_ERROR),
        (err(code="service_unavailable"), ErrorKind.SERVER_ERROR),
        (err(code="temporarily_unavailable"), ErrorKind.SERVER_ERROR),
    ],
)
def test_classify_each_kind(error: ProviderError, kind: ErrorKind) -> None:
    assert classify_error(error) is kind
    assert error.kind is kind


def test_transport_wins_over_status() -> None:
    # litellm reports a dropped connection as a 500 "Connection error.".
    dropped = err("Connection error.", status_code=500, transport="dropped")
    assert classify_error(dropped) is ErrorKind.CONNECTION
    assert classify_error(err(status_code=500, transport="timeout")) is ErrorKind.TIMEOUT


def test_rate_limit_wins_over_token_wording() -> None:
    tpm = err("Too many tokens per minute, please slow down", status_code=429)
    assert classify_error(tpm) is ErrorKind.RATE_LIMITED


def test_explicit_context_length_code_wins_over_rate_limit_status() -> None:
    assert classify_error(err(status_code=429, code="context_length_exceeded")) is (
        ErrorKind.CONTEXT_LENGTH
    )


@pytest.mark.parametrize(
    "error",
    [err(), err(status_code=302), err("something odd"), err(code="weird")],
)
def test_unclassifiable_is_none(error: ProviderError) -> None:
    assert classify_error(error) is None


@pytest.mark.parametrize(
    "error",
    [
        err(status_code=408),
        err(status_code=409),
        err(status_code=429),
        err(status_code=500),
        err(status_code=502),
        err(status_code=503),
        err(status_code=504),
        err(status_code=599),
        err(transport="connect"),
        err(transport="reset"),
        err(transport="dropped"),
        err(transport="timeout"),
        err(retryable=True),
        err(status_code=400, retryable=True),
        err(code="rate_limit_exceeded"),
        err(type="server_error"),
        err(code="internal_error"),
        err(type="overloaded_error"),
        err(code="timeout"),
        err(code="temporarily_unavailable"),
        err(code="service_unavailable"),
        err("The server had an error. You can retry your request, or contact us."),
        err("YOU CAN RETRY YOUR REQUEST", status_code=400),
        err(status_code=429, code="insufficient_quota", retryable=True),
    ],
)
def test_retried_by_default(error: ProviderError) -> None:
    assert is_retryable_by_default(error) is True


@pytest.mark.parametrize(
    "error",
    [
        err(status_code=400),
        err(status_code=404),
        err(status_code=422),
        err(status_code=400, code="context_length_exceeded"),
        err("maximum context length exceeded", status_code=400),
        err(status_code=401),
        err(status_code=403),
        err(code="invalid_api_key"),
        err(code="permission_denied"),
        err(type="authentication_error"),
        err(code="access_denied"),
        err(type="forbidden"),
        err(),
        err(code="something_else"),
        # The provider's own "do not retry" wins over a retried status.
        err(status_code=503, retryable=False),
        err(status_code=429, retryable=False),
        # Quota exhaustion will not recover in seconds.
        err(status_code=429, code="insufficient_quota"),
        err(status_code=429, type="billing_hard_limit_reached"),
    ],
)
def test_not_retried_by_default(error: ProviderError) -> None:
    assert is_retryable_by_default(error) is False


@pytest.mark.parametrize(
    "error",
    [
        err(status_code=401, retryable=True),
        err(code="invalid_api_key", retryable=True),
        err("you can retry your request", status_code=403),
        err(status_code=400, code="context_length_exceeded", retryable=True),
        err("maximum context length. You can retry your request", status_code=400),
    ],
)
def test_auth_and_context_length_beat_retry_hints(error: ProviderError) -> None:
    assert is_retryable_by_default(error) is False


def test_is_auth_failure() -> None:
    assert is_auth_failure(err(status_code=401))
    assert is_auth_failure(err(status_code=403))
    assert is_auth_failure(err(code="authentication_error"))
    assert not is_auth_failure(err(status_code=400))
    assert not is_auth_failure(err(status_code=429))
    assert not is_auth_failure(err(transport="connect"))
