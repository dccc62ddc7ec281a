"""The scorers page's reads and checks, free of Streamlit (unit-tested on a real SQLite file).

The list is searched and paginated in the database: one page of scorers, then three grouped
queries for that page's version counts, latest versions and last runs, whatever the number of
scorers stored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, func, or_
from sqlmodel import Session, col, select

from scorer_runtime.store import (
    RunRecord,
    ScoreRecord,
    ScorerRecord,
    ScorerVersionRecord,
)

DEMO_DATA_DIR = Path(__file__).resolve().parents[1] / "data"
"""The demo scorers and datasets shipped with the studio (``data/scorers``, ``data/datasets``)."""

PAGE_SIZE = 20
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True, slots=True)
class ScorerLine:
    """One scorer as the list shows it."""

    scorer_id: int
    name: str
    description: str
    archived: bool
    versions: int
    latest_version: int | None
    latest_note: str
    latest_at: datetime | None
    agent: bool
    display_name: str = ""
    """The spec's display name (its ``name``), else the scorer's name."""
    last_run_id: int | None = None
    last_run_status: str | None = None
    last_run_mean: float | None = None
    last_run_scored: int = 0


@dataclass(frozen=True, slots=True)
class ScorerPage:
    """A page of the scorer list, and how many scorers match in all."""

    lines: list[ScorerLine] = field(default_factory=list)
    total: int = 0
    page: int = 0
    page_size: int = PAGE_SIZE

    @property
    def pages(self) -> int:
        """How many pages the matching scorers fill (at least one)."""
        return max(1, -(-self.total // self.page_size))


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _matching(search: str, include_archived: bool) -> list[ColumnElement[bool]]:
    clauses: list[ColumnElement[bool]] = []
    if not include_archived:
        clauses.append(col(ScorerRecord.archived_at).is_(None))
    words = search.split()
    for word in words:  # every word must appear in the name or the description
        pattern = _like(word)
        clauses.append(
            or_(
                col(ScorerRecord.name).ilike(pattern, escape="\\"),
                col(ScorerRecord.description).ilike(pattern, escape="\\"),
            )
        )
    return clauses


def scorer_page(
    session: Session,
    *,
    search: str = "",
    page: int = 0,
    page_size: int = PAGE_SIZE,
    include_archived: bool = False,
) -> ScorerPage:
    """The scorers whose name or description contain every word of ``search``, by name."""
    clauses = _matching(search, include_archived)
    total = int(session.exec(select(func.count(col(ScorerRecord.id))).where(*clauses)).one())
    page = max(0, min(page, max(0, -(-total // page_size) - 1)))
    scorers = session.exec(
        select(ScorerRecord)
        .where(*clauses)
        .order_by(col(ScorerRecord.name))
        .offset(page * page_size)
        .limit(page_size)
    ).all()
    ids = [int(s.id) for s in scorers if s.id is not None]
    counts = _version_counts(session, ids)
    latest = _latest_versions(session, ids)
    runs = _last_runs(session, ids)
    lines = [_line(scorer, counts.get(int(scorer.id or 0), 0), latest, runs) for scorer in scorers]
    return ScorerPage(lines, total, page, page_size)


_RunFacts = tuple[int | None, str | None, float | None, int]
"""(run id, status, mean score, scored count) of a scorer's newest run."""


def _line(
    scorer: ScorerRecord,
    versions: int,
    latest: dict[int, ScorerVersionRecord],
    runs: dict[int, _RunFacts],
) -> ScorerLine:
    sid = int(scorer.id or 0)
    version = latest.get(sid)
    run = runs.get(sid, (None, None, None, 0))
    return ScorerLine(
        scorer_id=sid,
        name=scorer.name,
        description=scorer.description,
        archived=scorer.archived_at is not None,
        versions=versions,
        latest_version=version.version if version else None,
        latest_note=version.note if version else "",
        latest_at=version.created_at if version else None,
        agent=bool(version and version.spec.get("type") == "agent"),
        display_name=str((version.spec.get("name") if version else None) or scorer.name),
        last_run_id=run[0],
        last_run_status=run[1],
        last_run_mean=run[2],
        last_run_scored=run[3],
    )


def _version_counts(session: Session, ids: Sequence[int]) -> dict[int, int]:
    scorer_id = col(ScorerVersionRecord.scorer_id)
    query = select(scorer_id, func.count()).where(scorer_id.in_(ids)).group_by(scorer_id)
    return {int(s): int(n) for s, n in session.exec(query).all()}


