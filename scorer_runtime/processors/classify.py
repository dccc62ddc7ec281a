"""Classify failed judge requests: which :class:`ErrorKind` they are, and whether to retry.

Everything here works on :class:`~scorer_runtime.errors.ProviderError` alone (status code,
lower-cased headers, OpenAI-style ``code``/``type``, the provider's ``retryable`` hint and the
``transport`` failure), so retry decisions never depend on a model library's exception classes.

Classification table (first rule that fits wins):

====================================================  =================  ===================
Signal                                                Kind               Retried by default
====================================================  =================  ===================
transport ``connect`` / ``reset`` / ``dropped``       connection         yes
transport ``timeout``                                 timeout            yes
HTTP 401/403, or an auth code/type                    auth               never
code/type containing ``context_length``               context_length     never
HTTP 429, or code/type containing ``rate_limit``      rate_limited       yes (not quota)
message about the context length / too many tokens    context_length     never
HTTP 408, or code/type containing ``timeout``         timeout            yes
code/type naming a server-side failure                server_error       yes
code ``invalid_response`` (not a chat completion)     server_error       yes
HTTP 409 or >= 500                                    server_error       yes
other HTTP 4xx (400, 404, 413, 422, ...)              invalid_request    no
code/type containing ``invalid_request``              invalid_request    no
anything else                                         None               no
====================================================  =================  ===================

The provider's own ``retryable`` hint overrides the "retried by default" column, except that
auth and context-length failures are never retried by default: no amount of waiting fixes a
bad key or an over-long prompt. Quota exhaustion (``insufficient_quota``, billing codes) is
recorded as ``rate_limited`` but not retried unless the provider says so, for the same reason.
"""

from __future__ import annotations

import re

from scorer_runtime.errors import ErrorKind, ProviderError

__all__ = ["classify_error", "is_auth_failure", "is_retryable_by_default"]

# Substrings of an OpenAI-style ``error.code`` / ``error.type`` (compared lower-cased).
# Containment rather than equality, because providers decorate the same idea differently
# (``rate_limit_exceeded``, ``rate_limit_error``, ``overloaded_error``, ``PERMISSION_DENIED``).
_AUTH_MARKERS = (
    "invalid_api_key",
    "api_key_invalid",
    "permission_denied",
    "permission_error",
    "authentication",
    "access_denied",
    "forbidden",
    "unauthorized",
    "unauthenticated",
)
_CONTEXT_LENGTH_MARKERS = ("context_length",)
_RATE_LIMIT_MARKERS = ("rate_limit",)
_QUOTA_MARKERS = ("insufficient_quota", "quota_exceeded", "billing")
_TIMEOUT_MARKERS = ("timeout",)
_SERVER_MARKERS = (
    "server_error",
    "internal_error",
    "overloaded",
    "service_unavailable",
    "temporarily_unavailable",
    # The judge client's code for an answer that is not a chat completion (an HTML page, an
    # empty body): a gateway or proxy answered in the model server's place, which is as
    # transient as a 502 from the same gateway.
    "invalid_response",
)
_INVALID_REQUEST_MARKERS = ("invalid_request",)

_AUTH_STATUSES = frozenset({401, 403})

# Context-length failures often arrive as a plain 400 whose only clue is the wording
# (OpenAI, Anthropic "prompt is too long", vLLM, Ollama, litellm's own message).
_CONTEXT_LENGTH_MESSAGE = re.compile(
    r"context[ _]length|context window|too many tokens|prompt is too long",
    re.IGNORECASE,
)
_RETRY_ADVICE_MESSAGE = re.compile(r"you can retry your request", re.IGNORECASE)

_RETRIED_KINDS = frozenset(
    {ErrorKind.RATE_LIMITED, ErrorKind.SERVER_ERROR, ErrorKind.CONNECTION, ErrorKind.TIMEOUT}
)
_NEVER_RETRIED_KINDS = frozenset({ErrorKind.AUTH, ErrorKind.CONTEXT_LENGTH})


