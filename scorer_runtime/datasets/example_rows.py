"""The examples of a CSV or JSONL file read one row at a time, each an example or the
problem of its line, so an import holds a row, not the file.

:class:`ExampleReader` reads lines (each ending with its line feed, as
:func:`~scorer_runtime.input_text.text_lines` gives them) with a mapping of fields to columns
or keys. A file that cannot be read as a whole (a header missing the output's column, a
quote never closed, no rows) raises :class:`FatalImport` — for a quote never closed, only
at the end, after the rows before it. What the file holds that no field reads is in
:attr:`ExampleReader.left_out` once the rows are read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal

from scorer_runtime import safe_json
from scorer_runtime.datasets.cells import CellError, check_value, parse_cell
from scorer_runtime.datasets.csv_text import CsvUnreadable, UnreadColumns, csv_rows, header_problem
from scorer_runtime.datasets.issues import ImportIssue
from scorer_runtime.limits import MAX_FIELD_BYTES, size_words
from scorer_runtime.store.datasets import EXAMPLE_FIELDS, ExampleData

FileFormat = Literal["csv", "jsonl"]
REQUIRED_FIELDS = ("output",)
"""Fields every example must have: the output is what gets scored. An empty answer is
allowed when written as such (``""`` in JSONL, a cell holding ``""`` in CSV); a blank CSV
cell or a missing key is an error."""

Row = tuple[int, ExampleData | ImportIssue]
"""One row of a file: its first line, and its example or why it is none."""


class FatalImport(Exception):
    """A file that cannot be imported as a whole; ``issue`` says why, at its line."""

    def __init__(self, issue: ImportIssue) -> None:
        super().__init__(str(issue))
        self.issue = issue


class ExampleReader:
    """Reads the rows of one CSV or JSONL file; ``mapping`` maps a field to its column or key
    (unmapped fields are read from the column or key of their own name)."""

    def __init__(self, format: FileFormat, mapping: Mapping[str, str] | None = None) -> None:
        self.format = format
        self.explicit = set(mapping or {})
        self.columns = {name: (mapping or {}).get(name, name) for name in EXAMPLE_FIELDS}
        self.left_out: list[str] = []
        """What the file holds that no field reads, in sentences (once the rows are read)."""

    def rows(self, lines: Iterable[str]) -> Iterator[Row]:
        """Each row of the file: its line and its example or problem, one at a time."""
        if self.format == "csv":
            return self._csv(lines)
        return self._jsonl(lines)

    # -- CSV -------------------------------------------------------------------------------

    def _csv(self, lines: Iterable[str]) -> Iterator[Row]:
        records = csv_rows(lines)
        try:
            first = next(records, None)
            if first is None:
                raise FatalImport(ImportIssue(1, "the file is empty"))
            header_line, raw = first
            header = [h.strip() for h in raw]
            problem = header_problem(header, self.columns, self.explicit | set(REQUIRED_FIELDS))
            if problem:
                raise FatalImport(ImportIssue(header_line, problem))
            index = {h: i for i, h in enumerate(header)}
            unread = UnreadColumns(header, {c for c in self.columns.values() if c in index})
            for line, cells in records:
                unread.seen(line, cells)
                yield line, self._csv_row(line, cells, index, len(header))
        except CsvUnreadable as unreadable:
            raise FatalImport(unreadable.issue) from None
        self.left_out = unread.sentences()

    def _csv_row(
        self, line: int, cells: list[str], index: Mapping[str, int], width: int
    ) -> ExampleData | ImportIssue:
        if len(cells) != width:
            return ImportIssue(line, f"{len(cells)} cells, but the header has {width} columns")
        values: dict[str, Any] = {}
        for name, column in self.columns.items():
            if column in index:
                try:
                    values[name] = parse_cell(name, cells[index[column]])
                except CellError as e:
                    return ImportIssue(line, f"{_label(name, column)} {e}")
        size = sum(map(len, cells)) * 4  # UTF-8 takes at most 4 bytes a character
        return _build(values, self.columns, line, "column", size)

    # -- JSON lines ------------------------------------------------------------------------

    def _jsonl(self, lines: Iterable[str]) -> Iterator[Row]:
        read = set(self.columns.values())
        unread: dict[str, int] = {}  # a key no field reads -> the first line holding it
        rows = 0
        for line, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            rows += 1
            found = self._jsonl_row(line, raw.rstrip("\r\n"))
            if isinstance(found, tuple):
                example, keys = found
                for key in keys - read - unread.keys():
                    unread[key] = line
                yield line, example
            else:
                yield line, found
        if not rows:
            raise FatalImport(ImportIssue(1, "the file is empty"))
        self.left_out = _keys_left_out(unread)

    def _jsonl_row(
        self, line: int, raw: str
    ) -> tuple[ExampleData | ImportIssue, set[str]] | ImportIssue:
        try:
            obj = safe_json.loads(raw, unique_keys=True)
        except safe_json.JsonLimitError as e:  # too deep, NaN, a key twice…: refused
            return ImportIssue(line, e.message)
        except json.JSONDecodeError as e:
            return ImportIssue(line, f"not valid JSON: {e.msg} (column {e.colno})")
        if not isinstance(obj, dict):
            kind = "a list" if isinstance(obj, list) else type(obj).__name__
            return ImportIssue(
                line, f'expected a JSON object like {{"input": …, "output": …}}, got {kind}'
            )
        columns = self.columns
        missing = [n for n in REQUIRED_FIELDS if columns[n] not in obj]
        if missing:
            return ImportIssue(line, f"{_label(missing[0], columns[missing[0]], 'key')} is missing")
        values = {name: obj.get(key) for name, key in columns.items()}
        return _build(values, columns, line, "key", len(raw) * 4), set(obj)


def _label(name: str, column: str, noun: str = "column") -> str:
    return f'{noun} "{column}"' if name == column else f'{noun} "{column}" ({name})'


def _build(
    values: Mapping[str, Any], columns: Mapping[str, str], line: int, noun: str, size: int
) -> ExampleData | ImportIssue:
    if size > MAX_FIELD_BYTES:  # a row under the cap cannot hold a field over it
        for name in EXAMPLE_FIELDS:
            field_size = _size(values.get(name))
            if field_size > MAX_FIELD_BYTES:
                limit = size_words(MAX_FIELD_BYTES)
                return ImportIssue(
                    line,
                    f"{_label(name, columns[name], noun)} is {size_words(field_size)}; "
                    f"the limit for one field is {limit}",
                )
    clean: dict[str, Any] = {}
    for name in EXAMPLE_FIELDS:
        value = values.get(name)
        if name in REQUIRED_FIELDS and value is None:
            # An empty answer is real data: "" in JSONL, a cell holding "" in CSV.
            why = "is empty" if noun == "column" else "is null"
            return ImportIssue(line, f"{_label(name, columns[name], noun)} {why}")
        try:
            clean[name] = check_value(name, value)
        except CellError as e:
            return ImportIssue(line, f"{_label(name, columns[name], noun)} {e}")
    return ExampleData(**clean)


def _size(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8"))


def _keys_left_out(unread: Mapping[str, int]) -> list[str]:
    """The keys of JSON lines no field reads, in a sentence (each with its first line)."""
    if not unread:
        return []
    keys = sorted(unread, key=lambda k: (unread[k], k))
    shown = [f"{k if len(k) <= 40 else k[:39] + '…'} (line {unread[k]})" for k in keys[:10]]
    more = f" and {len(keys) - 10:,} more" if len(keys) > 10 else ""
    return [
        f"Not imported: the key{'s' * (len(keys) > 1)} {', '.join(shown)}{more}, which no "
        "field of an example reads (map a field to a key to import it)."
    ]
