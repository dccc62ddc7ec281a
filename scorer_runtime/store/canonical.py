"""Canonical JSON: one text per value, so equal specs get equal content hashes."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

from scorer_runtime.results import plain


def canonical_json(value: Any) -> str:
    """``value`` as JSON with sorted keys and no whitespace (insensitive to key order)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(value: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of ``value``."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data; what JSON cannot hold becomes text (never fails).

    Step results may be any Python object; the store keeps what can be kept and shows the
    rest as text rather than losing the whole score. NaN and infinities become text too,
    since PostgreSQL's JSON rejects them.
    """
    return _clean(plain(value))


def _clean(value: Any) -> Any:
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_clean(v) for v in value]
    return str(value)
