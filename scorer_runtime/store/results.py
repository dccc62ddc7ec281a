"""Reads behind browsing results: names by id, and each version's trend.

The names of scorers, versions and datasets are small tables read once (a results table shows
thousands of ids); the trend of a version is its mean score per UTC day, one grouped query on
the version's index per line of the chart.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date

from sqlalchemy import func
from sqlmodel import Session, col, select

from scorer_runtime.store.aggregates import mean_per_day, scored_clauses
from scorer_runtime.store.scores import ScoreFilter
from scorer_runtime.store.tables import (
    DatasetRecord,
    ScoreRecord,
    ScorerRecord,
    ScorerVersionRecord,
)

MAX_TREND_VERSIONS = 8
"""Lines of a trend chart: more versions than this would be unreadable."""


@dataclass(frozen=True, slots=True)
class NameBook:
    """Names of scorers, versions and datasets by id (small tables, read once per change)."""

    scorers: dict[int, str] = field(default_factory=dict)
    versions: dict[int, tuple[int, int]] = field(default_factory=dict)
    """version id -> (scorer id, version number)"""
    datasets: dict[int, str] = field(default_factory=dict)
    archived_scorers: frozenset[int] = frozenset()

    def scorer(self, scorer_id: int | None) -> str:
        """A scorer's name ("—" when unknown)."""
        return self.scorers.get(scorer_id, "—") if scorer_id is not None else "—"

    def version(self, version_id: int | None, *, with_scorer: bool = True) -> str:
        """``tone-politeness v2`` (or ``v2`` without the scorer)."""
        if version_id is None or version_id not in self.versions:
            return "—"
        scorer_id, number = self.versions[version_id]
        return f"{self.scorer(scorer_id)} v{number}" if with_scorer else f"v{number}"

    def dataset(self, dataset_id: int | None) -> str:
        """A dataset's name ("—" for scores without a dataset, such as trace scores)."""
        return self.datasets.get(dataset_id, "—") if dataset_id is not None else "—"


def load_names(session: Session) -> NameBook:
    """Every scorer, version and dataset name, archived ones included (their scores remain)."""
    scorers = session.exec(select(ScorerRecord.id, ScorerRecord.name, ScorerRecord.archived_at))
    scorer_rows = list(scorers.all())
    versions = session.exec(
        select(ScorerVersionRecord.id, ScorerVersionRecord.scorer_id, ScorerVersionRecord.version)
    ).all()
    datasets = session.exec(select(DatasetRecord.id, DatasetRecord.name)).all()
    return NameBook(
        scorers={int(i): str(n) for i, n, _ in scorer_rows if i is not None},
        versions={int(i): (int(s), int(v)) for i, s, v in versions if i is not None},
        datasets={int(i): str(n) for i, n in datasets if i is not None},
        archived_scorers=frozenset(int(i) for i, _, a in scorer_rows if i and a is not None),
    )


@dataclass(frozen=True, slots=True)
class TrendPoint:
    """The mean score of one scorer version on one UTC day."""

    version_id: int
    version: str
    """The version's name: ``v2``, or ``tone v2`` when the chart shows several scorers."""
    day: date
    count: int
    mean: float


@dataclass(frozen=True, slots=True)
class Trends:
    """The points of a trend chart, and how many versions were left out of it."""

    points: list[TrendPoint]
    versions_shown: int
    versions_total: int


def version_trends(
    session: Session,
    *,
    filter: ScoreFilter,
    names: NameBook,
    max_versions: int = MAX_TREND_VERSIONS,
) -> Trends:
    """Mean score per UTC day for each version (the versions with most scores, at most
    ``max_versions``); each line is one grouped SQL query on the version's index."""
    version = col(ScoreRecord.scorer_version_id)
    counted = session.exec(
        select(version, func.count())
        .where(*scored_clauses(filter))
        .group_by(version)
        .order_by(func.count().desc(), version.desc())
    ).all()
    shown = [int(v) for v, _ in counted[:max_versions]]
    with_scorer = (
        filter.scorer_id is None or len({names.versions.get(v, (0, 0))[0] for v in shown}) > 1
    )
    points = [
        TrendPoint(v, names.version(v, with_scorer=with_scorer), d.day, d.count, d.mean)
        for v in sorted(shown)
        for d in mean_per_day(session, filter=replace(filter, scorer_version_id=v))
    ]
    return Trends(points, len(shown), len(counted))
