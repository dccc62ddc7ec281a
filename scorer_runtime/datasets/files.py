"""Importing a file into a dataset, and exporting a dataset to CSV or JSONL."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

from sqlmodel import Session

from scorer_runtime.datasets.cells import format_cell
from scorer_runtime.datasets.parsing import (
    FileFormat,
    ImportFailure,
    ImportIssue,
    detect_format,
    parse_examples,
    read_text,
)
from scorer_runtime.store.datasets import (
    EXAMPLE_FIELDS,
    ExampleData,
    add_examples,
    create_dataset,
    get_dataset,
    list_examples,
)
from scorer_runtime.store.errors import NotFoundError

_SKIP_HINT = "Fix the file, or import with skip bad rows to import only the good rows."


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import did: the dataset, how many examples it added, which rows it skipped."""

    dataset_id: int
    dataset_name: str
    imported: int
    skipped: list[ImportIssue] = field(default_factory=list)


def import_examples(
    session: Session,
    *,
    path: Path,
    dataset_name: str | None = None,
    format: FileFormat | None = None,
    mapping: Mapping[str, str] | None = None,
    skip_bad_rows: bool = False,
    append: bool = False,
    description: str = "",
) -> ImportResult:
    """Import ``path`` into a new dataset (named after the file unless ``dataset_name``).

    Raises :class:`ImportFailure` listing every bad row, having written nothing, unless
    ``skip_bad_rows``; a file that is unusable as a whole always fails. ``append`` adds to
    an existing dataset of that name instead of requiring a new one.
    """
    fmt = detect_format(path, format)
    parsed = parse_examples(read_text(path), format=fmt, mapping=mapping)
    if parsed.fatal or (parsed.issues and not skip_bad_rows):
        hint = "" if parsed.fatal else _SKIP_HINT
        raise ImportFailure(parsed.issues, source=path.name, hint=hint)
    if not parsed.examples:
        raise ImportFailure(
            [*parsed.issues, ImportIssue(1, "the file has no examples to import")],
            source=path.name,
        )
    name = (dataset_name or path.stem).strip()
    dataset = None
    if append:
        try:
            dataset = get_dataset(session, name=name)
        except NotFoundError:
            dataset = None
    if dataset is None:
        dataset = create_dataset(session, name=name, description=description)
    assert dataset.id is not None
    added = add_examples(session, dataset_id=dataset.id, examples=parsed.examples)
    return ImportResult(dataset.id, dataset.name, added, list(parsed.issues))


def iter_dataset(session: Session, *, dataset_id: int, page: int = 500) -> Iterable[ExampleData]:
    """Every example of a dataset, in order, read page by page."""
    after: int | None = None
    while records := list_examples(session, dataset_id=dataset_id, after_id=after, limit=page):
        yield from (ExampleData.of(r) for r in records)
        after = records[-1].id


def write_examples(examples: Iterable[ExampleData], stream: TextIO, *, format: FileFormat) -> int:
    """Write examples as CSV (a header, then one row each) or JSONL; returns how many."""
    count = 0
    if format == "csv":
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(EXAMPLE_FIELDS)
        for example in examples:
            writer.writerow([format_cell(getattr(example, name)) for name in EXAMPLE_FIELDS])
            count += 1
        return count
    for example in examples:
        data = {k: v for k, v in asdict(example).items() if v is not None}
        stream.write(json.dumps(data, ensure_ascii=False) + "\n")
        count += 1
    return count


def export_examples(
    session: Session, *, dataset_id: int, path: Path, format: FileFormat | None = None
) -> int:
    """Export a dataset to ``path`` (format from the name unless given); returns how many."""
    from scorer_runtime.output_files import write_whole

    fmt = detect_format(path, format)
    examples = iter_dataset(session, dataset_id=dataset_id)
    return write_whole(path, lambda stream: write_examples(examples, stream, format=fmt))
