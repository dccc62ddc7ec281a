"""Scorers and their immutable versions: save, find, list, archive, duplicate.

A version is never changed once written. Saving a spec identical (same canonical JSON) to
the scorer's latest version returns that version instead of adding a duplicate; saving an
older spec again (a revert) makes a new version, so "latest" is always what was saved last.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from scorer_runtime.store.canonical import content_hash
from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.tables import (
    RunRecord,
    ScoreRecord,
    ScorerRecord,
    ScorerVersionRecord,
    utc_now,
)


def _spec_name(spec: Mapping[str, Any]) -> str | None:
    value = spec.get("id") or spec.get("name")
    return str(value) if value else None


def save_scorer_version(
    session: Session,
    *,
    spec: Mapping[str, Any],
    name: str | None = None,
    description: str | None = None,
    note: str = "",
) -> ScorerVersionRecord:
    """Save ``spec`` (plain JSON data) as the next version of scorer ``name``.

    ``name`` defaults to the spec's ``id``; the scorer is created on its first save. Returns
    the latest version unchanged when its spec is identical.
    """
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
    latest = latest_version(session, scorer_id=_id(scorer))
    if latest is not None and latest.content_hash == digest:
        return latest
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
    return record


def _id(record: Any) -> int:
    assert record.id is not None, "flush the record before using its id"
    return int(record.id)


def latest_version(session: Session, *, scorer_id: int) -> ScorerVersionRecord | None:
    """The scorer's newest version (None for a scorer with no version)."""
    query = (
        select(ScorerVersionRecord)
        .where(ScorerVersionRecord.scorer_id == scorer_id)
        .order_by(col(ScorerVersionRecord.version).desc())
        .limit(1)
    )
    return session.exec(query).first()


def get_scorer(session: Session, *, name: str | None = None, id: int | None = None) -> ScorerRecord:
    """The scorer with ``name`` or ``id``; raises NotFoundError listing the known names."""
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
) -> ScorerVersionRecord:
    """Version ``version`` of the scorer (the latest when None)."""
    if version is None:
        found = latest_version(session, scorer_id=scorer_id)
    else:
        found = session.exec(
            select(ScorerVersionRecord).where(
                ScorerVersionRecord.scorer_id == scorer_id, ScorerVersionRecord.version == version
            )
        ).first()
    if found is None:
        versions = [str(v.version) for v in list_versions(session, scorer_id=scorer_id)]
        raise not_found("version", version if version is not None else "latest", versions)
    return found


def get_version_by_id(session: Session, *, version_id: int) -> ScorerVersionRecord:
    """A version by its row id."""
    found = session.get(ScorerVersionRecord, version_id)
    if found is None:
        raise not_found("scorer version", version_id)
    return found


def list_versions(session: Session, *, scorer_id: int) -> Sequence[ScorerVersionRecord]:
    """Every version of a scorer, newest first."""
    query = (
        select(ScorerVersionRecord)
        .where(ScorerVersionRecord.scorer_id == scorer_id)
        .order_by(col(ScorerVersionRecord.version).desc())
    )
    return session.exec(query).all()


def list_scorers(session: Session, *, include_archived: bool = False) -> Sequence[ScorerRecord]:
    """Scorers by name (archived ones too when asked)."""
    query = select(ScorerRecord).order_by(col(ScorerRecord.name))
    if not include_archived:
        query = query.where(col(ScorerRecord.archived_at).is_(None))
    return session.exec(query).all()


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


def archive_scorer(session: Session, *, scorer_id: int, archived: bool = True) -> ScorerRecord:
    """Hide a scorer from lists (or bring it back); its versions and scores stay."""
    scorer = get_scorer(session, id=scorer_id)
    scorer.archived_at = utc_now() if archived else None
    scorer.updated_at = utc_now()
    session.add(scorer)
    session.flush()
    return scorer


def duplicate_scorer(
    session: Session, *, scorer_id: int, new_name: str, version: int | None = None
) -> ScorerVersionRecord:
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
