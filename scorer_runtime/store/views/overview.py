"""The database at a glance: how much is stored, the latest runs, the key variables named.

What a home page or a status command shows first. Key *values* are never stored, so
:func:`key_name_uses` only says which environment variables saved judges and scorers name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import ColumnElement, func
from sqlmodel import Session, col, select

from scorer_runtime.store.lenient_spec import read_stored_spec
from scorer_runtime.store.runs import people_runs
from scorer_runtime.store.tables import (
    DatasetRecord,
    ExampleRecord,
    JudgeProfileRecord,
    RunRecord,
    ScorerRecord,
    ScorerVersionRecord,
)
from scorer_runtime.store.views.run_lines import RunLine, runs_page

if TYPE_CHECKING:
    from scorer_runtime.spec import ScorerSpec


@dataclass(frozen=True, slots=True)
class Overview:
    """What the database holds: live scorers and datasets, all versions, examples and runs."""

    scorers: int
    versions: int
    datasets: int
    examples: int
    runs: int
    latest_runs: list[RunLine] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        """Nothing to show yet: no scorer and no dataset."""
        return self.scorers == 0 and self.datasets == 0


def _count(session: Session, column: Any, *where: ColumnElement[bool]) -> int:
    return int(session.exec(select(func.count(column)).where(*where)).one())


def read_overview(session: Session, *, runs: int = 5) -> Overview:
    """Counts of scorers, versions, datasets, examples and runs, and the latest ``runs`` runs.

    Archived scorers and datasets (and the examples of archived datasets) are not counted:
    they are hidden from every list; nor are stability checks' repeat runs (they belong to
    their check).
    """
    live_scorer = col(ScorerRecord.archived_at).is_(None) & col(ScorerRecord.external_name).is_(
        None
    )
    live_dataset = col(DatasetRecord.archived_at).is_(None)
    examples = session.exec(
        select(func.count(col(ExampleRecord.id)))
        .join(DatasetRecord, col(DatasetRecord.id) == col(ExampleRecord.dataset_id))
        .where(live_dataset)
    ).one()
    return Overview(
        scorers=_count(session, col(ScorerRecord.id), live_scorer),
        versions=_count(session, col(ScorerVersionRecord.id)),
        datasets=_count(session, col(DatasetRecord.id), live_dataset),
        examples=int(examples),
        runs=_count(session, col(RunRecord.id), people_runs()),
        latest_runs=latest_runs(session, limit=runs),
    )


def latest_runs(session: Session, *, limit: int = 5) -> list[RunLine]:
    """The newest runs with their scorer, version, dataset, status and what their scores say
    (the Runs page's lines: two statements whatever ``limit`` is)."""
    return runs_page(session, limit=limit).lines


@dataclass(frozen=True, slots=True)
class KeyNameUse:
    """A key variable named by a saved judge profile or by a scorer's latest version."""

    env: str
    """The environment variable's name (never its value)."""
    kind: Literal["judge", "scorer"]
    name: str
    """The judge profile's or the scorer's name."""


def key_name_uses(session: Session) -> list[KeyNameUse]:
    """Every key variable named by a judge profile, then by a live scorer's latest version."""
    uses = [
        KeyNameUse(env, "judge", name)
        for name, env in session.exec(
            select(JudgeProfileRecord.name, JudgeProfileRecord.api_key_env)
        ).all()
        if env
    ]
    for scorer_name, spec in _latest_specs(session):
        # A judge given by profile name names its key through the profile, listed above.
        uses += [KeyNameUse(env, "scorer", scorer_name) for env in spec.key_envs()]
    return uses


def _latest_specs(session: Session) -> list[tuple[str, ScorerSpec]]:
    latest = (
        select(ScorerVersionRecord.scorer_id, func.max(ScorerVersionRecord.version).label("v"))
        .group_by(col(ScorerVersionRecord.scorer_id))
        .subquery()
    )
    query = (
        select(ScorerRecord.name, ScorerVersionRecord.spec)
        .join(ScorerVersionRecord, col(ScorerVersionRecord.scorer_id) == col(ScorerRecord.id))
        .join(
            latest,
            (latest.c.scorer_id == col(ScorerVersionRecord.scorer_id))
            & (latest.c.v == col(ScorerVersionRecord.version)),
        )
        .where(col(ScorerRecord.archived_at).is_(None))
    )
    return [
        (str(name), read_stored_spec(data, fallback_id=str(name))[0])
        for name, data in session.exec(query).all()
    ]
