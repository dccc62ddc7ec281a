"""Reads behind browsing results: names by id, and each version's trend.

The names of scorers, versions and datasets are small tables read once (a results table shows
thousands of ids), and so are the titles pickers show (each scorer's display name); the trend
of a version is its mean score per UTC day, one grouped query on the version's index per line
of the chart.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from sqlalchemy import func
from sqlmodel import Session, col, select

from scorer_runtime.store.aggregates import mean_per_day, scored_clauses
from scorer_runtime.store.datasets import ExampleInfo
from scorer_runtime.store.info import info_of
from scorer_runtime.store.lenient_spec import read_stored_spec
from scorer_runtime.store.names import NameBook
from scorer_runtime.store.scores import ScoreFilter, ScoreInfo, get_score
from scorer_runtime.store.tables import (
    ExampleRecord,
    ScoreRecord,
    ScorerRecord,
    ScorerVersionRecord,
)

MAX_TREND_VERSIONS = 8
"""Lines of a trend chart: more versions than this would be unreadable."""


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


def get_score_with_example(
    session: Session, *, score_id: int
) -> tuple[ScoreInfo, ExampleInfo | None]:
    """One score with all its evidence, and the example it scored (None for a trace score or
    an example deleted since): what a drill-down into one result shows. Raises NotFoundError.
    """
    record = get_score(session, score_id=score_id)
    example = session.get(ExampleRecord, record.example_id) if record.example_id else None
    return record, info_of(ExampleInfo, example) if example is not None else None


def scorer_titles(session: Session) -> dict[int, str]:
    """What a picker calls each scorer (archived ones too): its latest version's display name
    (the spec's ``name``), else its stored name. A title two scorers share is followed by the
    stored name, which is unique: ``Politeness (tone-v2)``."""
    scorer_id = col(ScorerVersionRecord.scorer_id)
    newest = (
        select(scorer_id, func.max(ScorerVersionRecord.version).label("v"))
        .group_by(scorer_id)
        .subquery()
    )
    latest = select(ScorerVersionRecord.scorer_id, ScorerVersionRecord.spec).join(
        newest,
        (newest.c.scorer_id == scorer_id) & (newest.c.v == col(ScorerVersionRecord.version)),
    )
    specs = {int(sid): spec for sid, spec in session.exec(latest).all()}
    names = {int(i or 0): n for i, n in session.exec(select(ScorerRecord.id, ScorerRecord.name))}
    titles: dict[int, str] = {}
    for sid, name in names.items():
        spec = read_stored_spec(specs[sid], fallback_id=name)[0] if sid in specs else None
        titles[sid] = ((spec.name if spec else None) or name).strip() or name
    shared = {t for t in titles.values() if list(titles.values()).count(t) > 1}
    return {
        sid: f"{t} ({names[sid]})" if t in shared and t != names[sid] else t
        for sid, t in titles.items()
    }
