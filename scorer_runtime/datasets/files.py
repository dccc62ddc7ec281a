"""Importing a file into a dataset, and exporting a dataset to CSV or JSONL."""

from __future__ import annotations

import csv
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

from sqlmodel import Session

from scorer_runtime.datasets.cells import format_cell
from scorer_runtime.datasets.issues import ImportFailure, ImportIssue
from scorer_runtime.datasets.parsing import FileFormat, detect_format, parse_examples, read_text
from scorer_runtime.names import normal_name
from scorer_runtime.store.datasets import (
    EXAMPLE_FIELDS,
    DatasetInfo,
    ExampleData,
    add_examples,
    create_dataset,
    example_key,
    get_dataset,
    list_examples,
    stored_example_keys,
)
from scorer_runtime.store.errors import ConflictError, NotFoundError

_SKIP_HINT = "Fix the file, or import with skip bad rows to import only the good rows."


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import did: the dataset, how many examples it added, which rows it skipped, and
    how many of the file's examples were already stored there (and so not added again)."""

    dataset_id: int
    dataset_name: str
    imported: int
    skipped: list[ImportIssue] = field(default_factory=list)
    already: int = 0
    left_out: list[str] = field(default_factory=list)
    """What the file holds that was not imported (columns no field reads), in sentences."""

    def words(self, source: str) -> str:
        """What the import did, in sentences: how many examples, and what the file holds that
        was left out (the rows skipped are listed apart)."""
        return " ".join([self._counted(source), *self.left_out])

    def _counted(self, source: str) -> str:
        where = f"dataset {self.dataset_name}"
        if self.imported == 0:
            return (
                f"Nothing added from {source}: its {_examples(self.already)} "
                f"{'is' if self.already == 1 else 'are'} already stored in {where}."
            )
        said = f"Imported {_examples(self.imported)} from {source} into {where}"
        if self.already:
            return (
                f"{said}: {self.imported:,} new, {self.already:,} already stored (not added again)."
            )
        return f"{said}."


def _examples(n: int) -> str:
    return f"{n:,} example{'s' * (n != 1)}"


def new_examples(
    stored: Counter[str], examples: Sequence[ExampleData]
) -> tuple[list[ExampleData], int]:
    """The examples not yet stored, and how many were: an example whose content (input, output,
    ground truth, request context, tags) the dataset already holds is not added again. Counted
    as many times as it is stored, so a file that repeats a row on purpose keeps its repeats,
    and importing the same file again adds nothing."""
    left = Counter(stored)
    new: list[ExampleData] = []
    for example in examples:
        key = example_key(example)
        if left[key] > 0:
            left[key] -= 1
        else:
            new.append(example)
    return new, len(examples) - len(new)


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
    an existing dataset of that name instead of requiring a new one. Examples the dataset
    already holds are not added again (:func:`new_examples`): importing a file twice adds
    nothing the second time, and a new dataset's name that is taken by a dataset holding
    every example of the file is that import made again, not a conflict.
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
    name = normal_name((dataset_name or path.stem).strip(" "))
    dataset = _existing(session, name)
    if dataset is None:
        dataset = create_dataset(session, name=name, description=description)
        new, already = list(parsed.examples), 0
    elif dataset.archived_at is not None and not append:
        raise ConflictError(f"an archived dataset is named {name!r}; choose another name")
    else:
        stored = stored_example_keys(session, dataset_id=dataset.id)
        new, already = new_examples(stored, parsed.examples)
        if new and not append:
            raise ConflictError(
                f"a dataset named {name!r} already exists and lacks {_examples(len(new))} of "
                "this file; choose another name, or add the file to that dataset"
            )
    added = add_examples(session, dataset_id=dataset.id, examples=new)
    skipped = list(parsed.issues)
    return ImportResult(dataset.id, dataset.name, added, skipped, already, parsed.left_out)


def _existing(session: Session, name: str) -> DatasetInfo | None:
    try:
        return get_dataset(session, name=name)
    except NotFoundError:
        return None


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
