"""Checking a regular expression before a processor uses it: it must compile, and it must not
take super-linear time on long text.

Python's ``re`` backtracks, so a repeated part that itself repeats without limit, like
``(a+)+`` or ``(\\w+\\s?)*``, can take exponential time on a text that almost matches: one
judge request would hang on a long answer. :func:`pattern_problem` refuses such a pattern
(the classic "star height above one" test, as npm's safe-regex applies it) and says where.

The inner part is read with the standard library's own regular-expression parser
(``re._parser``, the parser ``re.compile`` uses), so escapes, classes and groups are read
exactly as ``re`` reads them; the outer groups are located in the text so the problem can be
shown at its place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

try:  # Python 3.11+
    from re import _constants as _sre_constants  # type: ignore[attr-defined]
    from re import _parser as _sre_parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - older Pythons
    import sre_constants as _sre_constants
    import sre_parse as _sre_parser

__all__ = ["PatternProblem", "check_pattern", "pattern_problem"]

_REPEATS = {
    _sre_constants.MAX_REPEAT,
    _sre_constants.MIN_REPEAT,
}
_UNBOUNDED = _sre_constants.MAXREPEAT
_OUTER_QUANTIFIER = re.compile(r"(?:[*+]|\{\d*,\})(?![+])")


@dataclass(frozen=True, slots=True)
class PatternProblem:
    """Why a pattern is refused, and the characters (0-based, end excluded) at fault."""

    reason: str
    start: int
    end: int
    advice: str = ""

    def sentence(self, what: str, pattern: str) -> str:
        """The problem in words: what, where (1-based characters) and the part at fault."""
        part = pattern[self.start : self.end] or pattern[self.start : self.start + 1]
        where = (
            f"at character {self.start + 1}"
            if self.end - self.start <= 1
            else f"at characters {self.start + 1}–{self.end}"
        )
        shown = f" ({part!r})" if part else ""
        advice = f". {self.advice}" if self.advice else ""
        return f"{what} {self.reason}; the problem is {where}{shown}{advice}"


def pattern_problem(pattern: str) -> PatternProblem | None:
    """None when ``pattern`` compiles and cannot take super-linear time; else the problem."""
    try:
        re.compile(pattern)
    except re.error as error:
        position = error.pos if error.pos is not None else len(pattern)
        return PatternProblem(
            f"is not a valid pattern ({error.msg})", position, min(position + 1, len(pattern))
        )
    for start, end in _groups(pattern):
        quantifier = _OUTER_QUANTIFIER.match(pattern, end + 1)
        if quantifier is None or pattern.startswith("(?>", start):
            continue
        if _repeats_without_limit(pattern[start : end + 1]):
            return PatternProblem(
                "could take very long on a long text, because a part that repeats without "
                "limit is itself repeated (like (a+)+)",
                start,
                quantifier.end(),
                "Give the inner repeat a limit, e.g. {1,50} instead of + or *, or drop the "
                "outer repeat",
            )
    return None


def check_pattern(pattern: str, what: str) -> None:
    """Raise ``ValueError`` naming ``what`` and the place when the pattern is refused."""
    problem = pattern_problem(pattern)
    if problem is not None:
        raise ValueError(problem.sentence(what, pattern))


def _groups(pattern: str) -> list[tuple[int, int]]:
    """Every group's (open, close) index, skipping escapes and character classes."""
    spans: list[tuple[int, int]] = []
    stack: list[int] = []
    index, in_class = 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            after = index + 1 + (pattern[index + 1 : index + 2] == "^")
            if pattern[after : after + 1] == "]":  # "[]…]" and "[^]…]": a literal ]
                index = after
        elif char == "(":
            stack.append(index)
        elif char == ")" and stack:
            spans.append((stack.pop(), index))
        index += 1
    return spans


def _repeats_without_limit(group: str) -> bool:
    try:
        tree = _sre_parser.parse(group)
    except (re.error, IndexError, TypeError):  # e.g. a back-reference to an outer group
        return False
    return _has_unbounded_repeat(list(tree))


def _has_unbounded_repeat(items: list[tuple[Any, Any]]) -> bool:
    for op, value in items:
        if op in _REPEATS and value[1] == _UNBOUNDED:
            return True
        if any(_has_unbounded_repeat(list(part)) for part in _children(value)):
            return True
    return False


def _children(value: Any) -> list[Any]:
    """The sub-patterns inside one parsed item (groups, repeats, branches, look-arounds)."""
    if isinstance(value, _sre_parser.SubPattern):
        return [value]
    if isinstance(value, tuple | list):
        found: list[Any] = []
        for part in value:
            found += _children(part)
        return found
    return []
