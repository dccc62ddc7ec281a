"""JSON from people's files, read without hanging, crashing or inventing numbers.

:func:`loads` is ``json.loads`` with the checks an untrusted document needs: nesting is
measured by a linear scan *before* parsing (the standard parser recurses, and a document
nested 100,000 deep ends in ``RecursionError``), ``NaN``/``Infinity`` and numbers too large
for a float are refused (JSON has no such values), as are numbers that would silently change
(``1e-400`` would become 0), whole numbers longer than Python reads (4,300 digits), and
escapes of half a UTF-16 pair (``"\\ud800"``: no character, and no UTF-8 can hold it, so
writing it out later would fail); duplicate keys can be refused. Every refusal is a
:class:`JsonLimitError` with a plain message and its line (a one-line text: line 1); the
message never quotes more of the text than the key or number it is about.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterator
from typing import Any

from scorer_runtime.limits import MAX_NESTING

MAX_INT_DIGITS = sys.int_info.default_max_str_digits
"""The longest whole number read (4,300 digits): Python refuses longer ones by default."""

# A JSON string (escapes included, closing quote optional at the end of the text) or one
# bracket: brackets inside strings never count.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')


class JsonLimitError(ValueError):
    """JSON refused for what it holds, not for its syntax; ``line`` is 1-based when known.

    ``literal`` is the number or constant refused as written (how its line is found).
    """

    def __init__(self, message: str, line: int | None = None, *, literal: str = "") -> None:
        self.message = message
        self.line = line
        self.literal = literal
        super().__init__(f"line {line}: {message}" if line is not None else message)

    def at(self, line: int | None) -> JsonLimitError:
        """This error, now at ``line``."""
        self.line = line
        self.args = (f"line {line}: {self.message}" if line is not None else self.message,)
        return self


class DuplicateKeyError(JsonLimitError):
    """An object names the same key twice (``key`` is that key)."""

    def __init__(self, key: str) -> None:
        self.key = key
        shown = key if len(key) <= 60 else key[:57] + "..."
        super().__init__(f"the key {shown!r} appears twice in one object; keep one of them")


class LoneSurrogateError(JsonLimitError):
    """A string holds an escape of half a UTF-16 pair (``\\ud800`` with no other half)."""

    def __init__(self, code: int) -> None:
        super().__init__(
            f"a text holds \\u{code:04x}, half of a pair of escapes with no other half: it is "
            "no character, so it cannot be stored or written out; remove it, or write the "
            "whole character (an emoji is two escapes, like \\ud83d\\ude00)"
        )


def nesting_offset(text: str, limit: int = MAX_NESTING) -> int | None:
    """Where lists/objects in ``text`` first nest deeper than ``limit`` (None: never).

    One pass over the text, no recursion; text with few brackets is not even scanned.
    """
    if text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    for match in _TOKENS.finditer(text):
        char = text[match.start()]
        if char in "[{":
            depth += 1
            if depth > limit:
                return match.start()
        elif char in "]}":
            depth = max(depth - 1, 0)
    return None


def line_at(text: str, offset: int) -> int:
    """The 1-based line of ``offset`` in ``text``."""
    return text.count("\n", 0, offset) + 1


def too_deep_message(limit: int) -> str:
    """The words for nesting over ``limit``."""
    return f"lists and objects nest more than {limit} deep (the limit); flatten the data"


def loads(text: str, *, max_depth: int = MAX_NESTING, unique_keys: bool = False) -> Any:
    """``text`` as JSON data; :class:`JsonLimitError` for what must not be read.

    Syntax errors stay ``json.JSONDecodeError`` (with line and column), so callers word
    them as before. ``unique_keys`` refuses an object that names a key twice (the standard
    parser silently keeps the last).
    """
    offset = nesting_offset(text, max_depth)
    if offset is not None:
        raise JsonLimitError(too_deep_message(max_depth), line_at(text, offset))
    hook = _unique_object if unique_keys else None
    try:
        data = json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_float=_finite,
            parse_int=_whole,
            object_pairs_hook=hook,
        )
        if _SURROGATE_ESCAPE.search(text):
            _refuse_lone_surrogates(data)
    except JsonLimitError as error:
        raise error.at(error.line or _line_of(text, error)) from None
    except RecursionError:  # not reached after the scan; kept so no traceback ever escapes
        raise JsonLimitError(too_deep_message(max_depth)) from None
    return data


def _refuse_constant(name: str) -> Any:
    raise JsonLimitError(
        f"{name} is not a JSON number; write null or a number instead", literal=name
    )


def _finite(text: str) -> float:
    value = float(text)
    shown = text if len(text) <= 24 else text[:21] + "..."
    if not math.isfinite(value):
        message = f"the number {shown} is too large to store; write a smaller one"
        raise JsonLimitError(message, literal=text)
    if value == 0 and re.search(r"[1-9]", text.lower().partition("e")[0]):
        raise JsonLimitError(
            f"the number {shown} is too small to store: it would be stored as 0; write 0, "
            "or the number in quotes as text",
            literal=text,
        )
    return value


def _whole(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise JsonLimitError(
            f"a whole number of {digits:,} digits is too long to store (the limit is "
            f"{MAX_INT_DIGITS:,} digits); write it in quotes, as text",
            literal=text,
        )
    return int(text)


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKeyError(key)
        out[key] = value
    return out


# -- lone surrogates -------------------------------------------------------------------------

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _lone_surrogate(text: str) -> int | None:
    """The first character of ``text`` that is half of a UTF-16 pair, or None."""
    for char in text:
        if "\ud800" <= char <= "\udfff":
            return ord(char)
    return None


def _refuse_lone_surrogates(data: Any) -> None:
    """Raise :class:`LoneSurrogateError` for the first text (key or value) holding one."""
    todo = [data]
    while todo:  # no recursion: the depth is capped, but a loop needs no stack
        value = todo.pop()
        if isinstance(value, dict):
            todo += list(value.keys()) + list(value.values())
        elif isinstance(value, list):
            todo += value
        elif isinstance(value, str):
            code = _lone_surrogate(value)
            if code is not None:
                raise LoneSurrogateError(code)


# -- finding the line of a refusal -----------------------------------------------------------

_PARTS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}:]|[^\s\[\]{}:,"]+')
"""A JSON string, a bracket, a colon, or a bare word (number or constant)."""


def _line_of(text: str, error: JsonLimitError) -> int | None:
    """The line of what ``error`` refuses (1 for text of one line; None when not found)."""
    if "\n" not in text:
        return 1
    if isinstance(error, DuplicateKeyError):
        offset = _duplicate_key_offset(text, error.key)
    elif isinstance(error, LoneSurrogateError):
        offset = next((m.start() for m in _strings(text) if _holds_lone(m.group())), None)
    else:
        offset = next((m.start() for m in _PARTS.finditer(text) if m[0] == error.literal), None)
    return None if offset is None else line_at(text, offset)


def _strings(text: str) -> Iterator[re.Match[str]]:
    return (m for m in _PARTS.finditer(text) if m[0].startswith('"'))


def _holds_lone(token: str) -> bool:
    try:
        return _lone_surrogate(json.loads(token)) is not None
    except ValueError:
        return False


def _duplicate_key_offset(text: str, key: str) -> int | None:
    """Where an object of ``text`` names ``key`` a second time (one pass, no recursion)."""
    keys: list[set[str] | None] = []  # per open object its keys so far; None for a list
    candidate: re.Match[str] | None = None  # a text in an object: a key when ":" follows
    for part in _PARTS.finditer(text):
        word = part[0]
        if word == ":" and candidate is not None and keys and keys[-1] is not None:
            name = _text_of(candidate[0])
            if name == key and name in keys[-1]:
                return candidate.start()
            if name is not None:
                keys[-1].add(name)
        candidate = part if word.startswith('"') else None
        if word in ("{", "["):
            keys.append(set() if word == "{" else None)
        elif word in ("}", "]") and keys:
            keys.pop()
    return None


def _text_of(token: str) -> str | None:
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None
