"""Built-in processors: RedactPII, TruncateInput, OutputGuard."""

from __future__ import annotations

import copy
import re

import pytest

from scorer_runtime.errors import OutputRejectedError
from scorer_runtime.processors import (
    InputProcessor,
    JudgeMessage,
    OutputGuard,
    OutputProcessor,
    ProcessorContext,
    RedactPII,
    TruncateInput,
)

CONTEXT = ProcessorContext(
    scorer_id="quality", step="generate_score", run_id="run-1", model="openai/gpt-4o-mini"
)


def test_builtins_implement_the_protocols() -> None:
    assert isinstance(RedactPII(), InputProcessor)
    assert isinstance(TruncateInput(max_chars=100), InputProcessor)
    assert isinstance(OutputGuard(["x"]), OutputProcessor)


# --- RedactPII -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mail john.doe+tag@example.co.uk now", "mail [REDACTED:email] now"),
        ("ANA@Sub.Example.ORG.", "[REDACTED:email]."),
        ("call +1 415 555 2671", "call [REDACTED:phone]"),
        ("call +1 (415) 555-2671.", "call [REDACTED:phone]."),
        ("tel +44 20 7946 0958", "tel [REDACTED:phone]"),
        ("tel +49 (0)30 1234567", "tel [REDACTED:phone]"),
        ("tel +33 1 23 45 67 89", "tel [REDACTED:phone]"),
        ("tel +4915112345678", "tel [REDACTED:phone]"),
        ("tel (415) 555-2671", "tel [REDACTED:phone]"),
        ("tel 415-555-2671", "tel [REDACTED:phone]"),
        ("tel 415.555.2671", "tel [REDACTED:phone]"),
        ("tel 020 7946 0958", "tel [REDACTED:phone]"),
        ("pay 4111 1111 1111 1111", "pay [REDACTED:card]"),
        ("pay 4111-1111-1111-1111", "pay [REDACTED:card]"),
        ("pay 5555555555554444", "pay [REDACTED:card]"),
        ("amex 3782 822463 10005", "amex [REDACTED:card]"),
        ("key sk-proj-abcdefghijklmnopqrstuvwxyz0123", "key [REDACTED:api_key]"),
        ("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "key [REDACTED:api_key]"),
        ("aws AKIAIOSFODNN7EXAMPLE", "aws [REDACTED:api_key]"),
        ("gh ghp_abcdefghijklmnopqrstuvwxyz0123456789", "gh [REDACTED:api_key]"),
        ("slack xoxb-1234567890-abcdefghij", "slack [REDACTED:api_key]"),
        ("slack xoxp-1234567890-abcdefghij", "slack [REDACTED:api_key]"),
        ("slack xoxa-1234567890-abcdefghij", "slack [REDACTED:api_key]"),
        (
            "Authorization: Bearer 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
            "Authorization: Bearer [REDACTED:api_key]",
        ),
        (
            "authorization: bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
            "authorization: bearer [REDACTED:api_key]",
        ),
    ],
)
def test_redacts_each_kind(text: str, expected: str) -> None:
    assert RedactPII().redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Delivered on 2024-01-15 at 10:30",
        "Dates 15.01.2024 and 01/15/2024",
        "Order 4111 1111 1111 1112 failed the checksum",
        "Order id 1234567890123456",
        "Timestamp 1700000000000 ms",
        "Ticket 12345, room 42, call ext. 555",
        "Version 1.2.3 on 192.168.1.10",
        "Total 1,234.56 EUR for 2024 and 2025",
        "task-abcdefghijklmnopqrstuvwxyz is a slug, not a key",
        "Bearer short",
        "An @mention and a user@localhost",
    ],
)
def test_leaves_non_pii_alone(text: str) -> None:
    assert RedactPII().redact(text) == text


def test_mixed_text() -> None:
    text = "Reach me at ana@example.com or +1 415 555 2671; card 4111 1111 1111 1111, order 98765."
    assert RedactPII().redact(text) == (
        "Reach me at [REDACTED:email] or [REDACTED:phone]; card [REDACTED:card], order 98765."
    )


