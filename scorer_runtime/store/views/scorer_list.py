"""The scorer list: scorers searched and paginated in the database, each with its numbers.

One page of scorers costs a fixed number of statements whatever the number of scorers
stored: a count, the page itself, then grouped queries for that page's version counts,
latest versions and last runs (the scorers page and the ``scorer-studio`` command share it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

from sqlalchemy import ColumnElement, func, or_
from sqlmodel import Session, col, select

from scorer_runtime.store.lenient_spec import read_stored_spec
from scorer_runtime.store.runs import people_runs
from scorer_runtime.store.tables import RunRecord, ScoreRecord, ScorerRecord, ScorerVersionRecord
from scorer_runtime.types import RunStatus

SCORER_PAGE_SIZE = 20
"""How many scorers one page of the list holds unless asked otherwise."""


@dataclass(frozen=True, slots=True)
class ScorerLine:
    """One scorer as the list shows it: its latest version and its newest run."""

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
    last_run_status: RunStatus | None = None
    last_run_mean: float | None = None
    last_run_scored: int = 0


@dataclass(frozen=True, slots=True)
class ScorerPage:
    """A page of the scorer list, and how many scorers match in all."""

    lines: list[ScorerLine] = field(default_factory=list)
    total: int = 0
    page: int = 0
    page_size: int = SCORER_PAGE_SIZE

    @property
    def pages(self) -> int:
        """How many pages the matching scorers fill (at least one)."""
        return max(1, -(-self.total // self.page_size))


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _matching(search: str, include_archived: bool) -> list[ColumnElement[bool]]:
    # External scorers (another tool's verdicts) have nothing to build or run: not listed.
    clauses: list[ColumnElement[bool]] = [col(ScorerRecord.external_name).is_(None)]
    if not include_archived:
        clauses.append(col(ScorerRecord.archived_at).is_(None))
    for word in search.split():  # every word must appear in the name or the description
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
    page_size: int = SCORER_PAGE_SIZE,
    include_archived: bool = False,
) -> ScorerPage:
    """The scorers whose name or description contain every word of ``search``, by name.

    ``%`` and ``_`` in the search are literal characters, not wildcards; a page number past
    the end gives the last page.
    """
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


_RunFacts = tuple[int | None, RunStatus | None, float | None, int]
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
    spec = read_stored_spec(version.spec, fallback_id=scorer.name)[0] if version else None
    return ScorerLine(
        scorer_id=sid,
        name=scorer.name,
        description=scorer.description,
        archived=scorer.archived_at is not None,
        versions=versions,
        latest_version=version.version if version else None,
        latest_note=version.note if version else "",
        latest_at=version.created_at if version else None,
        agent=spec is not None and spec.type == "agent",
        display_name=(spec.name if spec else None) or scorer.name,
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
    """Per scorer: (run id, status, mean score, scored count) of its newest run of a dataset
    (a stability check's repeat scores a sample only: it is not the scorer's last run)."""
    scorer_id = col(RunRecord.scorer_id)
    newest = session.exec(
        select(scorer_id, func.max(RunRecord.id))
        .where(scorer_id.in_(ids), people_runs())
        .group_by(scorer_id)
    ).all()
    run_ids = {int(r): int(s) for s, r in newest if r is not None}
    if not run_ids:
        return {}
    # The column holds RunStatus values; select() widens a Literal column type to str.
    statuses = cast(
        "dict[int, RunStatus]",
        dict(
            session.exec(
                select(RunRecord.id, RunRecord.status).where(col(RunRecord.id).in_(run_ids))
            ).all()
        ),
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
        scorer: (run, statuses[run], *means.get(run, (None, 0))) for run, scorer in run_ids.items()
    }
