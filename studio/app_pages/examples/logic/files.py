"""Files in and out of a dataset: preview and column mapping of an upload, import, export,
and loading the demo datasets.

Checking and importing are the batch package's (``check_examples``, ``import_examples``), so
the studio reports exactly the row errors the command line does.
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from scorer_runtime import safe_json
from scorer_runtime.datasets import (
    ExampleCheck,
    FileFormat,
    ImportResult,
    check_examples,
    decode_text,
    detect_format,
    import_examples,
    iter_dataset,
    write_examples,
)
from scorer_runtime.datasets.cells import format_cell
from scorer_runtime.datasets.label_match import INPUT_COLUMN_NAMES, OUTPUT_COLUMN_NAMES
from scorer_runtime.input_text import json_lines
from scorer_runtime.store import EXAMPLE_FIELDS, Session

JSONL_KEY_SCAN = 200
"""How many lines of a JSONL file are read to list its keys (a key first seen later can
still be typed into the mapping by renaming it in the file)."""
FIELD_LABELS: dict[str, str] = {
    "input": "Input — what the user asked",
    "output": "Output — the answer to score (required)",
    "ground_truth": "Ground truth — the expected answer",
    "request_context": "Request context — extra facts (JSON)",
    "tags": "Tags",
}
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "input": INPUT_COLUMN_NAMES,
    "output": OUTPUT_COLUMN_NAMES,
    "ground_truth": (
        "ground_truth",
        "expected",
        "expected_output",
        "expected_answer",
        "reference",
        "target",
        "gold",
        "ideal",
        "label",
    ),
    "request_context": ("request_context", "context", "metadata"),
    "tags": ("tags", "tag", "labels", "categories"),
}


@dataclass(frozen=True, slots=True)
class FilePreview:
    """The first rows of an uploaded file and the columns (CSV) or keys (JSONL) it has."""

    format: FileFormat
    columns: list[str]
    rows: list[dict[str, str]]
    """The first rows, every value as text."""


def file_format(filename: str) -> FileFormat:
    """csv or jsonl from the file's name; ValueError saying what names are understood."""
    return detect_format(Path(filename))


def decode_upload(data: bytes, filename: str) -> str:
    """An uploaded file's text (UTF-8 or UTF-16, a byte-order mark allowed, any line endings);
    ImportFailure naming the line otherwise."""
    return decode_text(data, source=filename)


def preview_file(text: str, format: FileFormat, *, limit: int = 5) -> FilePreview:
    """The columns and first ``limit`` rows of CSV or JSONL text. Only the start of the file
    is read (unreadable lines are skipped: the full check reports them with their lines)."""
    if format == "csv":
        records = (r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r))
        head: list[list[str]] = []
        with contextlib.suppress(csv.Error):  # keep the rows before a bad one (the check
            head.extend(itertools.islice(records, limit + 1))  # names its line)
        if not head:
            return FilePreview(format, [], [])
        header = [h.strip() for h in head[0]]
        rows = [dict(zip(header, cells, strict=False)) for cells in head[1:]]
        return FilePreview(format, header, rows)
    columns: list[str] = []
    rows = []
    lines = (line for _, line in json_lines(text))
    for line in itertools.islice(lines, max(limit, JSONL_KEY_SCAN)):
        try:  # the runtime's reader: a row nested 100,000 deep is skipped, not a crash
            obj = safe_json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            columns += [str(k) for k in obj if str(k) not in columns]
            if len(rows) < limit:
                rows.append({str(k): format_cell(v) for k, v in obj.items()})
    return FilePreview(format, columns, rows)


def _normal(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def guess_mapping(columns: Sequence[str]) -> dict[str, str]:
    """Which column most likely holds each field (by common names); a column is used once."""
    by_normal = {_normal(c): c for c in reversed(columns)}
    mapping: dict[str, str] = {}
    for name in EXAMPLE_FIELDS:
        for synonym in _SYNONYMS[name]:
            column = by_normal.get(synonym)
            if column is not None and column not in mapping.values():
                mapping[name] = column
                break
    return mapping


def can_leave_out(name: str, columns: Sequence[str]) -> bool:
    """Whether a field can be left unmapped: not the output, and not when a column carries
    the field's own name (that column is always read as the field)."""
    return name != "output" and name not in columns


def check_file(text: str, format: FileFormat, mapping: Mapping[str, str]) -> ExampleCheck:
    """How many examples, and every bad row (with its line), the file gives with this
    mapping; the examples are counted, not kept (an upload may hold a million rows)."""
    return check_examples(text, format=format, mapping=dict(mapping))


def import_upload(
    session: Session,
    *,
    data: bytes,
    filename: str,
    dataset_name: str,
    mapping: Mapping[str, str],
    skip_bad_rows: bool,
    append: bool,
) -> ImportResult:
    """Import an uploaded file (bytes) into a new dataset, or append to the one named.

    Raises ImportFailure listing every bad row (nothing written) unless ``skip_bad_rows``.
    """
    name = Path(filename).name or "upload.csv"
    with tempfile.TemporaryDirectory(prefix="scorer-studio-import-") as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        return import_examples(
            session,
            path=path,
            dataset_name=dataset_name,
            mapping=dict(mapping),
            skip_bad_rows=skip_bad_rows,
            append=append,
        )


def export_bytes(session: Session, *, dataset_id: int, format: FileFormat) -> bytes:
    """A dataset as a CSV or JSONL file's bytes (UTF-8), read from the database page by page."""
    stream = io.StringIO(newline="")
    write_examples(iter_dataset(session, dataset_id=dataset_id), stream, format=format)
    return stream.getvalue().encode("utf-8")


def export_file_name(dataset_name: str, format: FileFormat) -> str:
    """A safe file name for a dataset's export: ``customer_support.jsonl``."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", dataset_name).strip("._") or "dataset"
    return f"{stem}.{format}"
