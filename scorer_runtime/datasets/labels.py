"""People's grades (labels) of a scorer's examples in and out of CSV files.

A label file has a header and one row per grade: ``example_id``, ``grade`` (the grade's score,
or its name: ``pass``, ``polite``…), ``grade_name``, ``note``, ``grader``, ``time`` (when it was
graded, ISO 8601; without a zone it is UTC; without a time, the time of the import) and, on
export, a summary of the example's input and output. An imported grade keeps its time, so the
latest grade of an example stays the latest when a file is exported and imported again.
Columns are mapped as in a dataset import (``grade=verdict``), with the same CSV reading. Bad
rows (an example that does not exist, a grade the scorer's scale does not have, no grader, a
time that cannot be read) are reported by their line and the good rows are imported: nothing
else is lost.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TextIO

from sqlmodel import Session

from scorer_runtime.datasets.parsing import (
    ImportFailure,
    ImportIssue,
    csv_records,
    header_problem,
)
from scorer_runtime.limits import MAX_FIELD_BYTES, size_words
from scorer_runtime.store.errors import NotFoundError
from scorer_runtime.store.labels import (
    LabelInfo,
    add_label,
    examples_by_id,
    existing_example_ids,
    labels_of_examples,
    latest_labels,
)
from scorer_runtime.store.scorers import get_scorer, latest_version
from scorer_runtime.trust.scale import Scale, scale_of

LABEL_FIELDS = ("example_id", "grade", "grade_name", "note", "grader", "time")
"""The fields a label file's columns are mapped to (``--map grade=verdict``)."""
EXPORT_COLUMNS = ("example_id", "input", "output", "grade", "grade_name", "note", "grader", "time")
"""The columns of an exported label file; it imports back as it is."""
SUMMARY_CHARS = 200
"""How much of an example's input and output an exported row shows."""
_REQUIRED = ("example_id", "grader")
MAX_GRADER_CHARS = 200
"""The longest grader's name the store keeps (``LabelRecord.labeller``)."""
CLOCK_SLACK = timedelta(days=1)
"""How far ahead of now a grade's time may be (clocks and zones differ) before it is refused:
a grade dated in the future would stay the latest grade of its example whatever came after."""


@dataclass(frozen=True, slots=True)
class LabelRow:
    """One good row of a label file: which example, the grade's score, who, a note, and when
    (UTC; None when the file does not say)."""

    line: int
    example_id: int
    value: float
    grader: str
    note: str = ""
    time: datetime | None = None


@dataclass(frozen=True, slots=True)
class ParsedLabels:
    """The good rows of a label file and the problems of the others."""

    rows: list[LabelRow] = field(default_factory=list)
    issues: list[ImportIssue] = field(default_factory=list)
    fatal: bool = False
    """True when the file as a whole is unusable (no header, a needed column missing)."""


@dataclass(frozen=True, slots=True)
class LabelImport:
    """What an import did: how many grades it added, the rows it left out (and why), and how
    many grades were already stored (a file imported again adds nothing twice)."""

    imported: int
    skipped: list[ImportIssue] = field(default_factory=list)
    already: int = 0

    def words(self, source: str) -> str:
        """What the import did, in a sentence (the rows left out are listed apart)."""
        if self.imported == 0:
            return (
                f"Nothing new in {source}: its {_grades(self.already)} "
                f"{'is' if self.already == 1 else 'are'} already stored."
            )
        said = f"Imported {_grades(self.imported)} from {source}."
        if self.already:
            were = "was" if self.already == 1 else "were"
            said += f" {_grades(self.already)} {were} already stored and not added again."
        return said


def _grades(n: int) -> str:
    return f"{n:,} grade{'s' * (n != 1)}"


def scorer_scale(session: Session, *, scorer_id: int) -> Scale:
    """The scale people grade a scorer on: that of its latest version."""
    version = latest_version(session, scorer_id=scorer_id)
    if version is None:
        raise NotFoundError(f"scorer {scorer_id} has no saved version to grade on")
    return scale_of(version.spec)


