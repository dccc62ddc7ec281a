"""Built-in input and output processors for real judge traffic.

- :class:`RedactPII` keeps e-mail addresses, phone numbers, payment cards and API keys out of
  the judge's prompt.
- :class:`TruncateInput` keeps over-long inputs within a character or token budget.
- :class:`OutputGuard` rejects judge answers that match blocked patterns.

All regexes are compiled once, at construction; processors never mutate their input.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from scorer_runtime.errors import OutputRejectedError
from scorer_runtime.processors.base import JudgeMessage, ProcessorContext
from scorer_runtime.processors.phones import PHONE, is_phone
from scorer_runtime.secrets import KEY_SHAPES, secret_span

__all__ = ["OutputGuard", "RedactPII", "TruncateInput"]

Keep = Literal["head", "tail", "both"]
BUILTIN_KINDS = ("email", "phone", "card", "api_key")
"""The built-in rules of :class:`RedactPII`, by name."""


def _luhn_ok(digits: str) -> bool:
    """The Luhn checksum every payment card number satisfies (most order ids do not)."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _is_card(text: str) -> bool:
    digits = re.sub(r"\D", "", text)
    # Issuer prefixes 2-6 (Mastercard 2-series, Amex/Diners/JCB, Visa, Mastercard, Discover/
    # UnionPay) rule out epoch timestamps and most internal ids before the checksum does.
    return 13 <= len(digits) <= 19 and digits[0] in "23456" and _luhn_ok(digits)


def _approx_tokens(text: str) -> int:
    """About four characters per token: close enough for English text and most tokenizers."""
    return math.ceil(len(text) / 4)


@dataclass(frozen=True, slots=True)
class _Rule:
    name: str
    pattern: re.Pattern[str]
    accept: Callable[[str], bool] | None = None


# Order matters: keys first (their digits must not be read as phones or cards), then e-mail,
# cards before phones (a 16-digit card must not be half-eaten as a phone number).
_DEFAULT_RULES = (
    _Rule("api_key", KEY_SHAPES),  # the shapes scorer_runtime.secrets redacts everywhere
    _Rule(
        "email",
        re.compile(
            r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
        ),
    ),
    _Rule("card", re.compile(r"(?<![\d+])\d(?:[ -]?\d){12,18}(?!\d)"), _is_card),
    _Rule("phone", PHONE, is_phone),
)


class RedactPII:
    """Input processor replacing personal data and secrets in every message before the judge.

    Built in (``include_defaults=True``): ``api_key`` (``sk-...``, ``sk-ant-...``, AWS
    ``AKIA...``, GitHub ``ghp_...``, Slack ``xox?-...``, Google ``AIza...``, bearer tokens),
    ``email``, ``card`` (13-19 digits, Luhn-checked, so order numbers survive) and ``phone``
    (international with + or 00, North-American and national formats, in groups split by
    spaces, dots, hyphens or parentheses; dates and short numbers survive).
    ``patterns`` adds ``{name: regex}`` rules, applied after the defaults; a name equal to a
    built-in one replaces it. When a regex has a group named ``redact``, only that group is
    replaced. ``replacement`` may contain ``{name}``, the rule's name. ``kinds`` keeps only
    some of the built-in rules (e.g. ``["email", "card"]``); None keeps all four.
    """

    def __init__(
        self,
        patterns: Mapping[str, str | re.Pattern[str]] | None = None,
        *,
        replacement: str = "[REDACTED:{name}]",
        include_defaults: bool = True,
        kinds: Iterable[str] | None = None,
    ) -> None:
        chosen = set(BUILTIN_KINDS if kinds is None else kinds)
        if unknown := sorted(chosen - set(BUILTIN_KINDS)):
            raise ValueError(f"unknown built-in kinds {unknown}; choose from {BUILTIN_KINDS}")
        custom = {name: re.compile(regex) for name, regex in (patterns or {}).items()}
        defaults = [r for r in _DEFAULT_RULES if include_defaults and r.name in chosen]
        rules = [
            _Rule(rule.name, custom.pop(rule.name), None) if rule.name in custom else rule
            for rule in defaults
        ]
        rules.extend(_Rule(name, pattern) for name, pattern in custom.items())
        if not rules:
            raise ValueError(
                "RedactPII has nothing to redact: pass patterns or keep include_defaults=True"
            )
        self._rules = tuple(rules)
        self.replacement = replacement

    def __repr__(self) -> str:
        names = ", ".join(rule.name for rule in self._rules)
        return f"RedactPII(rules=[{names}], replacement={self.replacement!r})"

    def redact(self, text: str) -> str:
        """Return ``text`` with every rule's matches replaced."""
        for rule in self._rules:
            text = rule.pattern.sub(self._replacer(rule), text)
        return text

    def process_input(
        self, messages: list[JudgeMessage], context: ProcessorContext
    ) -> list[JudgeMessage]:
        """Return new messages whose contents are redacted (the input list is left as is)."""
        redacted: list[JudgeMessage] = []
        for message in messages:
            copy = message.copy()
            copy["content"] = self.redact(message["content"])
            redacted.append(copy)
        return redacted

    def _replacer(self, rule: _Rule) -> Callable[[re.Match[str]], str]:
        label = self.replacement.replace("{name}", rule.name)

        def replace(match: re.Match[str]) -> str:
            text = match.group(0)
            if rule.accept is not None and not rule.accept(text):
                return text
            if rule.pattern is KEY_SHAPES:
                start, end = secret_span(match)
                return text[:start] + label + text[end:]
            if "redact" in rule.pattern.groupindex and match.group("redact") is not None:
                start, end = match.span("redact")
                offset = match.start()
                return text[: start - offset] + label + text[end - offset :]
            return label

        return replace


