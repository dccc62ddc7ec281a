"""People's grades (labels) of a scorer's examples in and out of CSV files.

A label file has a header and one row per grade: which example (``example_id``; or the
example's ``number`` in its dataset; or its ``input`` and ``output``, as a person's spreadsheet
holds them: :mod:`scorer_runtime.datasets.label_match`), ``grade`` (the grade's score, or its
name: ``pass``, ``polite``…), ``grade_name``, ``note``, ``grader`` (optional when the import
says who graded), ``time`` (when it was graded, ISO 8601; without a zone it is UTC; without a
time, the time of the import) and, on export, a summary of the example's input and output. An
imported grade keeps its time, so the latest grade of an example stays the latest when a file
is exported and imported again. Columns are found by their usual names (``question``,
``answer``, ``verdict``…) or mapped as in a dataset import (``grade=verdict``), with the same
CSV reading. Bad rows (an example that does not exist, or that the row's content matches
nothing or several of, a grade the scorer's scale does not have, no grader, a time that cannot
be read) are reported by their line and the good rows are imported: nothing else is lost.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from sqlmodel import Session

from scorer_runtime.datasets.csv_text import (
    columns_left_out,
    columns_words,
    csv_records,
    header_problem,
)
from scorer_runtime.datasets.issues import ImportFailure, ImportIssue
from scorer_runtime.datasets.label_match import FINDERS, describe, find_examples, label_columns
from scorer_runtime.limits import MAX_FIELD_BYTES, size_words
from scorer_runtime.store.errors import NotFoundError
from scorer_runtime.store.labels import (
    LabelInfo,
    add_label,
    labels_of_examples,
)
from scorer_runtime.store.scorers import get_scorer, latest_version
from scorer_runtime.trust.scale import Scale, scale_of

LABEL_FIELDS = (
    "example_id",
    "number",
    "input",
    "output",
    "grade",
    "grade_name",
    "note",
    "grader",
    "time",
)
"""The fields a label file's columns are mapped to (``--map grade=verdict``)."""
MAX_GRADER_CHARS = 200
"""The longest grader's name the store keeps (``LabelRecord.labeller``)."""
CLOCK_SLACK = timedelta(days=1)
"""How far ahead of now a grade's time may be (clocks and zones differ) before it is refused:
a grade dated in the future would stay the latest grade of its example whatever came after."""


@dataclass(frozen=True, slots=True)
class LabelRow:
    """One good row of a label file: which example, the grade's score, who, a note, and when
    (UTC; None when the file does not say). Which example is its id, or (before the import
    finds it) its ``number`` in its dataset, or its ``input`` and ``output`` texts (None: the
    file has no such column)."""

    line: int
    example_id: int | None
    value: float
    grader: str
    note: str = ""
    time: datetime | None = None
    number: int | None = None
    input: str | None = None
    output: str | None = None

    @property
    def example(self) -> int:
        """The id of the example graded (a row is only added once it is known)."""
        if self.example_id is None:
            raise ValueError(f"line {self.line}: the example is not found yet")
        return self.example_id

    def who(self) -> str:
        """The example the row names, in words (for its problems)."""
        if self.example_id is not None:
            return f"example {self.example_id}"
        return describe(self.input, self.output, self.number)


@dataclass(frozen=True, slots=True)
class ParsedLabels:
    """The good rows of a label file and the problems of the others."""

    rows: list[LabelRow] = field(default_factory=list)
    issues: list[ImportIssue] = field(default_factory=list)
    fatal: bool = False
    """True when the file as a whole is unusable (no header, a needed column missing)."""
    left_out: list[str] = field(default_factory=list)
    """Columns no field of a grade reads, in sentences (imported without them, said so)."""


