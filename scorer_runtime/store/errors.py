"""Errors the store raises for things a user can get wrong (a name that is not there, a clash)."""

from __future__ import annotations

from collections.abc import Iterable


class StoreError(Exception):
    """Base of the store's user-facing errors; the message says what to do."""


class NotFoundError(StoreError, LookupError):
    """A scorer, version, dataset, run or profile that is not in the database."""


class ConflictError(StoreError):
    """A name already taken, or a change that would break a rule of the store."""


def not_found(kind: str, key: object, known: Iterable[str] = ()) -> NotFoundError:
    """A NotFoundError naming what was asked for and, when short, what there is."""
    names = sorted(known)
    if not names:
        hint = f"there are no {kind}s yet"
    elif len(names) <= 20:
        hint = f"{kind}s: {', '.join(names)}"
    else:
        hint = f"{len(names)} {kind}s exist; list them to find the right name"
    return NotFoundError(f"no {kind} {key!r} ({hint})")