def parse_labels(
    text: str, *, scale: Scale, mapping: Mapping[str, str] | None = None
) -> ParsedLabels:
    """Read a label file's CSV text; ``mapping`` maps a field to its column."""
    columns = {name: (mapping or {}).get(name, name) for name in LABEL_FIELDS}
    rows = csv_records(text)
    if isinstance(rows, ImportIssue):
        return ParsedLabels(issues=[rows], fatal=True)
    header_line, raw_header = rows[0]
    header = [h.strip() for h in raw_header]
    problem = header_problem(header, columns, {*_REQUIRED, *(mapping or {})})
    if problem is None and columns["grade"] not in header and columns["grade_name"] not in header:
        problem = (
            f'no column "{columns["grade"]}" or "{columns["grade_name"]}" for the grade; the '
            f"columns are: {', '.join(h for h in header if h)}. Map a column to grade "
            "(e.g. grade=verdict)"
        )
    if problem:
        return ParsedLabels(issues=[ImportIssue(header_line, problem)], fatal=True)
    index = {name: header.index(col) for name, col in columns.items() if col in header}
    out = ParsedLabels()
    latest = datetime.now(UTC) + CLOCK_SLACK
    for line, cells in rows[1:]:
        if len(cells) != len(header):
            why = f"{len(cells)} cells, but the header has {len(header)} columns"
            out.issues.append(ImportIssue(line, why))
            continue
        row = _row(line, {name: cells[i].strip() for name, i in index.items()}, scale, latest)
        if isinstance(row, ImportIssue):
            out.issues.append(row)
        else:
            out.rows.append(row)
    return out


def _row(
    line: int, values: Mapping[str, str], scale: Scale, latest: datetime
) -> LabelRow | ImportIssue:
    raw_id = values.get("example_id", "")
    try:
        example_id = int(float(raw_id)) if raw_id else None
    except ValueError:
        example_id = None
    if example_id is None or str(example_id) != raw_id.removesuffix(".0"):
        shown = f'"{raw_id}"' if raw_id else "empty"
        return ImportIssue(line, f"the example id is {shown}; it must be a whole number")
    grade = values.get("grade") or values.get("grade_name") or ""
    if not grade:
        return ImportIssue(line, f"example {example_id} has no grade")
    value = _grade_value(grade, scale)
    if isinstance(value, str):
        return ImportIssue(line, f"example {example_id}: {value}")
    grader, note = values.get("grader", ""), values.get("note", "")
    if not grader:
        return ImportIssue(line, f"example {example_id} has no grader; say who graded it")
    if len(grader) > MAX_GRADER_CHARS:
        why = f"the grader's name is {len(grader):,} characters; at most {MAX_GRADER_CHARS}"
        return ImportIssue(line, f"example {example_id}: {why}")
    if len(note.encode("utf-8")) > MAX_FIELD_BYTES:
        size, limit = size_words(len(note.encode("utf-8"))), size_words(MAX_FIELD_BYTES)
        return ImportIssue(line, f"example {example_id}: the note is {size}; the limit is {limit}")
    time = grade_time(values.get("time", ""), latest)
    if isinstance(time, str):
        return ImportIssue(line, f"example {example_id}: {time}")
    return LabelRow(line, example_id, value, grader, note, time)


def grade_time(text: str, latest: datetime) -> datetime | str | None:
    """When a grade was given, read from ISO 8601 text (``2026-03-01T09:30:00+02:00``; without a
    zone it is UTC), as UTC; None when the text is empty; or why it is not a time."""
    if not text:
        return None
    try:
        time = as_utc(datetime.fromisoformat(text))
    except (ValueError, OverflowError):
        return (
            f'the time "{text}" is not a date and time; write it as 2026-03-01T09:30:00 '
            "(UTC) or with its zone, e.g. 2026-03-01T09:30:00+02:00"
        )
    if time > latest:
        return f"the time {text} is in the future; say when the example was graded"
    return time


def as_utc(time: datetime) -> datetime:
    """``time`` in UTC (a time without a zone is taken as UTC, as the store keeps it)."""
    return (time if time.tzinfo else time.replace(tzinfo=UTC)).astimezone(UTC)


def _grade_value(grade: str, scale: Scale) -> float | str:
    """The score of a grade written as a number or a name, or why it is not on the scale."""
    by_name = {name.lower(): score for name, score in scale.choices()}
    if grade.lower() in by_name:
        return by_name[grade.lower()]
    try:
        value = float(grade)
    except ValueError:
        names = ", ".join(name for name, _ in scale.choices())
        if names:
            return f'"{grade}" is not a grade of this scorer; its grades are {names}'
        return f'"{grade}" is not a number from {scale.low:g} to {scale.high:g}'
    problem = scale.problem(value) if value == value else "the grade is not a number"
    return problem or value


