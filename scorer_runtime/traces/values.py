"""Small readers shared by the importers: timestamps, ids, JSON-in-a-string, counts."""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from scorer_runtime import safe_json
from scorer_runtime.agent.normalize import short_repr
from scorer_runtime.limits import MAX_TRACE_NESTING

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_DIGITS = re.compile(r"^-?\d+$")


class ValueProblem(ValueError):
    """A field has the wrong shape; the message says what was expected (no location)."""


def decode_json_text(value: Any) -> Any:
    """A string holding a JSON object or array, decoded; any other value as it is.

    Tracers often store structured data as JSON text (``gen_ai.tool.call.arguments``).
    Only objects and arrays are decoded, so a tool answer such as ``"42"`` stays text.
    """
    if not isinstance(value, str):
        return value
    text = value.strip()
    if not text or text[0] not in "[{":
        return value
    try:  # nested too deep, or NaN: kept as the text it is
        decoded = safe_json.loads(text, max_depth=MAX_TRACE_NESTING)
    except ValueError:
        return value
    return decoded if isinstance(decoded, dict | list) else value


def parse_json_text(value: Any, what: str) -> Any:
    """Like :func:`decode_json_text`, but text that is not valid JSON is a problem."""
    if not isinstance(value, str):
        return value
    try:
        return safe_json.loads(value, max_depth=MAX_TRACE_NESTING)
    except ValueError as e:
        raise ValueProblem(f"{what} is not valid JSON ({e})") from None


def from_unix_nano(value: Any, what: str) -> datetime:
    """OTLP's nanoseconds since the epoch (a number or a decimal string), as a UTC datetime."""
    if isinstance(value, bool) or value is None:
        raise ValueProblem(
            f"{what} must be nanoseconds since 1970 (a number); got {short_repr(value, 60)}"
        )
    if isinstance(value, str) and _DIGITS.match(value.strip()):
        nanos = int(value.strip())
    elif isinstance(value, int):
        nanos = value
    elif isinstance(value, float) and math.isfinite(value):
        nanos = int(value)
    else:
        raise ValueProblem(
            f"{what} must be nanoseconds since 1970 (a number); got {short_repr(value, 60)}"
        )
    if nanos <= 0:
        raise ValueProblem(
            f"{what} must be a positive number of nanoseconds; got {short_repr(value, 60)}"
        )
    # Python datetimes keep microseconds: the last three digits of a nanosecond time go.
    return _after_epoch(what, value, microseconds=nanos // 1000)


def _after_epoch(what: str, value: Any, **amount: float) -> datetime:
    """The epoch plus ``amount``; a time outside years before 1 or after 9999 is a problem."""
    try:
        return _EPOCH + timedelta(**amount)
    except OverflowError:
        raise ValueProblem(
            f"{what} is not a time between the years 1 and 9999; got {short_repr(value, 60)}"
        ) from None


def parse_timestamp(value: Any, what: str) -> datetime:
    """An ISO 8601 string or epoch milliseconds, as a timezone-aware datetime.

    A string without an offset is read as UTC (storage columns often drop the offset).
    """
    if isinstance(value, bool) or value is None:
        raise ValueProblem(
            f"{what} must be an ISO 8601 time or epoch milliseconds; got {short_repr(value, 60)}"
        )
    if isinstance(value, int | float) and math.isfinite(value):
        return _after_epoch(what, value, milliseconds=value)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueProblem(
                f"{what} must be an ISO 8601 time such as 2025-03-01T10:00:00Z; "
                f"got {short_repr(value, 60)}"
            ) from None
        return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    raise ValueProblem(
        f"{what} must be an ISO 8601 time or epoch milliseconds; got {short_repr(value, 60)}"
    )


def hex_id(value: Any, what: str, size: int) -> str:
    """An OTLP trace or span id as lower-case hex (``size`` bytes).

    OTLP/JSON writes ids as hex; protobuf's generic JSON mapping writes them as base64,
    which is accepted too.
    """
    if not isinstance(value, str) or not value:
        raise ValueProblem(
            f"{what} must be a hex string of {size * 2} characters; got {short_repr(value, 60)}"
        )
    if len(value) == size * 2 and _HEX.match(value):
        if set(value) == {"0"}:
            raise ValueProblem(f"{what} is all zeros, which OpenTelemetry treats as invalid")
        return value.lower()
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) == size:
        return raw.hex()
    raise ValueProblem(
        f"{what} must be a hex string of {size * 2} characters; got {short_repr(value, 60)}"
    )


def as_count(value: Any) -> int | None:
    """A token count from a number or a decimal string; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _DIGITS.match(value.strip()):
        return int(value)
    return None


def text_or_none(value: Any) -> str | None:
    """A non-empty string, or None."""
    return value if isinstance(value, str) and value else None


def first_text(mapping: Mapping[str, Any], *keys: str) -> str | None:
    """The first non-empty string among ``mapping[key]`` for ``keys``."""
    for key in keys:
        found = text_or_none(mapping.get(key))
        if found is not None:
            return found
    return None
