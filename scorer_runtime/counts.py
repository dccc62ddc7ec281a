"""A count and its noun in words ("1 example", "3 examples"), said alike by the command line,
the runtime's messages and the studio (:mod:`studio.words` hands these on)."""

from __future__ import annotations


def noun(count: int, singular: str, many: str | None = None) -> str:
    """The word alone, matching ``count``: ``noun(1, "row has", "rows have")`` is "row has".
    ``many`` defaults to ``singular`` + "s"."""
    return singular if count == 1 else (many if many is not None else singular + "s")


def plural(count: int, singular: str, many: str | None = None) -> str:
    """A count and its noun: ``plural(1, "trace")`` is "1 trace", ``plural(3, "trace")`` is
    "3 traces", ``plural(1200, "row")`` is "1,200 rows"; ``many`` for irregular plurals."""
    return f"{count:,} {noun(count, singular, many)}"
