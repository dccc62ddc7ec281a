"""Importing examples from CSV and JSONL, with column mapping and a report of every bad row.

Parsing reads the whole file before anything is written: bad rows are reported together,
each with its line number and why (``line 7: column "output" is empty``). Then either the
import is aborted and writes nothing, or (``skip_bad_rows``) the good rows are imported and
the bad ones listed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from scorer_runtime import safe_json
from scorer_runtime.datasets.cells import CellError, check_value, parse_cell
from scorer_runtime.datasets.csv_text import columns_left_out, csv_records, header_problem
from scorer_runtime.datasets.issues import ImportFailure, ImportIssue
from scorer_runtime.input_text import NotText, decode_input, json_lines
from scorer_runtime.limits import MAX_DATA_FILE_BYTES, MAX_FIELD_BYTES, size_words
from scorer_runtime.store.datasets import EXAMPLE_FIELDS, ExampleData

FileFormat = Literal["csv", "jsonl"]
REQUIRED_FIELDS = ("output",)
"""Fields every example must have: the output is what gets scored. An empty answer is
allowed when written as such (``""`` in JSONL, a cell holding ``""`` in CSV); a blank CSV
cell or a missing key is an error."""
_SUFFIXES: dict[str, FileFormat] = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


@dataclass(frozen=True, slots=True)
class ParsedExamples:
    """The good examples of a file (with their lines) and the problems found."""

    examples: list[ExampleData] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    issues: list[ImportIssue] = field(default_factory=list)
    fatal: bool = False
    """True when the file as a whole is unusable (bad header, unreadable): nothing to skip to."""
    left_out: list[str] = field(default_factory=list)
    """What the file holds that no field reads (CSV columns), in sentences: imported
    without it, and said so."""


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
    """The file's text (UTF-8 or UTF-16, see :func:`~scorer_runtime.input_text.decode_input`);
    a clear error when it is not text, not a regular file, or over
    :data:`~scorer_runtime.limits.MAX_DATA_FILE_BYTES`."""
    from scorer_runtime.input_files import read_limited

    data = read_limited(path, limit=MAX_DATA_FILE_BYTES, what="file of examples or grades")
    return decode_text(data, source=path.name)


def decode_text(data: bytes, *, source: str) -> str:
    """Uploaded bytes as text (UTF-8 or UTF-16, a byte-order mark allowed, any line endings);
    a clear error when they are not text, naming the line and ``source`` (the file's name)."""
    try:
        return decode_input(data)
    except NotText as e:
        raise ImportFailure([ImportIssue(e.line, e.words)], source=source) from None


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
    read = {column for column in columns.values() if column in index}
    out = ParsedExamples(left_out=columns_left_out([h.strip() for h in header], read, rows[1:]))
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


def _parse_jsonl(text: str, columns: dict[str, str]) -> ParsedExamples:
    out = ParsedExamples()
    read = set(columns.values())
    unread: dict[str, int] = {}  # a key no field reads -> the first line holding it
    for line, raw in json_lines(text):
        try:
            obj = safe_json.loads(raw, unique_keys=True)
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
        for key in obj.keys() - read - unread.keys():
            unread[key] = line
    if not out.examples and not out.issues:
        out.issues.append(ImportIssue(1, "the file is empty"))
        return ParsedExamples(issues=out.issues, fatal=True)
    out.left_out.extend(_keys_left_out(unread))
    return out


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
