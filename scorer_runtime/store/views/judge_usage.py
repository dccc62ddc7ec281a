"""Reads behind the Judges page: which scorers name each judge profile (what deleting one
would break)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, col, select

from scorer_runtime.store.lenient_spec import read_stored_spec
from scorer_runtime.store.tables import ScorerRecord, ScorerVersionRecord


@dataclass(frozen=True, slots=True)
class ProfileUsage:
    """A scorer (archived or not) with versions naming a judge profile."""

    scorer: str
    versions: tuple[int, ...]
    """The version numbers naming the profile, oldest first."""
    latest: bool
    """Whether the scorer's latest version names it (so its next run needs the profile)."""


def profile_usage_by_name(session: Session) -> dict[str, list[ProfileUsage]]:
    """For every profile name a spec refers to, the scorers that do, by scorer name.

    Deleting a profile breaks the versions naming it, so this says what a deletion affects;
    all specs are read in one statement.
    """
    query = (
        select(ScorerRecord.name, ScorerVersionRecord.version, ScorerVersionRecord.spec)
        .join(ScorerRecord, col(ScorerRecord.id) == col(ScorerVersionRecord.scorer_id))
        .order_by(col(ScorerRecord.name), col(ScorerVersionRecord.version))
    )
    found: dict[str, dict[str, list[int]]] = {}
    latest: dict[str, int] = {}
    for scorer, version, data in session.exec(query).all():
        latest[scorer] = version
        spec, _ = read_stored_spec(data, fallback_id=scorer)
        for name in {ref for ref in spec.judge_refs() if isinstance(ref, str)}:
            found.setdefault(name, {}).setdefault(scorer, []).append(version)
    return {
        name: [
            ProfileUsage(scorer, tuple(versions), versions[-1] == latest[scorer])
            for scorer, versions in scorers.items()
        ]
        for name, scorers in found.items()
    }