def _has_marker(error: ProviderError, markers: tuple[str, ...]) -> bool:
    """Whether the error's code or type contains one of ``markers`` (case-insensitive)."""
    for value in (error.code, error.type):
        if value and any(marker in value.lower() for marker in markers):
            return True
    return False


def _kind_from_transport(error: ProviderError) -> ErrorKind | None:
    # Transport wins over status: litellm reports a dropped connection as a 500
    # "Connection error.", which is a connection failure, not a server answer.
    if error.transport == "timeout":
        return ErrorKind.TIMEOUT
    if error.transport is not None:
        return ErrorKind.CONNECTION
    return None


def _kind_from_explicit_signals(error: ProviderError) -> ErrorKind | None:
    """Kinds named by the status code or error code that no other signal may override."""
    if error.status_code in _AUTH_STATUSES or _has_marker(error, _AUTH_MARKERS):
        return ErrorKind.AUTH
    if _has_marker(error, _CONTEXT_LENGTH_MARKERS):
        return ErrorKind.CONTEXT_LENGTH
    if error.status_code == 429 or _has_marker(error, _RATE_LIMIT_MARKERS):
        return ErrorKind.RATE_LIMITED
    # Checked after rate limits: a TPM limit message may mention "tokens" too.
    if _CONTEXT_LENGTH_MESSAGE.search(error.message):
        return ErrorKind.CONTEXT_LENGTH
    if error.status_code == 408 or _has_marker(error, _TIMEOUT_MARKERS):
        return ErrorKind.TIMEOUT
    if _has_marker(error, _SERVER_MARKERS):
        return ErrorKind.SERVER_ERROR
    return None


def _kind_from_status(error: ProviderError) -> ErrorKind | None:
    status = error.status_code
    if status is not None:
        # 409 is a server-side conflict (a lock or an in-flight duplicate) that clears on its
        # own; it says nothing about the caller's rate, so it is a server error, not a limit.
        if status == 409 or status >= 500:
            return ErrorKind.SERVER_ERROR
        if 400 <= status < 500:
            return ErrorKind.INVALID_REQUEST
    if _has_marker(error, _INVALID_REQUEST_MARKERS):
        return ErrorKind.INVALID_REQUEST
    return None


def classify_error(error: ProviderError) -> ErrorKind | None:
    """Return the kind of a failed judge request, or None when no kind describes it.

    The kind is what a judge execution records, and what the default retry policy reads.
    See the module docstring for the full table and its order.
    """
    return (
        _kind_from_transport(error)
        or _kind_from_explicit_signals(error)
        or _kind_from_status(error)
    )


def is_auth_failure(error: ProviderError) -> bool:
    """Whether the request failed because of credentials or permissions (never retried by default).

    Retrying with the same key cannot succeed, and hammering an auth endpoint can get a key
    locked, so even ``retry_unknown_errors`` leaves these alone; only an explicit matcher
    retries them.
    """
    return classify_error(error) is ErrorKind.AUTH


def is_retryable_by_default(error: ProviderError) -> bool:
    """Whether the default policy retries this failure.

    Retried: HTTP 408, 409, 429 and >= 500; connection refused, reset or dropped; timeouts;
    ``error.retryable is True``; rate-limit, timeout and server-side error codes; messages
    saying "you can retry your request". Not retried: auth and context-length failures
    (whatever the hints say), ``error.retryable is False``, quota exhaustion, and any other
    client error such as a 400 invalid request.
    """
    kind = classify_error(error)
    if kind in _NEVER_RETRIED_KINDS:
        return False
    if error.retryable is not None:
        return error.retryable
    # An exhausted quota or billing limit answers 429 but will not recover in seconds.
    if _has_marker(error, _QUOTA_MARKERS):
        return False
    if kind in _RETRIED_KINDS:
        return True
    return bool(_RETRY_ADVICE_MESSAGE.search(error.message))