def _latest_versions(session: Session, ids: Sequence[int]) -> dict[int, ScorerVersionRecord]:
    scorer_id = col(ScorerVersionRecord.scorer_id)
    newest = (
        select(scorer_id, func.max(ScorerVersionRecord.version).label("v"))
        .where(scorer_id.in_(ids))
        .group_by(scorer_id)
        .subquery()
    )
    query = select(ScorerVersionRecord).join(
        newest,
        (newest.c.scorer_id == scorer_id) & (newest.c.v == col(ScorerVersionRecord.version)),
    )
    return {v.scorer_id: v for v in session.exec(query).all()}


def _last_runs(session: Session, ids: Sequence[int]) -> dict[int, _RunFacts]:
    """Per scorer: (run id, status, mean score, scored count) of its newest run."""
    scorer_id = col(RunRecord.scorer_id)
    newest = session.exec(
        select(scorer_id, func.max(RunRecord.id)).where(scorer_id.in_(ids)).group_by(scorer_id)
    ).all()
    run_ids = {int(r): int(s) for s, r in newest if r is not None}
    if not run_ids:
        return {}
    statuses = dict(
        session.exec(
            select(RunRecord.id, RunRecord.status).where(col(RunRecord.id).in_(run_ids))
        ).all()
    )
    run_id = col(ScoreRecord.run_id)
    means = {
        int(r or 0): (float(m) if m is not None else None, int(n))
        for r, m, n in session.exec(
            select(run_id, func.avg(ScoreRecord.score), func.count(col(ScoreRecord.score)))
            .where(run_id.in_(run_ids), col(ScoreRecord.outcome) == "scored")
            .group_by(run_id)
        ).all()
    }
    return {
        scorer: (run, str(statuses[run]), *means.get(run, (None, 0)))
        for run, scorer in run_ids.items()
    }


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
            f"{_n(self.versions, 'version')}, {_n(self.runs, 'run')} and "
            f"{_n(self.scores, 'stored score')} are kept, and you can bring it back later "
            "with “Show archived scorers”."
        )


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def archive_impact(session: Session, *, scorer_id: int) -> ArchiveImpact:
    """How many versions, scores and runs a scorer has (all kept when it is archived)."""
    scorer = session.get(ScorerRecord, scorer_id)
    name = scorer.name if scorer else str(scorer_id)

    def count(column: Any, owner: Any) -> int:
        return int(session.exec(select(func.count(column)).where(owner == scorer_id)).one())

    return ArchiveImpact(
        name=name,
        versions=count(col(ScorerVersionRecord.id), col(ScorerVersionRecord.scorer_id)),
        scores=count(col(ScoreRecord.id), col(ScoreRecord.scorer_id)),
        runs=count(col(RunRecord.id), col(RunRecord.scorer_id)),
    )


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
            f"(for example “{suggest_id(name) or 'my-scorer'}”)."
        )
    taken = session.exec(select(ScorerRecord.id).where(ScorerRecord.name == name)).first()
    if taken is not None:
        return f"A scorer named “{name}” already exists; choose another name."
    return None


def suggest_id(text: str) -> str:
    """``text`` made into a valid scorer id: "Tone check (v2)" -> "tone-check-v2"."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", text.strip().lower()).strip("-._")
    return slug[:100]


def copy_name(session: Session, name: str) -> str:
    """A free name for a copy of ``name``: ``name-copy``, then ``name-copy-2``, ..."""
    base = suggest_id(f"{name}-copy") or "scorer-copy"
    candidate, n = base, 1
    while session.exec(select(ScorerRecord.id).where(ScorerRecord.name == candidate)).first():
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def load_demo_scorers(session: Session, *, data_dir: Path = DEMO_DATA_DIR) -> list[str]:
    """Save the demo scorers whose names are free; returns the names saved.

    Unlike seeding, this works when the database already holds datasets or other scorers,
    and never adds a version to a scorer that exists (it may have been changed on purpose).
    """
    from scorer_runtime.batch import import_spec_file

    taken = set(session.exec(select(ScorerRecord.name)).all())
    saved = []
    for path in sorted((data_dir / "scorers").glob("*.json")):
        name = json.loads(path.read_text(encoding="utf-8")).get("id")
        if name in taken:
            continue
        import_spec_file(session, path=path, note="demo scorer")
        saved.append(str(name))
    return saved


@dataclass(frozen=True, slots=True)
class VersionLine:
    """One version of a scorer, with its spec for comparing."""

    version: int
    created_at: datetime
    note: str
    spec: dict[str, Any]


def scorer_versions(session: Session, *, scorer_id: int) -> list[VersionLine]:
    """Every version of a scorer, newest first."""
    query = (
        select(ScorerVersionRecord)
        .where(ScorerVersionRecord.scorer_id == scorer_id)
        .order_by(col(ScorerVersionRecord.version).desc())
    )
    return [
        VersionLine(v.version, v.created_at, v.note, dict(v.spec))
        for v in session.exec(query).all()
    ]
