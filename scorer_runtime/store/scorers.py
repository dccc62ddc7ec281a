"""Scorers and their immutable versions: save, find, list, archive, duplicate.

A version is never changed once written. Saving a spec identical (same canonical JSON) to
the scorer's latest version returns that version instead of adding a duplicate; saving an
older spec again (a revert) makes a new version, so "latest" is always what was saved last.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from scorer_runtime.names import normal_name
from scorer_runtime.store.canonical import content_hash
from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.info import info_of
from scorer_runtime.store.lenient_spec import read_stored_spec, stored_spec_data
from scorer_runtime.store.names import checked_new_name
from scorer_runtime.store.tables import (
    RunRecord,
    ScoreRecord,
    ScorerRecord,
    ScorerVersionRecord,
    utc_now,
)

if TYPE_CHECKING:
    from scorer_runtime.spec import ScorerSpec, SpecProblem


@dataclass(frozen=True, slots=True)
class ScorerInfo:
    """A scorer as the store hands it out: a name owning immutable versions."""

    id: int
    name: str
    description: str
    archived_at: datetime | None
    created_at: datetime
    updated_at: datetime
    external_name: str | None = None
    """Set for an external scorer: the evaluation name another tool sends scores under."""


@dataclass(frozen=True, slots=True)
class ScorerVersionInfo:
    """One immutable version of a scorer as the store hands it out.

    ``spec`` is the typed spec that was saved. A row that no longer validates (saved before
    specs were checked on save, or before the format moved on) still reads: ``spec`` is then
    what could be read of it and ``problems`` says why it fell back; such a version cannot
    be compiled or run (see :mod:`scorer_runtime.store.lenient_spec`).
    """

    id: int
    scorer_id: int
    version: int
    spec: ScorerSpec
    content_hash: str
    note: str
    created_at: datetime
    problems: tuple[SpecProblem, ...] = ()
    """Why the stored spec does not validate; ``()`` for every version saved as a spec."""


def version_info(session: Session, record: ScorerVersionRecord) -> ScorerVersionInfo:
    """The version a row holds, its stored JSON read back as a spec (leniently, for old rows)."""
    assert record.id is not None, "flush the record before handing it out"
    spec, problems = read_stored_spec(record.spec, fallback_id=_scorer_name(session, record))
    return ScorerVersionInfo(
        id=record.id,
        scorer_id=record.scorer_id,
        version=record.version,
        spec=spec,
        content_hash=record.content_hash,
        note=record.note,
        created_at=record.created_at,
        problems=problems,
    )


def _scorer_name(session: Session, record: ScorerVersionRecord) -> str:
    scorer = session.get(ScorerRecord, record.scorer_id)
    return scorer.name if scorer is not None else f"scorer-{record.scorer_id}"


def save_scorer_version(
    session: Session,
    *,
    spec: ScorerSpec,
    name: str | None = None,
    description: str | None = None,
    note: str = "",
) -> ScorerVersionInfo:
    """Save ``spec`` as the next version of scorer ``name``.

    Only a :class:`~scorer_runtime.spec.ScorerSpec` is saved (valid by construction): a
    caller holding data checks it first with :func:`~scorer_runtime.spec.load_spec`, which
    reports every problem at once. It is stored with exactly the values it was written with
    (:func:`~scorer_runtime.store.lenient_spec.stored_spec_data`). ``name`` defaults to the
    spec's ``id``; the scorer is created on its first save.
    Returns the latest version unchanged when its spec is identical.
    """
    from scorer_runtime.spec import ScorerSpec

    if not isinstance(spec, ScorerSpec):
        raise TypeError(
            f"save_scorer_version takes a ScorerSpec, not {type(spec).__name__}: "
            "check plain data with scorer_runtime.spec.load_spec first"
        )
    scorer_name = normal_name(name or spec.id)
    data = stored_spec_data(spec)
    digest = content_hash(data)
    scorer = session.exec(select(ScorerRecord).where(ScorerRecord.name == scorer_name)).first()
    if scorer is None:
        taken = session.exec(select(ScorerRecord.name)).all()
        scorer_name = checked_new_name(scorer_name, taken, what="scorer")
        desc = description if description is not None else spec.description
        scorer = ScorerRecord(name=scorer_name, description=desc)
        session.add(scorer)
        session.flush()
    latest = _latest_version(session, scorer_id=_id(scorer))
    if latest is not None and latest.content_hash == digest:
        return version_info(session, latest)
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
    return version_info(session, record)


def _id(record: Any) -> int:
    assert record.id is not None, "flush the record before using its id"
    return int(record.id)


def latest_version(session: Session, *, scorer_id: int) -> ScorerVersionInfo | None:
    """The scorer's newest version (None for a scorer with no version)."""
    found = _latest_version(session, scorer_id=scorer_id)
    return version_info(session, found) if found is not None else None


