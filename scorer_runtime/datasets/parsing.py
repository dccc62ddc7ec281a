"""Importing examples from CSV and JSONL, with column mapping and a report of every bad row.

Parsing reads the whole file before anything is written: bad rows are reported together,
each with its line number and why (``line 7: column "output" is empty``). Then either the
import is aborted and writes nothing, or (``skip_bad_rows``) the good rows are imported and
the bad ones listed.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from scorer_runtime import safe_json
from scorer_runtime.datasets.cells import CellError, check_value, parse_cell
from scorer_runtime.limits import (
    MAX_DATA_FILE_BYTES,
    MAX_FIELD_BYTES,
    MAX_PROBLEMS_SHOWN,
    more_words,
    size_words,
)
from scorer_runtime.store.datasets import EXAMPLE_FIELDS, ExampleData

FileFormat = Literal["csv", "jsonl"]
REQUIRED_FIELDS = ("output",)
"""Fields every example must have: the output is what gets scored. An empty answer is
allowed when written as such (``""`` in JSONL, a cell holding ``""`` in CSV); a blank CSV
cell or a missing key is an error."""
_SUFFIXES: dict[str, FileFormat] = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


@dataclass(frozen=True, slots=True)
class ImportIssue:
    """One problem in an import file, at a line (1-based; the header is line 1 of a CSV)."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass(frozen=True, slots=True)
class ParsedExamples:
    """The good examples of a file (with their lines) and the problems found."""

    examples: list[ExampleData] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    issues: list[ImportIssue] = field(default_factory=list)
    fatal: bool = False
    """True when the file as a whole is unusable (bad header, unreadable): nothing to skip to."""


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


def parse_mapping(
    items: Iterable[str], fields: Sequence[str] = EXAMPLE_FIELDS, *, example: str = "input=question"
) -> dict[str, str]:
    """``["input=question", ...]`` as ``{"input": "question"}``; unknown fields are an error.

    ``fields`` are the names a column may be mapped to (an example's, or a label file's);
    ``example`` is the mapping a refusal shows.
    """
    mapping: dict[str, str] = {}
    for item in items:
        name, sep, column = item.partition("=")
        name, column = name.strip(), column.strip()
        if not sep or not name or not column:
            raise ValueError(f"a mapping looks like {example}, not {item!r}")
        if name not in fields:
            raise ValueError(f"unknown field {name!r} in {item!r}; fields: {', '.join(fields)}")
        mapping[name] = column
    return mapping


def detect_format(path: Path, format: FileFormat | None = None) -> FileFormat:
    """The format given, else the one the file name says (.csv, .jsonl, .ndjson)."""
    if format is not None:
        if format not in ("csv", "jsonl"):
            raise ValueError(f"the format must be csv or jsonl, not {format!r}")
        return format
    found = _SUFFIXES.get(path.suffix.lower())
    if found is None:
        raise ValueError(f"cannot tell the format of {path.name} from its name; say csv or jsonl")
    return found


def read_text(path: Path) -> str:
    """The file's text (UTF-8, a byte-order mark allowed); a clear error when it is not text,
    not a regular file, or over :data:`~scorer_runtime.limits.MAX_DATA_FILE_BYTES`."""
    from scorer_runtime.input_files import read_limited

    data = read_limited(path, limit=MAX_DATA_FILE_BYTES, what="file of examples or grades")
    return decode_text(data, source=path.name)


