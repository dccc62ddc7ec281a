"""What goes wrong when a trace file is read: every problem, with where it is."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

_SHOWN_PROBLEMS = 20
"""How many problems the error message lists (all of them stay in ``problems``)."""


@dataclass(frozen=True, slots=True)
class TraceProblem:
    """One thing wrong in a trace file: what, on which line, in which span, at which path.

    ``line`` is set for JSON-lines files (1-based); ``path`` is the JSON path inside the
    document (``resourceSpans[0].scopeSpans[0].spans[2]``), so a single pretty-printed
    JSON file can be fixed too.
    """

    message: str
    line: int | None = None
    span_id: str | None = None
    path: str | None = None

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.span_id:
            where.append(f"span {self.span_id!r}")
        text = f"{', '.join(where)}: {self.message}" if where else self.message
        return f"{text} (at {self.path})" if self.path else text


class TraceImportError(ValueError):
    """A trace file could not be imported; ``problems`` lists everything found, not just the first.

    The message names the file and lists the problems, each with its line, span and JSON
    path, so the file can be fixed in one go.
    """

    def __init__(self, problems: Iterable[TraceProblem], *, source: str | None = None) -> None:
        self.problems = list(problems)
        self.source = source
        super().__init__(self._message())

    def _message(self) -> str:
        count = len(self.problems)
        origin = f" from {self.source}" if self.source else ""
        head = f"Cannot import traces{origin}: {count} problem{'s' if count != 1 else ''}"
        lines = [f"  - {problem}" for problem in self.problems[:_SHOWN_PROBLEMS]]
        if count > _SHOWN_PROBLEMS:
            lines.append(f"  … and {count - _SHOWN_PROBLEMS} more")
        return "\n".join([head + ":", *lines])
