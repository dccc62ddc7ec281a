"""Importing a file into a dataset, and exporting a dataset to CSV or JSONL."""

from __future__ import annotations

import csv
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

from sqlmodel import Session

from scorer_runtime.datasets.cells import format_cell
from scorer_runtime.datasets.example_rows import ExampleReader, FatalImport, FileFormat
from scorer_runtime.datasets.issues import ImportFailure, ImportIssue
from scorer_runtime.datasets.parsing import detect_format, example_lines
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


IMPORT_BATCH = 5_000
"""Examples written to the store at a time while a file is read (memory holds one batch)."""


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
    already holds (the same input, output, ground truth, request context and tags) are not
    added again, counted as many times as they are stored (a file that repeats a row on
    purpose keeps its repeats): importing a file twice adds nothing the second time, and a
    new dataset's name that is taken by a dataset holding every example of the file is that
    import made again, not a conflict.

    The file is read a line at a time and its examples written in batches of
    :data:`IMPORT_BATCH` inside one savepoint, rolled back when the import fails (a bad row
    found late, a quote never closed at the end): memory holds a batch, not the file.
    """
    fmt = detect_format(path, format)
    name = normal_name((dataset_name or path.stem).strip(" "))
    plan = _ImportPlan(session, name, append=append, description=description)
    reader = ExampleReader(fmt, mapping)
    with session.begin_nested():
        try:
            for _, found in reader.rows(example_lines(path)):
                if isinstance(found, ImportIssue):
                    plan.issues.append(found)
                elif skip_bad_rows or not plan.issues:  # else nothing will be written
                    plan.take(found)
        except FatalImport as fatal:
            raise ImportFailure([fatal.issue], source=path.name) from None
        if plan.issues and not skip_bad_rows:
            raise ImportFailure(plan.issues, source=path.name, hint=_SKIP_HINT)
        if not plan.good:
            issues = [*plan.issues, ImportIssue(1, "the file has no examples to import")]
            raise ImportFailure(issues, source=path.name)
        dataset = plan.finish()
    return ImportResult(
        dataset.id, dataset.name, plan.added, plan.issues, plan.already, reader.left_out
    )


class _ImportPlan:
    """Where an import's examples go, taken one at a time: a new dataset (made with the first
    example), the one of that name (``append``), or none (a name taken: only counted, to say
    whether the file is that import made again)."""

    def __init__(self, session: Session, name: str, *, append: bool, description: str) -> None:
        self.session, self.name, self.description = session, name, description
        self.dataset = _existing(session, name)
        self.writes = self.dataset is None or append
        self.stored: Counter[str] = Counter()
        if self.dataset is not None:
            self.stored = stored_example_keys(session, dataset_id=self.dataset.id)
        self.issues: list[ImportIssue] = []
        self.batch: list[ExampleData] = []
        self.good = self.added = self.already = self.new = 0

    def take(self, example: ExampleData) -> None:
        """Count one good example, and write it unless the dataset already holds it."""
        self.good += 1
        if self.stored:
            key = example_key(example)
            if self.stored[key] > 0:
                self.stored[key] -= 1
                self.already += 1
                return
        self.new += 1
        if self.writes:
            self.batch.append(example)
            if len(self.batch) >= IMPORT_BATCH:
                self._write()

    def _write(self) -> None:
        if self.dataset is None:
            self.dataset = create_dataset(
                self.session, name=self.name, description=self.description
            )
        self.added += add_examples(self.session, dataset_id=self.dataset.id, examples=self.batch)
        self.batch = []

    def finish(self) -> DatasetInfo:
        """The dataset written to, once the last batch is; ConflictError for a name taken by
        another dataset (archived, or lacking examples of the file, without ``append``)."""
        dataset = self.dataset
        if dataset is not None and not self.writes:
            if dataset.archived_at is not None:
                raise ConflictError(
                    f"an archived dataset is named {self.name!r}; choose another name"
                )
            if self.new:
                raise ConflictError(
                    f"a dataset named {self.name!r} already exists and lacks "
                    f"{_examples(self.new)} of this file; choose another name, or add the "
                    "file to that dataset"
                )
            return dataset
        if self.batch or self.dataset is None:
            self._write()
        assert self.dataset is not None
        return self.dataset


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