def decode_text(data: bytes, *, source: str) -> str:
    """Uploaded bytes as text (UTF-8, a byte-order mark allowed); a clear error when they are
    not text, naming the line and ``source`` (the file's name)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ImportFailure(
            [ImportIssue(line, "the file is not UTF-8 text; save it as UTF-8 and try again")],
            source=source,
        ) from None


def parse_examples(
    text: str, *, format: FileFormat, mapping: Mapping[str, str] | None = None
) -> ParsedExamples:
    """Parse CSV or JSONL text into examples; ``mapping`` maps a field to its column/key."""
    columns = {name: (mapping or {}).get(name, name) for name in EXAMPLE_FIELDS}
    if format == "csv":
        return _parse_csv(text, columns, set(mapping or {}))
    return _parse_jsonl(text, columns)


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


# Appended after the text: a record of its own unless a quote left open swallows it.
_END = "\ue000scorer-studio-end-of-file\ue000"


class _OpenQuote(Exception):
    """A quote opened on ``line`` is never closed: the rest of the file would be one cell."""

    def __init__(self, line: int, lines: int) -> None:
        self.line, self.lines = line, lines


def _csv_rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """(first line, cells) of each CSV record; a quoted cell may span several lines.

    Raises :class:`_OpenQuote` when a quote is never closed (the reader would otherwise
    merge every later row into one cell, silently).
    """
    _allow_long_cells()
    reader = csv.reader(io.StringIO(f"{text}\n{_END}"))
    start = 1
    previous: tuple[int, list[str]] | None = None
    for cells in reader:
        if previous is not None:
            yield previous
        previous = (start, cells) if any(c.strip() for c in cells) else None
        start = reader.line_num + 1
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
    except csv.Error as e:
        return ImportIssue(1, f"the CSV cannot be read: {e}")
    except _OpenQuote as e:
        message = (
            f'a quote (") opens a cell on this line and is never closed, so lines {e.line}'
            f'–{e.lines} would become one cell; close the quote, or double it ("") if it '
            "is part of the text"
        )
        return ImportIssue(e.line, message)
    return rows or ImportIssue(1, "the file is empty")


def _parse_csv(text: str, columns: dict[str, str], explicit: set[str]) -> ParsedExamples:
    rows = csv_records(text)
    if isinstance(rows, ImportIssue):
        return ParsedExamples(issues=[rows], fatal=True)
    header_line, header = rows[0]
    required = explicit | set(REQUIRED_FIELDS)
    problem = header_problem([h.strip() for h in header], columns, required)
    if problem:
        return ParsedExamples(issues=[ImportIssue(header_line, problem)], fatal=True)
    index = {h.strip(): i for i, h in enumerate(header)}
    out = ParsedExamples()
    for line, cells in rows[1:]:
        if len(cells) != len(header):
            out.issues.append(
                ImportIssue(line, f"{len(cells)} cells, but the header has {len(header)} columns")
            )
            continue
        size = sum(map(len, cells)) * 4  # UTF-8 takes at most 4 bytes a character
        _add(out, line, _csv_values(cells, index, columns, line), columns, "column", size)
    return out


def _csv_values(
    cells: list[str], index: Mapping[str, int], columns: Mapping[str, str], line: int
) -> dict[str, Any] | ImportIssue:
    values: dict[str, Any] = {}
    for name, column in columns.items():
        if column in index:
            try:
                values[name] = parse_cell(name, cells[index[column]])
            except CellError as e:
                return ImportIssue(line, f"{_label(name, column)} {e}")
    return values


def _add(
    out: ParsedExamples,
    line: int,
    values: dict[str, Any] | ImportIssue,
    columns: Mapping[str, str],
    noun: str,
    size: int,
) -> None:
    if isinstance(values, ImportIssue):
        built: ExampleData | ImportIssue = values
    else:
        built = _build(values, columns, line, noun, size)
    if isinstance(built, ImportIssue):
        out.issues.append(built)
    else:
        out.examples.append(built)
        out.lines.append(line)


def header_problem(
    header: list[str], columns: Mapping[str, str], required: Iterable[str]
) -> str | None:
    """Why a CSV header cannot be read (a name twice, a ``required`` field's column missing,
    with the columns there are and how to map one); ``columns`` maps a field to its column."""
    duplicates = sorted({h for h in header if header.count(h) > 1 and h})
    if duplicates:
        return f"the header names {', '.join(repr(d) for d in duplicates)} more than once"
    listed = ", ".join(h for h in header if h) or "(none)"
    for name in sorted(required):
        if columns[name] not in header:
            return (
                f'no column "{columns[name]}" for the {name}; the columns are: {listed}. '
                f"Map a column to {name} (e.g. {name}=answer)"
            )
    return None


def _parse_jsonl(text: str, columns: dict[str, str]) -> ParsedExamples:
    out = ParsedExamples()
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = safe_json.loads(raw)
        except safe_json.JsonLimitError as e:  # too deep, NaN or Infinity: refused
            out.issues.append(ImportIssue(line, e.message))
            continue
        except json.JSONDecodeError as e:
            out.issues.append(ImportIssue(line, f"not valid JSON: {e.msg} (column {e.colno})"))
            continue
        if not isinstance(obj, dict):
            kind = "a list" if isinstance(obj, list) else type(obj).__name__
            out.issues.append(
                ImportIssue(
                    line, f'expected a JSON object like {{"input": …, "output": …}}, got {kind}'
                )
            )
            continue
        missing = [n for n in REQUIRED_FIELDS if columns[n] not in obj]
        if missing:
            out.issues.append(
                ImportIssue(line, f"{_label(missing[0], columns[missing[0]], 'key')} is missing")
            )
            continue
        values = {name: obj.get(key) for name, key in columns.items()}
        _add(out, line, values, columns, "key", len(raw) * 4)
    if not out.examples and not out.issues:
        out.issues.append(ImportIssue(1, "the file is empty"))
        return ParsedExamples(issues=out.issues, fatal=True)
    return out
