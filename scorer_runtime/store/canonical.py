"""Canonical JSON: one text per value, so equal specs get equal content hashes."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from json.encoder import encode_basestring_ascii
from typing import Any

from scorer_runtime.results import plain


def canonical_json(value: Any) -> str:
    """``value`` as JSON with sorted keys and no whitespace (insensitive to key order)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _json_text_function() -> Callable[[Any], str]:
    # json.dumps with default settings builds a new encoder on every call, which is most of
    # its cost for the small documents of a score row; one C encoder, built once, gives the
    # same text about four times faster (only the circular-reference check is left out, so
    # a value that contains itself fails with RecursionError instead of ValueError).
    make_encoder = getattr(json.encoder, "c_make_encoder", None)
    if make_encoder is None:  # an interpreter without the C accelerator
        return json.dumps
    encoder = make_encoder(
        None,
        json.JSONEncoder().default,
        encode_basestring_ascii,
        None,
        ": ",
        ", ",
        False,
        False,
        True,
    )

    def json_text(value: Any) -> str:
        return "".join(encoder(value, 0))

    return json_text


json_text: Callable[[Any], str] = _json_text_function()
"""``json.dumps(value)`` exactly (same text), without its per-call set-up: the JSON columns'
serializer on SQLite, where bulk inserts of scores spend much of their time here."""


def content_hash(value: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of ``value``."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data; what JSON cannot hold becomes text (never fails).

    Step results may be any Python object; the store keeps what can be kept and shows the
    rest as text rather than losing the whole score. NaN and infinities become text too,
    since PostgreSQL's JSON rejects them.
    """
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is dict:  # plain data is most of it: one pass instead of plain() then _clean()
        return {k if type(k) is str else str(k): jsonable(v) for k, v in value.items()}
    if kind is list:
        return [jsonable(v) for v in value]
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
