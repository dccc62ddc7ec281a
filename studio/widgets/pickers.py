"""What the pages' pickers list, read once for all of them: scorers by the name people call
them, and datasets with their number of examples (Runs, Review and Trust pick from these)."""

from __future__ import annotations

from dataclasses import dataclass

from scorer_runtime.store import database_url, example_counts, list_datasets, list_scorers
from scorer_runtime.store.views import scorer_titles
from studio import services
from studio.words import plural


@dataclass(frozen=True, slots=True)
class DatasetChoice:
    """A dataset to pick, with its number of examples."""

    id: int
    name: str
    examples: int

    @property
    def label(self) -> str:
        """Its name and size, as a picker shows it: "support (40 examples)"."""
        return f"{self.name} ({plural(self.examples, 'example')})"


def scorer_choices() -> dict[int, str]:
    """Scorer id → what people call it (its display name), of the scorers not archived, in
    the order of that name."""
    return _scorers(database_url())


@services.cached(ttl=30)
def _scorers(url: str) -> dict[int, str]:
    with services.reading() as session:
        titles = scorer_titles(session)
        found = {s.id: titles.get(s.id, s.name) for s in list_scorers(session)}
    return dict(sorted(found.items(), key=lambda item: item[1].casefold()))


def scorer_titles_by_id() -> dict[int, str]:
    """Scorer id → what people call it (its display name), archived and external ones too:
    what a table names the scorer of a stored score by."""
    return _titles(database_url())


@services.cached(ttl=30)
def _titles(url: str) -> dict[int, str]:
    with services.reading() as session:
        return scorer_titles(session)


def dataset_choices() -> list[DatasetChoice]:
    """Datasets that are not archived, by name, with their example counts."""
    return _datasets(database_url())


@services.cached(ttl=30)
def _datasets(url: str) -> list[DatasetChoice]:
    with services.reading() as session:
        counts = example_counts(session)
        return [
            DatasetChoice(d.id, d.name, counts.get(d.id, 0))
            for d in list_datasets(session)
            if d.id is not None
        ]
