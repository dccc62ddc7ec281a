"""JSON from people's files, read without hanging, crashing or inventing numbers.

:func:`loads` is ``json.loads`` with the checks an untrusted document needs: nesting is
measured by a linear scan *before* parsing (the standard parser recurses, and a document
nested 100,000 deep ends in ``RecursionError``), ``NaN``/``Infinity`` and numbers too large
for a float are refused (JSON has no such values), and duplicate keys can be refused. Every
refusal is a :class:`JsonLimitError` with a plain message and, when known, its line.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from scorer_runtime.limits import MAX_NESTING

# A JSON string (escapes included, closing quote optional at the end of the text) or one
# bracket: brackets inside strings never count.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')


class JsonLimitError(ValueError):
    """JSON refused for what it holds, not for its syntax; ``line`` is 1-based when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.message = message
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)


class DuplicateKeyError(JsonLimitError):
    """An object names the same key twice (``key`` is that key)."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"the key {key!r} appears twice in one object; keep one of them")


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
        return json.loads(
            text, parse_constant=_refuse_constant, parse_float=_finite, object_pairs_hook=hook
        )
    except RecursionError:  # not reached after the scan; kept so no traceback ever escapes
        raise JsonLimitError(too_deep_message(max_depth)) from None


def _refuse_constant(name: str) -> Any:
    raise JsonLimitError(f"{name} is not a JSON number; write null or a number instead")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 24 else text[:21] + "..."
        raise JsonLimitError(f"the number {shown} is too large to store; write a smaller one")
    return value


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKeyError(key)
        out[key] = value
    return out
