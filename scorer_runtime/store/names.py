"""Names by id of scorers, versions and datasets: the one read of them (small tables, read
once; a results table shows thousands of ids, a picker offers the live scorers by name); and
the one check of a new name of a scorer, dataset or judge (:func:`checked_new_name`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sqlmodel import Session, col, select

from scorer_runtime.names import look_alike, name_problem, normal_name
from scorer_runtime.store.errors import ConflictError
from scorer_runtime.store.tables import DatasetRecord, ScorerRecord, ScorerVersionRecord


def checked_new_name(name: str, taken: Iterable[str], *, what: str) -> str:
    """``name`` in NFC, once it can name a new ``what`` (a scorer, a dataset, a judge) beside
    the names ``taken``; :class:`ConflictError` saying why not (a character it must not hold,
    two alphabets mixed, or a name in ``taken`` that reads the same,
    :mod:`scorer_runtime.names`)."""
    name = normal_name(name)
    problem = name_problem(name, what=f"{what}'s name")
    if problem:
        raise ConflictError(problem)
    other = look_alike(name, taken)
    if other is not None:
        raise ConflictError(
            f"the {what}'s name {name!r} reads the same as the {what} {other!r} already saved "
            "(the letters differ only in their form or alphabet); choose a name that looks "
            "different"
        )
    return name


@dataclass(frozen=True, slots=True)
class NameBook:
    """Names of scorers, versions and datasets by id (small tables, read once per change)."""

    scorers: dict[int, str] = field(default_factory=dict)
    """scorer id -> name, in name order"""
    versions: dict[int, tuple[int, int]] = field(default_factory=dict)
    """version id -> (scorer id, version number)"""
    datasets: dict[int, str] = field(default_factory=dict)
    archived_scorers: frozenset[int] = frozenset()
    external_scorers: frozenset[int] = frozenset()
    """Scorers whose scores come from other tools (nothing here runs or exports them)."""

    def live_scorers(self) -> dict[int, str]:
        """The scorers not archived and not external, by id, in name order: what pickers of
        scorers to run or export offer."""
        hidden = self.archived_scorers | self.external_scorers
        return {i: n for i, n in self.scorers.items() if i not in hidden}

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
    scorers = session.exec(
        select(
            ScorerRecord.id, ScorerRecord.name, ScorerRecord.archived_at, ScorerRecord.external_name
        ).order_by(col(ScorerRecord.name))
    )
    scorer_rows = list(scorers.all())
    versions = session.exec(
        select(ScorerVersionRecord.id, ScorerVersionRecord.scorer_id, ScorerVersionRecord.version)
    ).all()
    datasets = session.exec(select(DatasetRecord.id, DatasetRecord.name)).all()
    return NameBook(
        scorers={int(i): str(n) for i, n, _, _ in scorer_rows if i is not None},
        versions={int(i): (int(s), int(v)) for i, s, v in versions if i is not None},
        datasets={int(i): str(n) for i, n in datasets if i is not None},
        archived_scorers=frozenset(int(i) for i, _, a, _ in scorer_rows if i and a is not None),
        external_scorers=frozenset(int(i) for i, _, _, x in scorer_rows if i and x is not None),
    )