def test_process_input_returns_new_messages_without_mutating() -> None:
    messages: list[JudgeMessage] = [
        {"role": "system", "content": "Judge politely. Escalations: ops@example.com"},
        {"role": "user", "content": "My key is sk-abcdefghijklmnopqrstuvwxyz01"},
    ]
    before = copy.deepcopy(messages)
    result = RedactPII().process_input(messages, CONTEXT)
    assert messages == before
    assert result is not messages
    assert all(new is not old for new, old in zip(result, messages, strict=True))
    assert result == [
        {"role": "system", "content": "Judge politely. Escalations: [REDACTED:email]"},
        {"role": "user", "content": "My key is [REDACTED:api_key]"},
    ]


def test_custom_patterns_and_replacement() -> None:
    redactor = RedactPII(
        {"employee_id": r"\bEMP-\d{5}\b", "ssn": re.compile(r"\b\d{3}-\d{2}-\d{4}\b")},
        replacement="<{name}>",
    )
    text = "EMP-12345 (ssn 123-45-6789) wrote to bo@example.com"
    assert redactor.redact(text) == "<employee_id> (ssn <ssn>) wrote to <email>"


def test_custom_pattern_with_redact_group_keeps_context() -> None:
    redactor = RedactPII({"password": r"password=(?P<redact>\S+)"}, include_defaults=False)
    assert redactor.redact("user=bo password=hunter2 ok") == (
        "user=bo password=[REDACTED:password] ok"
    )


def test_custom_pattern_replaces_builtin_of_same_name() -> None:
    redactor = RedactPII({"phone": r"\b\d{3}-\d{4}\b"})
    assert redactor.redact("call 555-1234 or +1 415 555 2671") == (
        "call [REDACTED:phone] or +1 415 555 2671"
    )


def test_without_defaults_only_custom_patterns_apply() -> None:
    redactor = RedactPII({"token": r"tok_\w+"}, include_defaults=False)
    assert redactor.redact("tok_abc and a@b.com") == "[REDACTED:token] and a@b.com"


def test_nothing_to_redact_is_rejected() -> None:
    with pytest.raises(ValueError, match="nothing to redact"):
        RedactPII(include_defaults=False)


def test_invalid_custom_regex_fails_at_construction() -> None:
    with pytest.raises(re.error):
        RedactPII({"broken": "(unclosed"})


# --- TruncateInput -------------------------------------------------------------------------

TEXT = "abcdefghijklmnopqrstuvwxyz0123456789"  # 36 chars
MARK = "…[truncated]"  # 12 chars


def test_short_text_is_unchanged() -> None:
    assert TruncateInput(max_chars=36).truncate(TEXT) == TEXT


@pytest.mark.parametrize(
    ("keep", "expected"),
    [
        ("head", "abcdefgh" + MARK),
        ("tail", MARK + "23456789"),
        ("both", "abcd" + MARK + "6789"),
    ],
)
def test_char_budget_modes(keep: str, expected: str) -> None:
    result = TruncateInput(max_chars=20, keep=keep).truncate(TEXT)  # type: ignore[arg-type]
    assert result == expected
    assert len(result) == 20


def test_both_with_odd_budget_keeps_extra_char_at_head() -> None:
    assert TruncateInput(max_chars=21, keep="both").truncate(TEXT) == "abcde" + MARK + "6789"


def test_approximate_token_budget() -> None:
    # ceil(chars / 4) <= 5 tokens means at most 20 characters, marker included.
    result = TruncateInput(max_tokens=5, marker="...").truncate(TEXT)
    assert result == "abcdefghijklmnopq..."


def test_custom_token_counter() -> None:
    def utf8_bytes(text: str) -> int:
        return len(text.encode("utf-8"))

    # "…" is one character but three bytes: the custom counter, not len(), sets the cut.
    head = TruncateInput(max_tokens=20, count_tokens=utf8_bytes, marker="…")
    assert head.truncate(TEXT) == "abcdefghijklmnopq…"
    tail = TruncateInput(max_tokens=20, count_tokens=utf8_bytes, marker="…", keep="tail")
    assert tail.truncate(TEXT) == "…tuvwxyz0123456789"
    assert utf8_bytes(tail.truncate(TEXT)) == 20


