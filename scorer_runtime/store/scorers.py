"""Scorers and their immutable versions: save, find, list, archive, duplicate.

A version is never changed once written. Saving a spec identical (same canonical JSON) to
the scorer's latest version returns that version instead of adding a duplicate; saving an
older spec again (a revert) makes a new version, so "latest" is always what was saved last.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from scorer_runtime.store.canonical import content_hash
from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.info import info_of
from scorer_runtime.store.tables import (
    RunRecord,
    ScoreRecord,
    ScorerRecord,
    ScorerVersionRecord,
    utc_now,
)

if TYPE_CHECKING:
    from scorer_runtime.spec import ScorerSpec


@dataclass(frozen=True, slots=True)
class ScorerInfo:
    """A scorer as the store hands it out: a name owning immutable versions."""

    id: int
    name: str
    description: str
    archived_at: datetime | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class ScorerVersionInfo:
    """One immutable version of a scorer as the store hands it out.

    ``spec`` is the stored JSON (what was saved, kept as it was even when the spec format
    has moved on); :meth:`scorer_spec` is its typed, validated form.
    """

    id: int
    scorer_id: int
    version: int
    spec: dict[str, Any]
    content_hash: str
    note: str
    created_at: datetime

    def scorer_spec(self) -> ScorerSpec:
        """The spec as a validated :class:`~scorer_runtime.spec.ScorerSpec` (raises
        pydantic's ValidationError for a stored spec that is not a valid one)."""
        from scorer_runtime.spec import ScorerSpec

        return ScorerSpec.model_validate(self.spec)


def _spec_name(spec: Mapping[str, Any]) -> str | None:
    value = spec.get("id") or spec.get("name")
    return str(value) if value else None


def save_scorer_version(
    session: Session,
    *,
    spec: ScorerSpec | Mapping[str, Any],
    name: str | None = None,
    description: str | None = None,
    note: str = "",
) -> ScorerVersionInfo:
    """Save ``spec`` as the next version of scorer ``name``.

    A :class:`~scorer_runtime.spec.ScorerSpec` (valid by construction) is stored as the JSON
    a spec file holds (defaults left out); plain data is stored as given. ``name`` defaults to
    the spec's ``id``; the scorer is created on its first save. Returns the latest version
    unchanged when its spec is identical.
    """
    if not isinstance(spec, Mapping):
        from scorer_runtime.spec.export import spec_data

        spec = spec_data(spec)
    scorer_name = name or _spec_name(spec)
    if not scorer_name:
        raise ConflictError("the scorer has no name: give one, or an 'id' in the spec")
    data = copy.deepcopy(dict(spec))
    digest = content_hash(data)
    scorer = session.exec(select(ScorerRecord).where(ScorerRecord.name == scorer_name)).first()
    if scorer is None:
        desc = description if description is not None else str(data.get("description") or "")
        scorer = ScorerRecord(name=scorer_name, description=desc)
        session.add(scorer)
        session.flush()
    latest = _latest_version(session, scorer_id=_id(scorer))
    if latest is not None and latest.content_hash == digest:
        return info_of(ScorerVersionInfo, latest)
    if description is not None:
        scorer.description = description
    scorer.updated_at = utc_now()
    record = ScorerVersionRecord(
        scorer_id=_id(scorer),
        version=(latest.version + 1) if latest else 1,
        spec=data,
        content_hash=digest,
        note=note,
    )
    session.add(record)
    session.flush()
    return info_of(ScorerVersionInfo, record)


def _id(record: Any) -> int:
    assert record.id is not None, "flush the record before using its id"
    return int(record.id)


def latest_version(session: Session, *, scorer_id: int) -> ScorerVersionInfo | None:
    """The scorer's newest version (None for a scorer with no version)."""
    found = _latest_version(session, scorer_id=scorer_id)
    return info_of(ScorerVersionInfo, found) if found is not None else None


def _latest_version(session: Session, *, scorer_id: int) -> ScorerVersionRecord | None:
    query = (
        select(ScorerVersionRecord)
        .where(ScorerVersionRecord.scorer_id == scorer_id)
        .order_by(col(ScorerVersionRecord.version).desc())
        .limit(1)
    )
    return session.exec(query).first()


def get_scorer(session: Session, *, name: str | None = None, id: int | None = None) -> ScorerInfo:
    """The scorer with ``name`` or ``id``; raises NotFoundError listing the known names."""
    return info_of(ScorerInfo, _scorer(session, name=name, id=id))


def _scorer(session: Session, *, name: str | None = None, id: int | None = None) -> ScorerRecord:
    query = select(ScorerRecord)
    query = (
        query.where(ScorerRecord.id == id)
        if id is not None
        else query.where(ScorerRecord.name == name)
    )
    found = session.exec(query).first()
    if found is None:
        known = session.exec(
            select(ScorerRecord.name).where(col(ScorerRecord.archived_at).is_(None))
        )
        raise not_found("scorer", name if id is None else id, known)
    return found


def get_version(
    session: Session, *, scorer_id: int, version: int | None = None
) -> ScorerVersionInfo:
    """Version ``version`` of the scorer (the latest when None)."""
    if version is None:
        found = _latest_version(session, scorer_id=scorer_id)
    else:
        found = session.exec(
            select(ScorerVersionRecord).where(
                ScorerVersionRecord.scorer_id == scorer_id, ScorerVersionRecord.version == version
            )
        ).first()
    if found is None:
        versions = [str(v.version) for v in list_versions(session, scorer_id=scorer_id)]
        raise not_found("version", version if version is not None else "latest", versions)
    return info_of(ScorerVersionInfo, found)


def get_version_by_id(session: Session, *, version_id: int) -> ScorerVersionInfo:
    """A version by its row id."""
    found = session.get(ScorerVersionRecord, version_id)
    if found is None:
        raise not_found("scorer version", version_id)
    return info_of(ScorerVersionInfo, found)


def list_versions(session: Session, *, scorer_id: int) -> list[ScorerVersionInfo]:
    """Every version of a scorer, newest first."""
    query = (
        select(ScorerVersionRecord)
        .where(ScorerVersionRecord.scorer_id == scorer_id)
        .order_by(col(ScorerVersionRecord.version).desc())
    )
    return [info_of(ScorerVersionInfo, found) for found in session.exec(query).all()]


def list_scorers(session: Session, *, include_archived: bool = False) -> list[ScorerInfo]:
    """Scorers by name (archived ones too when asked)."""
    query = select(ScorerRecord).order_by(col(ScorerRecord.name))
    if not include_archived:
        query = query.where(col(ScorerRecord.archived_at).is_(None))
    return [info_of(ScorerInfo, found) for found in session.exec(query).all()]


def scorer_name_taken(session: Session, *, name: str) -> bool:
    """Whether a scorer (archived or not) is already called ``name``: names are unique."""
    return (
        session.exec(select(ScorerRecord.id).where(ScorerRecord.name == name)).first() is not None
    )


def free_scorer_name(session: Session, *, base: str) -> str:
    """``base`` when no scorer has that name, else the first free ``base-2``, ``base-3``, ..."""
    candidate, n = base, 1
    while scorer_name_taken(session, name=candidate):
        n += 1
        candidate = f"{base}-{n}"
    return candidate


@dataclass(frozen=True, slots=True)
class ScorerCounts:
    """How much a scorer holds: what archiving it keeps (nothing is deleted)."""

    name: str
    """The scorer's name (its id as text when there is no such scorer)."""
    versions: int
    scores: int
    runs: int


def scorer_counts(session: Session, *, scorer_id: int) -> ScorerCounts:
    """How many versions, scores and runs the scorer ``scorer_id`` has."""
    scorer = session.get(ScorerRecord, scorer_id)
    name = scorer.name if scorer else str(scorer_id)

    def count(column: Any, owner: Any) -> int:
        return int(session.exec(select(func.count(column)).where(owner == scorer_id)).one())

    return ScorerCounts(
        name=name,
        versions=count(col(ScorerVersionRecord.id), col(ScorerVersionRecord.scorer_id)),
        scores=count(col(ScoreRecord.id), col(ScoreRecord.scorer_id)),
        runs=count(col(RunRecord.id), col(RunRecord.scorer_id)),
    )


def latest_version_numbers(session: Session) -> dict[int, int]:
    """Each scorer's newest version number, by scorer id (scorers without one are absent)."""
    query = select(ScorerVersionRecord.scorer_id, func.max(ScorerVersionRecord.version)).group_by(
        col(ScorerVersionRecord.scorer_id)
    )
    return {int(scorer_id): int(v) for scorer_id, v in session.exec(query).all() if v is not None}


def archive_scorer(session: Session, *, scorer_id: int, archived: bool = True) -> ScorerInfo:
    """Hide a scorer from lists (or bring it back); its versions and scores stay."""
    scorer = _scorer(session, id=scorer_id)
    scorer.archived_at = utc_now() if archived else None
    scorer.updated_at = utc_now()
    session.add(scorer)
    session.flush()
    return info_of(ScorerInfo, scorer)


def duplicate_scorer(
    session: Session, *, scorer_id: int, new_name: str, version: int | None = None
) -> ScorerVersionInfo:
    """A new scorer ``new_name`` whose version 1 is a copy of ``version`` (default: latest).

    The spec's ``id`` is renamed to ``new_name`` so the copy scores under its own name.
    """
    if scorer_name_taken(session, name=new_name):
        raise ConflictError(f"a scorer named {new_name!r} already exists; choose another name")
    source = get_scorer(session, id=scorer_id)
    spec = copy.deepcopy(get_version(session, scorer_id=scorer_id, version=version).spec)
    if "id" in spec:
        spec["id"] = new_name
    return save_scorer_version(
        session,
        spec=spec,
        name=new_name,
        description=source.description,
        note=f"copy of {source.name}",
    )