class TruncateInput:
    """Input processor shortening over-long user messages to a character or token budget.

    Only ``user`` messages are shortened, each to the budget on its own; the system message
    (the judge's instructions) and other roles are never touched. Tokens are approximated as
    ``ceil(chars / 4)`` unless ``count_tokens`` is given. The budget includes ``marker``.
    ``keep`` chooses what survives: the ``"head"``, the ``"tail"``, or ``"both"`` ends with
    the marker in the middle.
    """

    def __init__(
        self,
        max_chars: int | None = None,
        max_tokens: int | None = None,
        *,
        count_tokens: Callable[[str], int] | None = None,
        marker: str = "…[truncated]",
        keep: Keep = "head",
    ) -> None:
        if (max_chars is None) == (max_tokens is None):
            raise ValueError("TruncateInput needs exactly one of max_chars or max_tokens")
        if count_tokens is not None and max_tokens is None:
            raise ValueError("count_tokens only applies with max_tokens")
        if keep not in ("head", "tail", "both"):
            raise ValueError(f"keep must be 'head', 'tail' or 'both', got {keep!r}")
        budget = max_chars if max_chars is not None else max_tokens
        if isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0:
            raise ValueError(f"the budget must be a positive int, got {budget!r}")
        self.max_chars = max_chars
        self.max_tokens = max_tokens
        self.count_tokens = count_tokens
        self.marker = marker
        self.keep: Keep = keep
        self._budget: int = budget
        self._measure: Callable[[str], int] = (
            len if max_chars is not None else (count_tokens or _approx_tokens)
        )
        if not self._fits(marker):
            raise ValueError(
                f"the marker {marker!r} alone exceeds the budget; raise the budget or shorten "
                "the marker"
            )

    def __repr__(self) -> str:
        budget = (
            f"max_chars={self.max_chars}"
            if self.max_chars is not None
            else f"max_tokens={self.max_tokens}"
        )
        return f"TruncateInput({budget}, marker={self.marker!r}, keep={self.keep!r})"

    def truncate(self, text: str) -> str:
        """Return ``text`` if it fits, else the longest cut that fits (marker included)."""
        if self._fits(text):
            return text
        # Binary search on the kept length: works for any monotone token counter, and for
        # the character budget it lands on the exact answer.
        low, high = 0, len(text) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if self._fits(self._cut(text, middle)):
                low = middle
            else:
                high = middle - 1
        return self._cut(text, low)

    def process_input(
        self, messages: list[JudgeMessage], context: ProcessorContext
    ) -> list[JudgeMessage]:
        """Return new messages with over-long user contents truncated."""
        result: list[JudgeMessage] = []
        for message in messages:
            copy = message.copy()
            if message["role"] == "user":
                copy["content"] = self.truncate(message["content"])
            result.append(copy)
        return result

    def _fits(self, text: str) -> bool:
        return self._measure(text) <= self._budget

    def _cut(self, text: str, kept: int) -> str:
        end = len(text)
        if self.keep == "head":
            return text[:kept] + self.marker
        if self.keep == "tail":
            return self.marker + text[end - kept :]
        head = (kept + 1) // 2
        return text[:head] + self.marker + text[end - (kept - head) :]


class OutputGuard:
    """Output processor rejecting judge answers that match any blocked pattern.

    Patterns are compiled with ``flags`` (case-insensitive by default; a precompiled pattern
    keeps its own flags). A match raises :class:`~scorer_runtime.errors.OutputRejectedError`
    naming the pattern; the matched text itself is not echoed, as it may be what the guard
    exists to keep out of logs. ``message`` replaces the default explanation; a
    ``{pattern}`` placeholder in it is filled in, otherwise the pattern is appended.
    """

    def __init__(
        self,
        patterns: str | re.Pattern[str] | Iterable[str | re.Pattern[str]],
        *,
        message: str | None = None,
        flags: int = re.IGNORECASE,
    ) -> None:
        # A lone string is one pattern, not an iterable of one-character patterns.
        items = [patterns] if isinstance(patterns, str | re.Pattern) else list(patterns)
        if not items:
            raise ValueError("OutputGuard needs at least one pattern")
        self._patterns = tuple(
            item if isinstance(item, re.Pattern) else re.compile(item, flags) for item in items
        )
        self.message = message

    def __repr__(self) -> str:
        patterns = ", ".join(repr(p.pattern) for p in self._patterns)
        return f"OutputGuard(patterns=[{patterns}])"

    def process_output(self, text: str, context: ProcessorContext) -> str:
        """Return ``text`` unchanged, or raise ``OutputRejectedError`` if a pattern matches."""
        for pattern in self._patterns:
            if pattern.search(text):
                raise OutputRejectedError(
                    self._explain(pattern.pattern, context), processor="OutputGuard"
                )
        return text

    def _explain(self, pattern: str, context: ProcessorContext) -> str:
        if self.message is None:
            return (
                f"OutputGuard rejected the judge's answer for scorer {context.scorer_id!r} "
                f"(step {context.step}): it matches the blocked pattern {pattern!r}. Adjust "
                "the judge instructions so answers avoid this content, or remove the pattern "
                "from OutputGuard if it is too broad."
            )
        if "{pattern}" in self.message:
            return self.message.replace("{pattern}", repr(pattern))
        return f"{self.message} (blocked pattern: {pattern!r})"
