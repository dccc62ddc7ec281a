"""Processors around one judge request: input, output and error processors.

The protocols (:class:`InputProcessor`, :class:`OutputProcessor`, :class:`ErrorProcessor`)
and their context types live in :mod:`scorer_runtime.processors.base`; this package
re-exports them with the built-in processors and the retry classification helpers.
"""

from __future__ import annotations

from scorer_runtime.processors.base import (
    NO_RETRY,
    ErrorProcessor,
    InputProcessor,
    JudgeMessage,
    OutputProcessor,
    ProcessorContext,
    RetryContext,
    RetryDecision,
)
from scorer_runtime.processors.builtin import OutputGuard, RedactPII, TruncateInput
from scorer_runtime.processors.classify import (
    classify_error,
    is_auth_failure,
    is_retryable_by_default,
)
from scorer_runtime.processors.policies import (
    ExponentialBackoff,
    MessageContains,
    StatusIn,
    exponential_backoff,
    message_contains,
    status_in,
)
from scorer_runtime.processors.retry import (
    DelayMs,
    ErrorPredicate,
    RetryMatcher,
    StreamErrorRetryProcessor,
    parse_retry_after_ms,
)

__all__ = [
    "NO_RETRY",
    "DelayMs",
    "ErrorPredicate",
    "ErrorProcessor",
    "ExponentialBackoff",
    "InputProcessor",
    "JudgeMessage",
    "MessageContains",
    "OutputGuard",
    "OutputProcessor",
    "ProcessorContext",
    "RedactPII",
    "RetryContext",
    "RetryDecision",
    "RetryMatcher",
    "StatusIn",
    "StreamErrorRetryProcessor",
    "TruncateInput",
    "classify_error",
    "exponential_backoff",
    "is_auth_failure",
    "is_retryable_by_default",
    "message_contains",
    "parse_retry_after_ms",
    "status_in",
]