def import_labels(
    session: Session,
    *,
    scorer_id: int,
    text: str,
    mapping: Mapping[str, str] | None = None,
    source: str = "the file",
) -> LabelImport:
    """Add the good rows of a label file as labels of the scorer; the bad rows are returned.

    Raises :class:`ImportFailure` (nothing written) when the file is unusable as a whole or
    has no good row.
    """
    get_scorer(session, id=scorer_id)  # a scorer that does not exist is said as such
    parsed = parse_labels(text, scale=scorer_scale(session, scorer_id=scorer_id), mapping=mapping)
    if parsed.fatal:
        raise ImportFailure(parsed.issues, source=source)
    known = existing_example_ids(session, example_ids={r.example_id for r in parsed.rows})
    issues = list(parsed.issues)
    good: list[LabelRow] = []
    for row in parsed.rows:
        if row.example_id in known:
            good.append(row)
        else:
            why = f"example {row.example_id} does not exist (it may have been deleted)"
            issues.append(ImportIssue(row.line, why))
    if not good:
        issues = issues or [ImportIssue(1, "the file has no grades to import")]
        raise ImportFailure(sorted(issues, key=lambda i: i.line), source=source)
    new = _new_grades(session, scorer_id=scorer_id, rows=good)
    for row in new:
        add_label(
            session,
            example_id=row.example_id,
            scorer_id=scorer_id,
            value=row.value,
            labeller=row.grader,
            note=row.note,
            created_at=row.time,
        )
    return LabelImport(len(new), sorted(issues, key=lambda i: i.line), len(good) - len(new))


_Grade = tuple[int, float, str, str]
"""What a grade says: its example, score, grader and note."""


def _grade(example_id: int, value: float, grader: str, note: str) -> _Grade:
    return (example_id, value, grader.strip(), note.strip())


def _second(time: datetime) -> datetime:
    """``time`` in UTC to the second, as a label file writes it."""
    return as_utc(time).replace(microsecond=0)


def _new_grades(session: Session, *, scorer_id: int, rows: list[LabelRow]) -> list[LabelRow]:
    """The rows that add a grade: not those already stored (the same grade of the example,
    at the same second for a row with a time; for a row without one, the same as the
    example's latest grade, which adding again would not change), nor their repeats."""
    stored = labels_of_examples(
        session, scorer_id=scorer_id, example_ids={r.example_id for r in rows}
    )
    timed: set[tuple[_Grade, datetime]] = set()
    latest: dict[int, tuple[datetime, _Grade]] = {}
    for example_id, labels in stored.items():
        timed.update((_label_grade(label), _second(label.created_at)) for label in labels)
        latest[example_id] = (as_utc(labels[0].created_at), _label_grade(labels[0]))
    new = []
    for row in rows:
        grade = _grade(row.example_id, row.value, row.grader, row.note)
        known = latest.get(row.example_id)
        if row.time is None:
            if known is not None and known[1] == grade:
                continue
            latest[row.example_id] = (datetime.now(UTC) + CLOCK_SLACK, grade)  # stored as now
        else:
            if (grade, _second(row.time)) in timed:
                continue
            timed.add((grade, _second(row.time)))
            if known is None or row.time >= known[0]:
                latest[row.example_id] = (row.time, grade)
        new.append(row)
    return new


def _label_grade(label: LabelInfo) -> _Grade:
    return _grade(label.example_id, label.value, label.labeller, label.note)


def summary(value: Any) -> str:
    """An example's input or output as a short text (JSON for structured values)."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def write_labels(session: Session, *, scorer_id: int, stream: TextIO) -> int:
    """Write the latest grade of each graded example as CSV; returns how many rows."""
    scale = scorer_scale(session, scorer_id=scorer_id)
    labels = latest_labels(session, scorer_id=scorer_id)
    examples = examples_by_id(session, example_ids=labels.keys())
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    for example_id in sorted(labels):
        label = labels[example_id]
        example = examples.get(example_id)
        writer.writerow(
            [
                example_id,
                summary(example.input if example else None),
                summary(example.output if example else None),
                _exact(label.value),
                grade_name(scale, label.value),
                label.note,
                label.labeller,
                as_utc(label.created_at).isoformat(timespec="seconds"),
            ]
        )
    return len(labels)


def _exact(value: float) -> str:
    """``value`` as short as it reads back the same (0.75, 1; 0.3333333333333333 in full)."""
    short = f"{value:g}"
    return short if float(short) == value else repr(value)


def grade_name(scale: Scale, value: float) -> str:
    """A grade's name on the scale: its label, or ``pass``/``fail`` (a number at or above the
    pass mark passes)."""
    return scale.verdict(value)
