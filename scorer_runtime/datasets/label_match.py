"""Which example a row of a grades file is about: by its id, by its number in its dataset, or by
its content (input and output), as a person's spreadsheet holds it.

A spreadsheet rarely has example ids: it has the question, the answer and a grade. So a row
finds its example by, in this order, the ``example_id`` it names, the example's ``number`` in
its dataset (1 for the first, in the order the examples grid lists them), or the ``input``
and ``output`` texts (the whole text, or the shortened one an exported grades file shows;
spaces and line breaks are compared loosely). A row that matches no example, or several, is
reported by its line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from sqlmodel import Session

from scorer_runtime.datasets.issues import ImportIssue
from scorer_runtime.store.datasets import ExampleContent, example_contents, list_datasets
from scorer_runtime.store.labels import existing_example_ids

if TYPE_CHECKING:
    from scorer_runtime.datasets.labels import LabelRow

INPUT_COLUMN_NAMES = ("input", "question", "prompt", "query", "user_input", "request", "user")
"""Column headers people use for an example's input (grades files and example files)."""
OUTPUT_COLUMN_NAMES = (
    "output",
    "answer",
    "response",
    "completion",
    "reply",
    "prediction",
    "actual_output",
    "model_output",
)
"""Column headers people use for the answer being judged (grades files and example files)."""

LABEL_COLUMN_NAMES: dict[str, tuple[str, ...]] = {
    "example_id": ("example_id", "example id", "exampleid"),
    "number": ("number", "#", "no", "no.", "example_number", "example #", "example no"),
    "input": INPUT_COLUMN_NAMES,
    "output": OUTPUT_COLUMN_NAMES,
    "grade": ("grade", "human_grade", "verdict", "rating", "label", "judgement", "judgment"),
    "grade_name": ("grade_name",),
    "note": ("note", "notes", "comment", "comments"),
    "grader": ("grader", "graded_by", "labeller", "labeler", "reviewer", "rater", "annotator"),
    "time": ("time", "graded_at", "timestamp"),
}
"""The column names a grades file's fields are found under without a mapping: the names the
export writes first, then the usual spreadsheet names (compared without case, spaces as _)."""
SUMMARY_CHARS = 200
"""How much of an example's input and output an exported grades file shows."""
FINDERS = ("example_id", "number", "input", "output")
"""The fields that say which example a row is about."""


def summary(value: Any) -> str:
    """An example's input or output as a short text (JSON for structured values)."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def _normal(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def label_columns(header: Sequence[str], mapping: Mapping[str, str]) -> dict[str, str]:
    """The column each field is read from: the one mapped (mapped to "": none), else the one
    named like the field or one of its usual names (:data:`LABEL_COLUMN_NAMES`); a column
    serves one field."""
    columns = {name: column for name, column in mapping.items() if column and column in header}
    taken = set(columns.values())
    by_normal = {_normal(h): h for h in reversed(header) if h}
    for name, names in LABEL_COLUMN_NAMES.items():
        if name in mapping:
            continue
        for candidate in names:
            column = by_normal.get(_normal(candidate))
            if column is not None and column not in taken:
                columns[name] = column
                taken.add(column)
                break
    return columns


def text_of(value: Any) -> str:
    """An example's input or output as the text a spreadsheet shows (JSON for structured
    values; empty for none)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def loose(text: str) -> str:
    """``text`` with every run of spaces and line breaks as one space, trimmed (a spreadsheet
    may change line endings and trailing spaces)."""
    return " ".join(text.split())


def _forms(value: Any) -> set[str]:
    """Every text a cell may hold for ``value``: the whole of it, or the shortened one an
    exported grades file shows."""
    return {loose(text_of(value)), loose(summary(value))}


@dataclass(frozen=True, slots=True)
class Found:
    """The examples a row could be about: none, one, or several (then it is not graded)."""

    ids: list[int]
    names: list[str] = field(default_factory=list)
    """Where each of ``ids`` is, in words ("example 4 of support")."""


