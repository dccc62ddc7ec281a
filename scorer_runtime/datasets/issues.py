"""What goes wrong in a file of examples or grades: one problem at a line, and an import
aborted for them (nothing written)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scorer_runtime.limits import MAX_PROBLEMS_SHOWN, more_words


@dataclass(frozen=True, slots=True)
class ImportIssue:
    """One problem in an import file, at a line (1-based; the header is line 1 of a CSV)."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class ImportFailure(ValueError):
    """An import that was aborted; nothing was written. ``issues`` lists every problem."""

    def __init__(self, issues: Sequence[ImportIssue], *, source: str = "the file", hint: str = ""):
        self.issues = list(issues)
        if len(self.issues) == 1:  # one problem, one line
            tail = f" {hint}" if hint else ""
            super().__init__(f"Nothing was imported from {source}: {self.issues[0]}.{tail}")
            return
        shown = "\n".join(f"  {issue}" for issue in self.issues[:MAX_PROBLEMS_SHOWN])
        more = more_words(len(self.issues))
        more = f"\n  … {more}" if more else ""
        tail = f"\n{hint}" if hint else ""
        super().__init__(
            f"{len(self.issues)} problems in {source}; nothing was imported:\n{shown}{more}{tail}"
        )