@dataclass(frozen=True, slots=True)
class LabelImport:
    """What an import did: how many grades it added, the rows it left out (and why), and how
    many grades were already stored (a file imported again adds nothing twice)."""

    imported: int
    skipped: list[ImportIssue] = field(default_factory=list)
    already: int = 0
    left_out: list[str] = field(default_factory=list)
    """Columns of the file no field of a grade reads, in sentences."""

    def words(self, source: str) -> str:
        """What the import did, in sentences: how many grades, and the columns left out
        (the rows left out are listed apart)."""
        return " ".join([self._counted(source), *self.left_out])

    def _counted(self, source: str) -> str:
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
    text: str, *, scale: Scale, mapping: Mapping[str, str] | None = None, grader: str = ""
) -> ParsedLabels:
    """Read a label file's CSV text; ``mapping`` maps a field to its column (an empty column:
    the file does not have it; others are found by their usual names); ``grader`` is who
    graded the rows of a file without a grader column."""
    rows = csv_records(text)
    if isinstance(rows, ImportIssue):
        return ParsedLabels(issues=[rows], fatal=True)
    header_line, raw_header = rows[0]
    header = [h.strip() for h in raw_header]
    columns = label_columns(header, mapping or {})
    problem = _header_problem(header, columns, mapping or {}, grader)
    if problem:
        return ParsedLabels(issues=[ImportIssue(header_line, problem)], fatal=True)
    index = {name: header.index(col) for name, col in columns.items()}
    left_out = columns_left_out(header, set(columns.values()), rows[1:], of="a grade")
    out = ParsedLabels(left_out=left_out)
    latest = datetime.now(UTC) + CLOCK_SLACK
    for line, cells in rows[1:]:
        if len(cells) != len(header):
            why = f"{len(cells)} cells, but the header has {len(header)} columns"
            out.issues.append(ImportIssue(line, why))
            continue
        values = {name: cells[i].strip() for name, i in index.items()}
        if "grader" not in values:
            values["grader"] = grader.strip()
        row = _row(line, values, scale, latest)
        if isinstance(row, ImportIssue):
            out.issues.append(row)
        else:
            out.rows.append(row)
    return out


def _header_problem(
    header: list[str], columns: Mapping[str, str], mapping: Mapping[str, str], grader: str
) -> str | None:
    """Why a label file's header cannot be read: a column named twice or mapped but missing,
    nothing that says which example a row is about, no grade, or no grader."""
    named = {name: mapping.get(name, name) for name in LABEL_FIELDS}
    problem = header_problem(header, named, {name for name, column in mapping.items() if column})
    if problem:
        return problem
    if not any(name in columns for name in FINDERS):
        return (
            "no column says which example a row grades: give its example_id, its number in "
            "the dataset, or its input and output (e.g. columns question and answer); "
            + columns_words(header)
        )
    if "grade" not in columns and "grade_name" not in columns:
        hint = columns_words(header, "grade=verdict")
        return f'no column "grade" or "grade_name" for the grade; {hint}'
    if "grader" not in columns and not grader.strip():
        return (
            f'no column "grader" for the grader; {columns_words(header, "grader=reviewer")}, '
            "or say who graded the file"
        )
    return None


def _row(
    line: int, values: Mapping[str, str], scale: Scale, latest: datetime
) -> LabelRow | ImportIssue:
    found = _which(line, values)
    if isinstance(found, ImportIssue):
        return found
    who = found.who()
    grade = values.get("grade") or values.get("grade_name") or ""
    if not grade:
        return ImportIssue(line, f"{who} has no grade")
    value = _grade_value(grade, scale)
    if isinstance(value, str):
        return ImportIssue(line, f"{who}: {value}")
    grader, note = values.get("grader", ""), values.get("note", "")
    if not grader:
        return ImportIssue(line, f"{who} has no grader; say who graded it")
    if len(grader) > MAX_GRADER_CHARS:
        why = f"the grader's name is {len(grader):,} characters; at most {MAX_GRADER_CHARS}"
        return ImportIssue(line, f"{who}: {why}")
    if len(note.encode("utf-8")) > MAX_FIELD_BYTES:
        size, limit = size_words(len(note.encode("utf-8"))), size_words(MAX_FIELD_BYTES)
        return ImportIssue(line, f"{who}: the note is {size}; the limit is {limit}")
    time = grade_time(values.get("time", ""), latest)
    if isinstance(time, str):
        return ImportIssue(line, f"{who}: {time}")
    return replace(found, value=value, grader=grader, note=note, time=time)


