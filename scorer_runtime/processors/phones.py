"""What :class:`~scorer_runtime.processors.RedactPII` reads as a phone number.

One regular expression, so the Mastra export carries it as it is (translated to JavaScript)
and hides exactly what the studio hides. Google's libphonenumber (the ``phonenumbers``
package) was weighed and left out: without a home region it finds only numbers written with
``+`` (not ``0049 …`` or ``030 …``); with one it reads dates and ids as numbers of that
region (lenient) or misses numbers outside the real numbering plans, such as the fictional
``(555) 123-4567`` (strict); and its JavaScript ports either cannot search a text or match
with their own rules and data, so an exported scorer would hide other numbers.

A match is hidden only when it holds 8 to 15 digits (:func:`is_phone`): E.164 allows at
most 15, and fewer than 8 is a short number, an extension or a year.
"""

from __future__ import annotations

import re

__all__ = ["PHONE", "is_phone"]

_SEP = r"(?:\ ?[-\u2013]\ ?|[ .])"
"""What stands between two groups of digits: a space, a dot, or a hyphen (or en dash) with or
without a space on either side ("030 - 1234567", "030 – 1234567")."""

_GROUPS = rf"(?:{_SEP}?\(\d{{1,5}}\)\d{{0,10}}|{_SEP}\d{{1,10}})"
"""One more group of digits: after a separator (:data:`_SEP`), or in balanced parentheses
("(0)30", " (415)"; never a lone ")"). Each group starts with a sign, so a run of digits is read
one way only and a long text takes linear time."""

_ALONE = rf"(?![\w]|{_SEP}\d)"
"""Not followed by more of a word or of a number, so a longer number is never cut."""

PHONE = re.compile(
    # International with +: +44 20 7946 0958, +49 (0)30 1234567, +1 (415) 555-2671, +4930123.
    rf"(?<![\w+])\+\d{{1,15}}{_GROUPS}{{0,6}}(?!\d)"
    # International with 00, each group after a separator or a bracket (so an id of digits
    # alone is kept): 0049 30 1234567, 00 33 1 42 68 53 00, 0033 (0)1 42 68 53 00.
    rf"|(?<![\w+.-])00{_SEP}?[1-9]\d{{0,2}}{_GROUPS}{{1,6}}(?!\d)"
    # North American: (415) 555-2671, 415-555-2671, 415.555.2671, 1-415-555-2671.
    rf"|(?<![\w+.-])(?:1[ .-]?)?(?:\(\d{{3}}\)\ ?|\d{{3}}[ .-])\d{{3}}[ .-]\d{{4}}{_ALONE}"
    # National, with a trunk 0: 030 1234567, 030 - 1234567, (030) 123 45 67, (0)30 1234567,
    # 030/1234567, 020-7946-0958, 0171.2345678. A subscriber number never starts with 0, so
    # "room 0042 - 0043" is kept.
    rf"|(?<![\w+.-])(?:\(0\d{{1,4}}\){_SEP}?|\(0\)\d{{1,4}}{_SEP}|0\d{{2,4}}(?:{_SEP}|\ ?/\ ?))"
    rf"[1-9]\d{{1,7}}(?:{_SEP}\d{{2,8}}){{0,3}}{_ALONE}"
    # National in pairs: 01 42 68 53 00, 06.12.34.56.78 (a date 01.02.2024 has three groups).
    rf"|(?<![\w+.-])0\d(?:[ .-]\d{{2}}){{4}}{_ALONE}"
)
"""The shapes of a phone number written in a text; :func:`is_phone` decides on each match."""


def is_phone(text: str) -> bool:
    """True when a match of :data:`PHONE` holds as many digits as a phone number can."""
    return 8 <= sum(char.isdigit() for char in text) <= 15
