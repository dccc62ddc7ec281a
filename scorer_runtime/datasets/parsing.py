"""Importing examples from CSV and JSONL, with column mapping and a report of every bad row.

Every bad row is reported, each with its line number and why (``line 7: column "output" is
empty``); then either the import is aborted and writes nothing, or (``skip_bad_rows``) the
good rows are imported and the bad ones listed. :func:`example_lines` reads a file one line
at a time and :class:`~scorer_runtime.datasets.example_rows.ExampleReader` its rows one at a
time, so an import holds a row, not the file; :func:`parse_examples` reads text whole (an
upload's check).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from scorer_runtime.datasets.csv_text import lines_of
from scorer_runtime.datasets.example_rows import ExampleReader, FatalImport, FileFormat
from scorer_runtime.datasets.issues import ImportFailure, ImportIssue
from scorer_runtime.input_text import NotText, decode_input, text_lines
from scorer_runtime.limits import MAX_DATA_FILE_BYTES
from scorer_runtime.store.datasets import EXAMPLE_FIELDS, ExampleData

_SUFFIXES: dict[str, FileFormat] = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
_WHAT = "file of examples or grades"


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

    data = read_limited(path, limit=MAX_DATA_FILE_BYTES, what=_WHAT)
    return decode_text(data, source=path.name)


def example_lines(path: Path) -> Iterator[str]:
    """The lines of a file of examples, read a chunk at a time (as :func:`read_text` reads the
    file whole, with the same checks); :class:`ImportFailure` naming the line of bytes that
    are not text, ``OSError`` for a file that is not one or is over the limit."""
    from scorer_runtime.input_files import read_chunks

    try:
        yield from text_lines(read_chunks(path, limit=MAX_DATA_FILE_BYTES, what=_WHAT))
    except NotText as e:
        raise ImportFailure([ImportIssue(e.line, e.words)], source=path.name) from None


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
    reader = ExampleReader(format, mapping)
    out = ParsedExamples()
    try:
        for line, found in reader.rows(lines_of(text)):
            if isinstance(found, ImportIssue):
                out.issues.append(found)
            else:
                out.examples.append(found)
                out.lines.append(line)
    except FatalImport as fatal:
        return ParsedExamples(issues=[fatal.issue], fatal=True)
    out.left_out.extend(reader.left_out)
    return out


@dataclass(frozen=True, slots=True)
class ExampleCheck:
    """What a file gives with a mapping, counted: its good rows, every problem (with its
    line), whether it is unusable as a whole, and what no field reads."""

    good: int
    issues: list[ImportIssue]
    fatal: bool
    left_out: list[str]


def check_examples(
    text: str, *, format: FileFormat, mapping: Mapping[str, str] | None = None
) -> ExampleCheck:
    """:func:`parse_examples`, counting the good rows instead of keeping them: an upload's
    check holds its text and a row, never a list of every example."""
    reader = ExampleReader(format, mapping)
    good, issues = 0, []
    try:
        for _, found in reader.rows(lines_of(text)):
            if isinstance(found, ImportIssue):
                issues.append(found)
            else:
                good += 1
    except FatalImport as fatal:
        return ExampleCheck(0, [fatal.issue], True, [])
    return ExampleCheck(good, issues, False, reader.left_out)
