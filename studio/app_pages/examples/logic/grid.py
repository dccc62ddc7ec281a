"""The examples grid: examples as text cells, and saving a page's edits all or nothing.

Cells use the same text form as a CSV export (``format_cell``/``parse_cell`` of the batch
package), so what a person types in the grid means what it would mean in an imported file:
text stays text, ``{...}``/``[...]`` is JSON, ``""`` is an empty answer. Tags read as
"billing, urgent".
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorer_runtime.datasets.cells import CellError, format_cell, parse_cell
from scorer_runtime.store import (
    EXAMPLE_FIELDS,
    ExampleData,
    ExampleInfo,
    Session,
    add_examples,
    delete_example,
    update_example,
)
from scorer_runtime.store.views import example_score_counts
from studio.words import plural

COLUMN_LABELS: dict[str, str] = {
    "input": "Input",
    "output": "Output",
    "ground_truth": "Ground truth",
    "request_context": "Request context",
    "tags": "Tags",
}
COLUMN_HELP: dict[str, str] = {
    "input": "What the user asked or sent (text, or JSON for structured input).",
    "output": 'The answer to score. Required; write "" for an empty answer.',
    "ground_truth": "The expected answer, if you have one. Optional.",
    "request_context": 'Extra facts for the scorer as a JSON object, e.g. {"user": "ann"}.',
    "tags": "Words to group examples by, separated by commas: billing, urgent.",
}
ROW_HEIGHT_PX = 35
"""The height of one grid row (and of its header) as Streamlit draws it."""
MIN_VISIBLE_ROWS = 5
"""The grid never shows fewer rows than this, even for an empty dataset."""
SPARE_ROWS = 3
"""Empty space below the last row, so a new row appears in view."""
MAX_VISIBLE_ROWS = 15
TEXT_COLUMN_WIDTH_PX = 280
"""The width of the Input, Output and Ground truth columns: the three fit side by side in
the page's width, so the expected answer is in view next to the answer."""
"""Beyond this many rows the grid scrolls inside itself."""
_EMPTY_OUTPUT = (
    "the output is empty: every example needs the answer to score. "
    'Write the answer, or "" for an empty answer'
)


@dataclass(frozen=True, slots=True)
class GridRow:
    """One example as the grid shows it: its id and one text cell per field."""

    id: int
    cells: dict[str, str]


def grid_height(rows: int) -> int:
    """The grid's height in pixels for ``rows`` stored rows: at least five rows, growing with
    the data, with room for new rows below the last one.

    It depends only on the stored rows (never on rows being added): the editor's identity
    includes its height, and a new identity would throw away the edits not yet saved.
    """
    visible = min(max(MIN_VISIBLE_ROWS, rows + SPARE_ROWS), MAX_VISIBLE_ROWS)
    return ROW_HEIGHT_PX * (visible + 1) + 3  # the header, and the borders


def cell_text(name: str, value: Any) -> str:
    """A field's value as the text of its grid cell."""
    if name == "tags" and isinstance(value, list):
        return ", ".join(str(tag) for tag in value)
    return format_cell(value)


def read_cell(name: str, text: Any) -> Any:
    """A grid cell's text as the field's value (None when empty); raises CellError."""
    if text is None or (isinstance(text, float) and text != text):  # NaN: an untouched new cell
        return None
    return parse_cell(name, str(text))


def row_of(record: ExampleInfo) -> GridRow:
    """The grid row of a stored example."""
    return GridRow(
        id=int(record.id or 0),
        cells={name: cell_text(name, getattr(record, name)) for name in EXAMPLE_FIELDS},
    )


