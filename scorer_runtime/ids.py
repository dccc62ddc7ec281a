"""Ids made from the names people type (a scorer's id from its name, a copy's name)."""

from __future__ import annotations

import re
import uuid

_NOT_ID = re.compile(r"[^A-Za-z0-9_.-]+")
ID_MAX_LENGTH = 100


def id_from_name(text: str, *, fallback_prefix: str | None = None) -> str:
    """``text`` made into a valid id: ``"Tone check (v2)"`` → ``"tone-check-v2"``.

    Lower case; every run of characters an id cannot hold becomes one ``-``; an id starts and
    ends with a letter or digit. When nothing is left, ``""`` — or, given ``fallback_prefix``,
    a fresh ``prefix-1a2b3c`` so a draft always has an id.
    """
    slug = _NOT_ID.sub("-", text.strip().lower()).strip("-._")[:ID_MAX_LENGTH]
    if slug or fallback_prefix is None:
        return slug
    return f"{fallback_prefix}-{uuid.uuid4().hex[:6]}"