def version_or_latest(session: Session, *, scorer_id: int, version_id: int | None) -> int | None:
    """``version_id``, or when None the id of the scorer's newest version (None for a scorer
    with no version)."""
    if version_id is not None:
        return version_id
    found = _latest_version(session, scorer_id=scorer_id)
    return None if found is None else found.id


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
        else query.where(ScorerRecord.name == normal_name(name or ""))
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
    return version_info(session, found)


def get_version_by_id(session: Session, *, version_id: int) -> ScorerVersionInfo:
    """A version by its row id."""
    found = session.get(ScorerVersionRecord, version_id)
    if found is None:
        raise not_found("scorer version", version_id)
    return version_info(session, found)


def list_versions(session: Session, *, scorer_id: int) -> list[ScorerVersionInfo]:
    """Every version of a scorer, newest first."""
    query = (
        select(ScorerVersionRecord)
        .where(ScorerVersionRecord.scorer_id == scorer_id)
        .order_by(col(ScorerVersionRecord.version).desc())
    )
    return [version_info(session, found) for found in session.exec(query).all()]


def list_scorers(
    session: Session, *, include_archived: bool = False, include_external: bool = False
) -> list[ScorerInfo]:
    """Scorers by name (archived ones too when asked; external ones, whose scores come from
    other tools and which nothing here can run, only when asked)."""
    query = select(ScorerRecord).order_by(col(ScorerRecord.name))
    if not include_external:
        query = query.where(col(ScorerRecord.external_name).is_(None))
    if not include_archived:
        query = query.where(col(ScorerRecord.archived_at).is_(None))
    return [info_of(ScorerInfo, found) for found in session.exec(query).all()]


def scorer_name_taken(session: Session, *, name: str) -> bool:
    """Whether a scorer (archived or not) is already called ``name``: names are unique."""
    query = select(ScorerRecord.id).where(ScorerRecord.name == normal_name(name))
    return session.exec(query).first() is not None


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
    new_name = normal_name(new_name)
    if scorer_name_taken(session, name=new_name):
        raise ConflictError(f"a scorer named {new_name!r} already exists; choose another name")
    checked_new_name(new_name, session.exec(select(ScorerRecord.name)).all(), what="scorer")
    source = get_scorer(session, id=scorer_id)
    copied = get_version(session, scorer_id=scorer_id, version=version)
    if copied.problems:
        raise ConflictError(f"version {copied.version} of {source.name!r} is not a valid spec")
    return save_scorer_version(
        session,
        spec=_renamed(copied.spec, new_name),
        name=new_name,
        description=source.description,
        note=f"copy of {source.name}",
    )


def _renamed(spec: ScorerSpec, new_id: str) -> ScorerSpec:
    from pydantic import ValidationError

    from scorer_runtime.spec import ScorerSpec

    try:
        return ScorerSpec.model_validate(
            {**spec.model_dump(mode="json", by_alias=True, exclude_unset=True), "id": new_id}
        )
    except ValidationError:
        raise ConflictError(
            f"{new_id!r} cannot name a scorer: use letters, digits, -, _ and ."
        ) from None