def _which(line: int, values: Mapping[str, str]) -> LabelRow | ImportIssue:
    """The row's example as far as the file says: its id, else its number, else its input and
    output (a row with none of them is a bad row)."""
    raw_id, raw_number = values.get("example_id", ""), values.get("number", "")
    if raw_id:
        example_id = _whole(raw_id)
        if example_id is None:
            return ImportIssue(line, f'the example id is "{raw_id}"; it must be a whole number')
        return LabelRow(line, example_id, 0.0, "")
    if raw_number:
        number = _whole(raw_number)
        if number is None or number < 1:
            why = f'the example number is "{raw_number}"; it must be a whole number from 1'
            return ImportIssue(line, why)
        return LabelRow(line, None, 0.0, "", number=number)
    input, output = values.get("input"), values.get("output")
    if (input is None and output is None) or (not input and not output):
        if "example_id" in values and input is None and output is None:
            return ImportIssue(line, "the example id is empty; it must be a whole number")
        return ImportIssue(line, "the row does not say which example it grades (all empty)")
    return LabelRow(line, None, 0.0, "", input=input, output=output)


def _whole(text: str) -> int | None:
    try:
        number = int(float(text))
    except (ValueError, OverflowError):
        return None
    return number if str(number) == text.removesuffix(".0") else None


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
    dataset_id: int | None = None,
    grader: str = "",
) -> LabelImport:
    """Add the good rows of a label file as labels of the scorer; the bad rows are returned.

    A row without an example id finds its example by number or content
    (:mod:`~scorer_runtime.datasets.label_match`) in the dataset ``dataset_id`` (by content:
    in every dataset not archived, when None); ``grader`` is who graded the rows of a file
    without a grader column. Raises :class:`ImportFailure` (nothing written) when the file is
    unusable as a whole or has no good row.
    """
    get_scorer(session, id=scorer_id)  # a scorer that does not exist is said as such
    scale = scorer_scale(session, scorer_id=scorer_id)
    parsed = parse_labels(text, scale=scale, mapping=mapping, grader=grader)
    if parsed.fatal:
        raise ImportFailure(parsed.issues, source=source)
    good, issues = find_examples(session, rows=parsed.rows, dataset_id=dataset_id)
    issues = sorted([*parsed.issues, *issues], key=lambda i: i.line)
    if not good:
        raise ImportFailure(
            issues or [ImportIssue(1, "the file has no grades to import")], source=source
        )
    new = _new_grades(session, scorer_id=scorer_id, rows=good)
    for row in new:
        add_label(
            session,
            example_id=row.example,
            scorer_id=scorer_id,
            value=row.value,
            labeller=row.grader,
            note=row.note,
            created_at=row.time,
        )
    return LabelImport(len(new), issues, len(good) - len(new), parsed.left_out)


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
    stored = labels_of_examples(session, scorer_id=scorer_id, example_ids={r.example for r in rows})
    timed: set[tuple[_Grade, datetime]] = set()
    latest: dict[int, tuple[datetime, _Grade]] = {}
    for example_id, labels in stored.items():
        timed.update((_label_grade(label), _second(label.created_at)) for label in labels)
        latest[example_id] = (as_utc(labels[0].created_at), _label_grade(labels[0]))
    new = []
    for row in rows:
        grade = _grade(row.example, row.value, row.grader, row.note)
        known = latest.get(row.example)
        if row.time is None:
            if known is not None and known[1] == grade:
                continue
            latest[row.example] = (datetime.now(UTC) + CLOCK_SLACK, grade)  # stored as now
        else:
            if (grade, _second(row.time)) in timed:
                continue
            timed.add((grade, _second(row.time)))
            if known is None or row.time >= known[0]:
                latest[row.example] = (row.time, grade)
        new.append(row)
    return new


def _label_grade(label: LabelInfo) -> _Grade:
    return _grade(label.example_id, label.value, label.labeller, label.note)
