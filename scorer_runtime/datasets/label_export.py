"""Grades out to a CSV file: the latest grade of each graded example, with a summary of its
input and output, in a file that imports back as it is."""

from __future__ import annotations

import csv
from typing import TextIO

from sqlmodel import Session

from scorer_runtime.datasets.label_match import summary
from scorer_runtime.datasets.labels import as_utc, scorer_scale
from scorer_runtime.store.labels import examples_by_id, latest_labels
from scorer_runtime.trust.scale import Scale

EXPORT_COLUMNS = ("example_id", "input", "output", "grade", "grade_name", "note", "grader", "time")
"""The columns of an exported label file; it imports back as it is."""


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
