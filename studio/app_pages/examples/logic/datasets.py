"""Datasets for the Examples page: what archiving affects, in words, and numbered pages of
examples as grid rows.

The reads are the store's (``dataset_rows``, ``dataset_usage``, ``numbered_example_page``);
this module words and shapes them for the page.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer_runtime.store import Session
from scorer_runtime.store.views import dataset_usage, numbered_example_page
from studio.app_pages.examples.logic.grid import GridRow, row_of
from studio.words import plural

PAGE_SIZE = 50
"""Examples per page of the grid: enough to scan, few enough to edit comfortably."""


@dataclass(frozen=True, slots=True)
class ArchiveImpact:
    """What archiving a dataset touches: its examples, and the runs and scores made on it."""

    examples: int
    runs: int
    scores: int

    def sentence(self, name: str) -> str:
        """The impact in words, for the confirmation."""
        hides = (
            f"Archiving “{name}” hides it and its {plural(self.examples, 'example')} from "
            "the studio's lists."
        )
        if self.runs or self.scores:
            kept = (
                f" Nothing is deleted: its {plural(self.runs, 'run')} and "
                f"{plural(self.scores, 'score')} stay in the history."
            )
        else:
            kept = " Nothing is deleted, and no run has used it yet."
        return f"{hides}{kept} You can restore it at any time (Settings → Archived datasets)."


def archive_impact(session: Session, *, dataset_id: int) -> ArchiveImpact:
    """How many examples, runs and scores belong to the dataset, ready to be put in words."""
    usage = dataset_usage(session, dataset_id=dataset_id)
    return ArchiveImpact(examples=usage.examples, runs=usage.runs, scores=usage.scores)


@dataclass(frozen=True, slots=True)
class ExamplePage:
    """One page of a dataset's examples, with where it sits in the whole."""

    rows: list[GridRow]
    total: int
    page: int
    pages: int
    first_number: int
    """The 1-based number of the first row on this page (0 when the dataset is empty)."""

    def label(self) -> str:
        """What the page shows, in words: 'Examples 51 to 100 of 1,234' (with a dash)."""
        if not self.rows:
            return "No examples yet"
        last = self.first_number + len(self.rows) - 1
        return f"Examples {self.first_number:,}–{last:,} of {self.total:,}"


def example_page(
    session: Session, *, dataset_id: int, page: int = 1, page_size: int = PAGE_SIZE
) -> ExamplePage:
    """Page ``page`` (1-based, clamped to the pages there are) of a dataset as grid rows,
    read in the database."""
    found = numbered_example_page(session, dataset_id=dataset_id, page=page, page_size=page_size)
    return ExamplePage(
        rows=[row_of(record) for record in found.examples],
        total=found.total,
        page=found.page,
        pages=found.pages,
        first_number=found.first_number,
    )