@dataclass
class ExampleIndex:
    """The examples a grades file may be about (one dataset's, or every active dataset's),
    indexed by content and by number, to find each row's example in one pass."""

    dataset_names: Mapping[int, str]
    one_dataset: int | None = None
    by_content: dict[tuple[str, str], list[ExampleContent]] = field(default_factory=dict)
    by_input: dict[str, list[ExampleContent]] = field(default_factory=dict)
    by_output: dict[str, list[ExampleContent]] = field(default_factory=dict)
    by_number: dict[int, ExampleContent] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        examples: Iterable[ExampleContent],
        *,
        dataset_names: Mapping[int, str],
        dataset_id: int | None = None,
    ) -> ExampleIndex:
        """The index of ``examples`` (``dataset_id``: they are one dataset's)."""
        index = cls(dataset_names, dataset_id)
        for example in examples:
            if dataset_id is not None:
                index.by_number[example.number] = example
            for one in _forms(example.input):
                index.by_input.setdefault(one, []).append(example)
                for other in _forms(example.output):
                    index.by_content.setdefault((one, other), []).append(example)
            for other in _forms(example.output):
                index.by_output.setdefault(other, []).append(example)
        return index

    def find(
        self, *, number: int | None = None, input: str | None = None, output: str | None = None
    ) -> Found:
        """The examples with this number, or with this input and output (either may be None:
        the file has no such column)."""
        if number is not None:
            found = self.by_number.get(number)
            return self._found([found] if found else [])
        if input is not None and output is not None:
            return self._found(self.by_content.get((loose(input), loose(output)), []))
        if input is not None:
            return self._found(self.by_input.get(loose(input), []))
        return self._found(self.by_output.get(loose(output or ""), []))

    def _found(self, examples: list[ExampleContent]) -> Found:
        unique = {e.id: e for e in examples}.values()
        names = [
            f"example {e.number} of {self.dataset_names.get(e.dataset_id, e.dataset_id)}"
            for e in unique
        ]
        return Found([e.id for e in unique], names)


def several_words(found: Found) -> str:
    """Why a row that matches several examples is not graded, and what to do."""
    shown = ", ".join(found.names[:5]) + (", …" if len(found.names) > 5 else "")
    return (
        f"{len(found.ids)} examples say this ({shown}); add an example_id or number column, "
        "or choose the dataset the grades are for"
    )


def describe(input: str | None, output: str | None, number: int | None) -> str:
    """The example a row names, in words: 'example 5' or 'the example "Where is…" / "It…"'."""
    if number is not None:
        return f"example number {number}"
    shown = [f'"{_short(text)}"' for text in (input, output) if text is not None]
    return "the example " + " / ".join(shown)


def _short(text: str, limit: int = 40) -> str:
    text = loose(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def find_examples(
    session: Session, *, rows: list[LabelRow], dataset_id: int | None = None
) -> tuple[list[LabelRow], list[ImportIssue]]:
    """The rows whose example is found (each with its id), and why the others are left out: an
    id no example has, a number the dataset does not have, a content that matches no example
    or several."""
    known = existing_example_ids(
        session, example_ids={r.example_id for r in rows if r.example_id is not None}
    )
    names = {d.id: d.name for d in list_datasets(session, include_archived=True)}
    index: ExampleIndex | None = None
    good: list[LabelRow] = []
    issues: list[ImportIssue] = []
    for row in rows:
        if row.example_id is not None:
            if row.example_id in known:
                good.append(row)
            else:
                why = f"example {row.example_id} does not exist (it may have been deleted)"
                issues.append(ImportIssue(row.line, why))
            continue
        if row.number is not None and dataset_id is None:
            why = f"{row.who()}: say which dataset the examples' numbers are in"
            issues.append(ImportIssue(row.line, why))
            continue
        if index is None:
            contents = example_contents(session, dataset_id=dataset_id)
            index = ExampleIndex.of(contents, dataset_names=names, dataset_id=dataset_id)
        found = index.find(number=row.number, input=row.input, output=row.output)
        if len(found.ids) == 1:
            good.append(replace(row, example_id=found.ids[0]))
            continue
        where = f"dataset {names.get(dataset_id, dataset_id)}" if dataset_id else "any dataset"
        why = several_words(found) if found.ids else f"no example of {where} says this"
        issues.append(ImportIssue(row.line, f"{row.who()}: {why}"))
    return good, issues