@dataclass(slots=True)
class GridChanges:
    """What a person changed on one page: cells of existing rows, new rows, deleted rows."""

    updates: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Example id -> {field: new cell text}."""
    added: list[dict[str, Any]] = field(default_factory=list)
    deleted: list[int] = field(default_factory=list)
    """Example ids."""

    @property
    def empty(self) -> bool:
        """Whether there is nothing to save."""
        return not (self.updates or self.added or self.deleted)

    def digest(self) -> str:
        """A fingerprint of these changes (to recognise the same changes saved twice)."""
        text = json.dumps(
            [sorted(self.updates.items()), self.added, sorted(self.deleted)],
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def summary(self) -> str:
        """'2 changed, 1 new, 1 deleted' (for the save button's caption)."""
        parts = [
            f"{len(self.updates)} changed" if self.updates else "",
            f"{len(self.added)} new" if self.added else "",
            f"{len(self.deleted)} deleted" if self.deleted else "",
        ]
        return ", ".join(p for p in parts if p) or "no changes"


def changes_from_editor(rows: Sequence[GridRow], state: Mapping[str, Any] | None) -> GridChanges:
    """The changes held in a data editor's edit state (``edited_rows``, ``added_rows``,
    ``deleted_rows``, rows by position on the page) for the page's ``rows``."""
    state = state or {}
    changes = GridChanges()
    for position, cells in (state.get("edited_rows") or {}).items():
        index = int(position)
        if 0 <= index < len(rows):
            edited = {k: v for k, v in dict(cells).items() if k in EXAMPLE_FIELDS}
            if any(rows[index].cells.get(k, "") != (v or "") for k, v in edited.items()):
                changes.updates[rows[index].id] = edited
    for cells in state.get("added_rows") or []:
        added = {k: v for k, v in dict(cells).items() if k in EXAMPLE_FIELDS}
        if any(v not in (None, "") for v in added.values()):
            changes.added.append(added)
    for position in state.get("deleted_rows") or []:
        index = int(position)
        if 0 <= index < len(rows):
            changes.deleted.append(rows[index].id)
    changes.updates = {k: v for k, v in changes.updates.items() if k not in changes.deleted}
    return changes


@dataclass(frozen=True, slots=True)
class GridProblem:
    """A cell or row that cannot be saved, and why."""

    row: str
    column: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.row}, {COLUMN_LABELS[self.column]}" if self.column else self.row
        return f"{where}: {self.message}"


class GridSaveError(ValueError):
    """Edits that cannot be saved; nothing was written. ``problems`` lists each one."""

    def __init__(self, problems: Sequence[GridProblem]) -> None:
        self.problems = list(problems)
        listed = "; ".join(str(p) for p in self.problems[:10])
        super().__init__(f"{plural(len(self.problems), 'problem')}, nothing was saved: {listed}")


@dataclass(frozen=True, slots=True)
class GridSaveResult:
    """How many examples a save changed, added and deleted."""

    updated: int
    added: int
    deleted: int

    def sentence(self) -> str:
        """'Saved: 2 changed, 1 added, 1 deleted.'"""
        parts = [f"{self.updated} changed", f"{self.added} added", f"{self.deleted} deleted"]
        return "Saved: " + ", ".join(p for p in parts if not p.startswith("0 ")) + "."


def _parse_cells(
    cells: Mapping[str, Any], row: str, problems: list[GridProblem], *, new: bool
) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, text in cells.items():
        try:
            values[name] = read_cell(name, text)
        except CellError as e:
            problems.append(GridProblem(row, name, str(e)))
            continue
        if name == "output" and values[name] is None:
            problems.append(GridProblem(row, name, _EMPTY_OUTPUT))
    if new and "output" not in cells:
        problems.append(GridProblem(row, "output", _EMPTY_OUTPUT))
    return values


def save_changes(
    session: Session,
    *,
    dataset_id: int,
    rows: Sequence[GridRow],
    changes: GridChanges,
    first_number: int = 1,
) -> GridSaveResult:
    """Write a page's changes; raises GridSaveError listing every problem, having written
    nothing (the caller's session rolls back). Rows are named by their number in the
    dataset (``first_number`` is the number of the page's first row)."""
    numbers = {row.id: first_number + i for i, row in enumerate(rows)}
    problems: list[GridProblem] = []
    updates = {
        example_id: _parse_cells(cells, _row_name(numbers, example_id), problems, new=False)
        for example_id, cells in changes.updates.items()
    }
    added = [
        _parse_cells(cells, f"new row {i}", problems, new=True)
        for i, cells in enumerate(changes.added, start=1)
    ]
    problems += _undeletable(session, changes.deleted, numbers)
    if problems:
        raise GridSaveError(problems)
    for example_id, values in updates.items():
        update_example(session, example_id=example_id, changes=values)
    for example_id in changes.deleted:
        delete_example(session, example_id=example_id)
    add_examples(session, dataset_id=dataset_id, examples=[ExampleData(**v) for v in added])
    return GridSaveResult(len(updates), len(added), len(changes.deleted))


def _row_name(numbers: Mapping[int, int], example_id: int) -> str:
    number = numbers.get(example_id)
    return f"row {number}" if number is not None else f"example #{example_id}"


def _undeletable(
    session: Session, example_ids: Sequence[int], numbers: Mapping[int, int]
) -> list[GridProblem]:
    counts = example_score_counts(session, example_ids=example_ids)
    return [
        GridProblem(
            _row_name(numbers, example_id),
            None,
            f"it has {plural(count, 'stored score')}, so it cannot be deleted "
            "(the scores point at it). Keep it, or archive the dataset and import a new one",
        )
        for example_id, count in counts.items()
    ]
