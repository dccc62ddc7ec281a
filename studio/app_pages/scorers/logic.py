"""The scorers page's words and checks, free of Streamlit (unit-tested on a real SQLite file).

The list itself (search and pages in the database) is
:func:`scorer_runtime.store.views.scorer_list.scorer_page`; here are the names a new scorer may
take, what archiving keeps in words, and each version's line in the list of versions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from scorer_runtime.ids import id_from_name
from scorer_runtime.store import (
    Session,
    free_scorer_name,
    list_versions,
    scorer_counts,
    scorer_name_taken,
)
from studio.words import plural

if TYPE_CHECKING:
    from scorer_runtime.spec import ScorerSpec

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True, slots=True)
class ArchiveImpact:
    """What archiving a scorer keeps: its versions, scores and runs stay in the database."""

    name: str
    versions: int
    scores: int
    runs: int

    def sentence(self) -> str:
        """The confirmation text: what happens, and what is kept."""
        return (
            f"Archiving hides “{self.name}” from the lists. Nothing is deleted: its "
            f"{plural(self.versions, 'version')}, {plural(self.runs, 'run')} and "
            f"{plural(self.scores, 'stored score')} are kept, and you can bring it back later "
            "with “Show archived scorers”."
        )


def archive_impact(session: Session, *, scorer_id: int) -> ArchiveImpact:
    """How many versions, scores and runs a scorer has (all kept when it is archived)."""
    counts = scorer_counts(session, scorer_id=scorer_id)
    return ArchiveImpact(counts.name, counts.versions, counts.scores, counts.runs)


def is_scorer_id(text: str) -> bool:
    """Whether ``text`` can be a spec's id (letters, digits, - _ and ., at most 100)."""
    return len(text) <= 100 and bool(_ID.match(text))


def scorer_name_problem(session: Session, name: str) -> str | None:
    """Why ``name`` cannot name a new scorer or a copy (None when it can).

    The new scorer's spec takes the name as its id, so it must be a valid id.
    """
    name = name.strip()
    if not name:
        return "Give the scorer a name."
    if not is_scorer_id(name):
        return (
            "Use letters, digits, - _ and . only, starting with a letter or digit "
            f"(for example “{id_from_name(name) or 'my-scorer'}”)."
        )
    if scorer_name_taken(session, name=name):
        return f"A scorer named “{name}” already exists; choose another name."
    return None


def copy_name(session: Session, name: str) -> str:
    """A free name for a copy of ``name``: ``name-copy``, then ``name-copy-2``, ..."""
    return free_scorer_name(session, base=id_from_name(f"{name}-copy") or "scorer-copy")


@dataclass(frozen=True, slots=True)
class VersionLine:
    """One version of a scorer, with its spec for comparing."""

    version: int
    created_at: datetime
    note: str
    spec: ScorerSpec
    id: int = 0
    """The version's id in the store."""

    @property
    def data(self) -> dict[str, Any]:
        """The spec as the JSON a file holds (defaults left out): what a comparison reads."""
        from scorer_runtime.spec.export import spec_data

        return spec_data(self.spec)


def scorer_versions(session: Session, *, scorer_id: int) -> list[VersionLine]:
    """Every version of a scorer, newest first (cached by the page)."""
    return [
        VersionLine(v.version, v.created_at, v.note, v.spec, int(v.id or 0))
        for v in list_versions(session, scorer_id=scorer_id)
    ]
