"""CSV text read as records with their lines, and its header checked: a quote never closed,
a line that is not CSV, a header naming a column twice or missing one, and the columns no
field reads (reported, never dropped without a word).

A refusal quotes no more of the file than the names of its header's columns, and only when
the first line is a list of names (two or more, separated by commas): a path to another kind
of file (a symlink to ``/etc/passwd``, say) has one long "column", which is never shown.
"""

from __future__ import annotations

import csv
import io
import sys
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence

from scorer_runtime.datasets.issues import ImportIssue

_NAMES_SHOWN = 10
"""How many column names a message lists before "and N more"."""
_NAME_CHARS = 40
"""How much of one column name a message shows."""

# Appended after the text: a record of its own unless a quote left open swallows it.
_END = "\ue000scorer-studio-end-of-file\ue000"

_CSV_ERRORS = {  # the start of the csv module's message -> ours
    "new-line character seen in unquoted field": (
        "a line break (a carriage return, CR) stands alone inside this line, outside quotes: "
        "the file mixes kinds of line endings; save it again as CSV (UTF-8) and import that"
    ),
}
_OTHER_CSV_ERROR = 'this line cannot be read as CSV; check its quotes (") and commas'


class _OpenQuote(Exception):
    """A quote opened on ``line`` is never closed: the rest of the file would be one cell."""

    def __init__(self, line: int, lines: int) -> None:
        self.line, self.lines = line, lines


class _Unreadable(Exception):
    """The CSV reader stopped at ``line`` (``why`` is its message, worded by us)."""

    def __init__(self, line: int, why: str) -> None:
        self.line, self.why = line, why


def _csv_rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """(first line, cells) of each CSV record; a quoted cell may span several lines.

    Raises :class:`_OpenQuote` when a quote is never closed (the reader would otherwise
    merge every later row into one cell, silently), :class:`_Unreadable` when a line is not
    CSV at all.
    """
    _allow_long_cells()
    reader = csv.reader(io.StringIO(f"{text}\n{_END}"))
    start = 1
    previous: tuple[int, list[str]] | None = None
    try:
        for cells in reader:
            if previous is not None:
                yield previous
            previous = (start, cells) if any(c.strip() for c in cells) else None
            start = reader.line_num + 1
    except csv.Error as error:
        said = next(
            (ours for theirs, ours in _CSV_ERRORS.items() if str(error).startswith(theirs)), None
        )
        raise _Unreadable(reader.line_num, said or _OTHER_CSV_ERROR) from None
    if previous is None or previous[1] == [_END]:
        return
    # The open cell holds everything from its quote to the end: count back its lines.
    last_line = text.count("\n") + 2
    quote_line = last_line - previous[1][-1].count("\n")
    raise _OpenQuote(quote_line, text.count("\n") + (0 if text.endswith("\n") else 1))


def _allow_long_cells() -> None:
    """Let the reader return cells up to the whole file (its default stops at 128 KB with an
    error naming no row), so a long cell is refused by the field cap, with its line.

    The limit is process-wide and only ever raised here, which no other reader minds.
    """
    wanted = min(sys.maxsize, 2**31 - 1)
    if csv.field_size_limit() < wanted:
        csv.field_size_limit(wanted)


def csv_records(text: str) -> list[tuple[int, list[str]]] | ImportIssue:
    """(first line, cells) of each non-blank CSV record, header first; or why the text cannot
    be read as CSV at all (unreadable, a quote never closed, empty)."""
    try:
        rows = list(_csv_rows(text))
    except _Unreadable as e:
        return ImportIssue(e.line, e.why)
    except _OpenQuote as e:
        message = (
            f'a quote (") opens a cell on this line and is never closed, so lines {e.line}'
            f'–{e.lines} would become one cell; close the quote, or double it ("") if it '
            "is part of the text"
        )
        return ImportIssue(e.line, message)
    return rows or ImportIssue(1, "the file is empty")


def header_problem(
    header: list[str], columns: Mapping[str, str], required: Iterable[str]
) -> str | None:
    """Why a CSV header cannot be read (a name twice, a ``required`` field's column missing,
    with the columns there are and how to map one); ``columns`` maps a field to its column."""
    counts = Counter(h for h in header if h)
    duplicates = sorted(h for h, n in counts.items() if n > 1)
    if duplicates:
        return f"the header names {_names(duplicates, quote=True)} more than once"
    for name in sorted(required):
        if columns[name] not in counts:
            hint = columns_words(header, f"{name}=answer")
            return f'no column "{columns[name]}" for the {name}; {hint}'
    return None


def columns_words(header: Sequence[str], example: str = "") -> str:
    """What the header holds, for a message saying a column is missing: its column names,
    then how to map one (``example`` like ``output=answer``); or, for a first line that is no
    list of names, nothing of it."""
    if len(header) < 2:
        return (
            "the first line holds no comma, so it names no columns: if this is a CSV file, "
            "its first line should name its columns (e.g. input,output)"
        )
    listed = f"the columns are: {_names([h for h in header if h])}"
    if not example:
        return listed
    field = example.partition("=")[0]
    return f"{listed}. Map a column to {field} (e.g. {example})"


def _names(names: Sequence[str], *, quote: bool = False) -> str:
    shown = [_short(n) for n in names[:_NAMES_SHOWN]]
    listed = ", ".join(repr(n) if quote else n for n in shown) or "(none)"
    more = len(names) - len(shown)
    return f"{listed} and {more:,} more" if more else listed


def _short(name: str) -> str:
    return name if len(name) <= _NAME_CHARS else name[: _NAME_CHARS - 1] + "…"


def columns_left_out(
    header: Sequence[str],
    read: Collection[str],
    rows: Iterable[tuple[int, list[str]]],
    *,
    of: str = "an example",
) -> list[str]:
    """What a CSV import leaves out, in sentences: columns no field (of ``of``) reads
    (``read`` are the columns that are), and columns without a name whose cells hold
    something."""
    said = []
    named = [h for h in header if h and h not in read]
    if named:
        said.append(
            f"Not imported: line 1 names {'columns' if len(named) > 1 else 'a column'} no "
            f"field of {of} reads: {_names(named)} (map a field to a column to import it)."
        )
    unnamed = _unnamed_with_values(header, rows)
    if unnamed:
        numbers = _names([str(i + 1) for i in unnamed])
        several = len(unnamed) > 1
        said.append(
            f"Not imported: {'columns' if several else 'column'} {numbers} "
            f"{'have' if several else 'has'} no name on line 1 but "
            f"{'hold' if several else 'holds'} values (the first on line "
            f"{min(unnamed.values())}); name {'them' if several else 'it'} on line 1 and map a "
            "field to a column to import it."
        )
    return said


def _unnamed_with_values(
    header: Sequence[str], rows: Iterable[tuple[int, list[str]]]
) -> dict[int, int]:
    """Columns without a name whose cells hold something: index -> first line with a value."""
    empty = {i for i, h in enumerate(header) if not h}
    found: dict[int, int] = {}
    for line, cells in rows:
        if not empty:
            break
        for index in [i for i in empty if i < len(cells) and cells[i].strip()]:
            empty.discard(index)
            found[index] = line
    return dict(sorted(found.items()))
