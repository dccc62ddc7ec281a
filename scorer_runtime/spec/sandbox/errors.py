"""The error a formula raises, and how positions in a formula are written for people."""

from __future__ import annotations

from collections.abc import Sequence


class FormulaError(ValueError):
    """A formula that cannot be used, or that failed on one run.

    Raised when the formula is built (syntax, forbidden constructs, unknown names: every
    problem found, in ``problems``) and when it is evaluated (missing data, division by
    zero, a limit reached). The message quotes the formula, says where and what failed,
    and what to do about it.
    """

    def __init__(
        self,
        message: str,
        *,
        expression: str,
        problems: Sequence[str] = (),
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.expression = expression
        self.problems: list[str] = list(problems) or [message]
        self.line = line
        """1-based line of the first problem, when it has a position."""
        self.column = column
        """1-based column (in characters) of the first problem, when it has a position."""


def shorten(text: str, limit: int = 80) -> str:
    """``text`` on one line, cut to ``limit`` characters, for quoting in messages."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def char_column(source: str, line: int, byte_offset: int) -> int:
    """The 1-based character column of an AST ``col_offset`` (which counts UTF-8 bytes)."""
    lines = source.splitlines() or [""]
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore")) + 1


def where(source: str, line: int, column: int) -> str:
    """``column 5``, or ``line 2, column 5`` when the formula has several lines."""
    return f"line {line}, column {column}" if "\n" in source else f"column {column}"