def test_only_user_messages_are_truncated() -> None:
    messages: list[JudgeMessage] = [
        {"role": "system", "content": TEXT},
        {"role": "user", "content": TEXT},
        {"role": "assistant", "content": TEXT},
        {"role": "user", "content": "short"},
    ]
    before = copy.deepcopy(messages)
    result = TruncateInput(max_chars=20).process_input(messages, CONTEXT)
    assert messages == before
    assert [m["content"] for m in result] == [TEXT, "abcdefgh" + MARK, TEXT, "short"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "exactly one of max_chars or max_tokens"),
        ({"max_chars": 10, "max_tokens": 10}, "exactly one of max_chars or max_tokens"),
        ({"max_chars": 0}, "positive int"),
        ({"max_tokens": -3}, "positive int"),
        ({"max_chars": 10, "count_tokens": len}, "count_tokens only applies with max_tokens"),
        ({"max_chars": 10, "keep": "middle"}, "keep must be"),
        ({"max_chars": 5}, "marker"),
    ],
)
def test_truncate_input_validation(args: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TruncateInput(**args)  # type: ignore[arg-type]


# --- OutputGuard ---------------------------------------------------------------------------


def test_output_guard_accepts_clean_answer() -> None:
    guard = OutputGuard([r"\bssn\b", r"as an ai language model"])
    text = '{"score": 0.8, "reason": "clear and correct"}'
    assert guard.process_output(text, CONTEXT) is text


def test_output_guard_rejects_case_insensitively_and_names_pattern() -> None:
    guard = OutputGuard([r"\bssn\b", r"as an ai language model"])
    with pytest.raises(OutputRejectedError) as caught:
        guard.process_output("As an AI Language Model I cannot score this.", CONTEXT)
    assert caught.value.processor == "OutputGuard"
    message = str(caught.value)
    assert "'as an ai language model'" in message
    assert "'quality'" in message
    assert "generate_score" in message
    assert "judge instructions" in message
    assert "I cannot score" not in message  # the matched text is not echoed


def test_output_guard_flags_are_configurable() -> None:
    guard = OutputGuard(["SECRET"], flags=0)
    assert guard.process_output("a secret", CONTEXT) == "a secret"
    with pytest.raises(OutputRejectedError):
        guard.process_output("a SECRET", CONTEXT)


def test_output_guard_accepts_single_and_compiled_patterns() -> None:
    assert OutputGuard("abc").process_output("xyz", CONTEXT) == "xyz"
    with pytest.raises(OutputRejectedError):
        OutputGuard("abc").process_output("ABC", CONTEXT)
    case_sensitive = OutputGuard([re.compile("Abc")])
    assert case_sensitive.process_output("abc", CONTEXT) == "abc"


def test_output_guard_custom_message() -> None:
    with pytest.raises(OutputRejectedError, match=r"^No names please \('\\\\bbob\\\\b'\)$"):
        OutputGuard([r"\bbob\b"], message="No names please ({pattern})").process_output(
            "bob did it", CONTEXT
        )
    with pytest.raises(OutputRejectedError, match=r"No names\. \(blocked pattern: 'bob'\)"):
        OutputGuard(["bob"], message="No names.").process_output("bob", CONTEXT)


def test_output_guard_needs_a_pattern() -> None:
    with pytest.raises(ValueError, match="at least one pattern"):
        OutputGuard([])


def test_reprs() -> None:
    assert repr(RedactPII(include_defaults=False, patterns={"x": "x"})) == (
        "RedactPII(rules=[x], replacement='[REDACTED:{name}]')"
    )
    assert repr(TruncateInput(max_tokens=100, keep="both")) == (
        "TruncateInput(max_tokens=100, marker='…[truncated]', keep='both')"
    )
    assert repr(OutputGuard(["a", "b"])) == "OutputGuard(patterns=['a', 'b'])"
