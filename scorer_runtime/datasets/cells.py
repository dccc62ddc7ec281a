"""Reading and writing one example field as a CSV cell or a JSONL value.

CSV cells that look like JSON (start with ``{``, ``[`` or ``"``) are parsed. For input and
output a cell that does not parse stays text (an answer may well start with "["); for
ground truth, request context and tags it is an error, since there JSON was clearly meant.
Writing does the reverse, so a CSV export imports back to the same examples (numbers and
booleans in a CSV come back as text; JSONL keeps every type).
"""

from __future__ import annotations

import json
from typing import Any

from scorer_runtime import safe_json

LENIENT_FIELDS = frozenset({"input", "output"})


class CellError(ValueError):
    """A cell or value that cannot be read as its field; the message says why."""


def _json_error(error: json.JSONDecodeError) -> str:
    return f"{error.msg} (at character {error.pos + 1})"


def parse_cell(field: str, text: str) -> Any:
    """The value of a CSV cell for ``field`` (None for an empty cell)."""
    stripped = text.strip()
    if not stripped:
        return None
    value: Any = text
    if stripped[0] in '{["':
        try:
            value = safe_json.loads(stripped, unique_keys=True)
        except safe_json.JsonLimitError as e:  # too deep, NaN: an error even where text is fine
            raise CellError(f"cannot be read: {e.message}") from None
        except json.JSONDecodeError as e:
            if field in LENIENT_FIELDS or stripped[0] == '"':
                value = text
            else:
                raise CellError(f"is not valid JSON: {_json_error(e)}") from None
    return check_value(field, value)


def check_value(field: str, value: Any) -> Any:
    """Check (and normalise) a parsed value for ``field``; raise CellError saying what is wrong."""
    if field == "request_context":
        if value is not None and not isinstance(value, dict):
            raise CellError(f'must be a JSON object like {{"user": "ann"}}, not {_kind(value)}')
        return value
    if field == "tags":
        return _tags(value)
    return value


def _tags(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        tags = [t.strip() for t in value.replace(";", ",").split(",")]
        return [t for t in tags if t] or None
    if isinstance(value, list) and all(isinstance(t, str | int | float) for t in value):
        return [str(t) for t in value] or None
    raise CellError(f'must be a list of words like ["billing", "urgent"], not {_kind(value)}')


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def format_cell(value: Any) -> str:
    """A value as a CSV cell that :func:`parse_cell` reads back to the same value."""
    if value is None:
        return ""
    if isinstance(value, str):
        # Blank text and text that looks like JSON are written as JSON strings ("" stays "").
        quote = not value.strip() or value.lstrip()[0] in '{["'
        return json.dumps(value, ensure_ascii=False) if quote else value
    return json.dumps(value, ensure_ascii=False)
