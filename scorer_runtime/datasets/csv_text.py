"""CSV text read as records with their lines, and its header checked: a quote never closed,
a line that is not CSV, a header naming a column twice or missing one, and the columns no
field reads (reported, never dropped without a word).

A refusal quotes no more of the file than the names of its header's columns, and only when
the first line is a list of names (two or more, separated by commas): a path to another kind
of file (a symlink to ``/etc/passwd``, say) has one long "column", which is never shown.
"""

from __future__ import annotations

import csv
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


class CsvUnreadable(Exception):
    """CSV text that cannot be read as a whole (a line the reader cannot read, a quote never
    closed, nothing at all); ``issue`` says why, at its line."""

    def __init__(self, issue: ImportIssue) -> None:
        super().__init__(str(issue))
        self.issue = issue


class _Lines:
    """Lines of text passed on to the CSV reader, closed as ``text + "\\n" + _END`` would be,
    counting the line feeds seen (for the lines a quote left open spans)."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = lines
        self.breaks = 0
        self.ends_with_break = False

    def __iter__(self) -> Iterator[str]:
        last = ""
        for line in self.lines:
            if last:
                yield last
            last = line
            self.breaks += line.endswith("\n")
        self.ends_with_break = last.endswith("\n")
        yield last + "\n" if last and not self.ends_with_break else last or "\n"
        if self.ends_with_break:
            yield "\n"
        yield _END


def csv_rows(lines: Iterable[str]) -> Iterator[tuple[int, list[str]]]:
    """(first line, cells) of each non-blank CSV record of ``lines`` (each ending with its
    line feed), one at a time; a quoted cell may span several lines.

    Raises :class:`CsvUnreadable` when a line cannot be read, or when a quote is never closed
    (the reader would otherwise merge every later row into one cell, silently): after the
    records before it, so a reader that keeps none of them finds out at the end.
    """
    _allow_long_cells()
    counted = _Lines(lines)
    reader = csv.reader(counted)
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
        raise CsvUnreadable(ImportIssue(reader.line_num, said or _OTHER_CSV_ERROR)) from None
    if previous is None or previous[1] == [_END]:
        return
    # The open cell holds everything from its quote to the end: count back its lines.
    quote_line = counted.breaks + 2 - previous[1][-1].count("\n")
    last = counted.breaks + (0 if counted.ends_with_break else 1)
    message = (
        f'a quote (") opens a cell on this line and is never closed, so lines {quote_line}'
        f'–{last} would become one cell; close the quote, or double it ("") if it '
        "is part of the text"
    )
    raise CsvUnreadable(ImportIssue(quote_line, message))


def lines_of(text: str) -> Iterator[str]:
    """The lines of ``text``, each with its line feed (the last without one if the text has
    none at its end); split at line feeds only."""
    start = 0
    while (end := text.find("\n", start)) >= 0:
        yield text[start : end + 1]
        start = end + 1
    if start < len(text):
        yield text[start:]


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
        rows = list(csv_rows(lines_of(text)))
    except CsvUnreadable as e:
        return e.issue
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


class UnreadColumns:
    """The columns of a CSV no field reads, found while its rows are read one at a time:
    those the header names (``read`` are the columns that are read), and those without a
    name whose cells hold something (found as rows are :meth:`seen`)."""

    def __init__(self, header: Sequence[str], read: Collection[str]) -> None:
        self.named = [h for h in header if h and h not in read]
        self._empty = {i for i, h in enumerate(header) if not h}
        self._unnamed: dict[int, int] = {}  # column index -> first line holding a value

    def seen(self, line: int, cells: Sequence[str]) -> None:
        """Note the unnamed columns of this row that hold a value."""
        if not self._empty:
            return
        for index in [i for i in self._empty if i < len(cells) and cells[i].strip()]:
            self._empty.discard(index)
            self._unnamed[index] = line

    def sentences(self, of: str = "an example") -> list[str]:
        """What was not imported, in sentences (``of``: what a field is a field of)."""
        said = []
        named = self.named
        if named:
            said.append(
                f"Not imported: line 1 names {'columns' if len(named) > 1 else 'a column'} no "
                f"field of {of} reads: {_names(named)} (map a field to a column to import it)."
            )
        unnamed = dict(sorted(self._unnamed.items()))
        if unnamed:
            numbers = _names([str(i + 1) for i in unnamed])
            several = len(unnamed) > 1
            said.append(
                f"Not imported: {'columns' if several else 'column'} {numbers} "
                f"{'have' if several else 'has'} no name on line 1 but "
                f"{'hold' if several else 'holds'} values (the first on line "
                f"{min(unnamed.values())}); name {'them' if several else 'it'} on line 1 and "
                "map a field to a column to import it."
            )
        return said


def columns_left_out(
    header: Sequence[str],
    read: Collection[str],
    rows: Iterable[tuple[int, list[str]]],
    *,
    of: str = "an example",
) -> list[str]:
    """What a CSV import leaves out, in sentences: columns no field (of ``of``) reads
    (``read`` are the columns that are), and columns without a name whose cells hold
    something (see :class:`UnreadColumns`)."""
    unread = UnreadColumns(header, read)
    for line, cells in rows:
        unread.seen(line, cells)
    return unread.sentences(of)
