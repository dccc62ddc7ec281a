"""Drafts of scorers being built in the studio: saved on every change, listed, resumed."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from scorer_runtime.store.canonical import jsonable
from scorer_runtime.store.errors import not_found
from scorer_runtime.store.info import info_of
from scorer_runtime.store.tables import DraftRecord, utc_now


@dataclass(frozen=True, slots=True)
class DraftInfo:
    """A saved draft as the store hands it out. ``spec`` is the form's spec-shaped data, maybe
    incomplete (saving a version is what validates it)."""

    id: int
    scorer_id: int | None
    title: str
    spec: dict[str, Any]
    created_at: datetime
    updated_at: datetime


def save_draft(
    session: Session,
    *,
    spec: Mapping[str, Any],
    draft_id: int | None = None,
    scorer_id: int | None = None,
) -> DraftInfo:
    """Create a draft, or overwrite draft ``draft_id`` with the form's current ``spec``
    (a draft deleted meanwhile, e.g. saved as a version in another tab, is created again)."""
    data = jsonable(copy.deepcopy(dict(spec)))
    record = session.get(DraftRecord, draft_id) if draft_id is not None else None
    if record is None:
        record = DraftRecord(spec=data, scorer_id=scorer_id)
    record.spec = data
    record.title = str(data.get("name") or data.get("id") or "")[:300]
    if scorer_id is not None:
        record.scorer_id = scorer_id
    record.updated_at = utc_now()
    session.add(record)
    session.flush()
    return info_of(DraftInfo, record)


def get_draft(session: Session, *, draft_id: int) -> DraftInfo:
    """The draft ``draft_id``; raises NotFoundError."""
    return info_of(DraftInfo, _draft(session, draft_id=draft_id))


def _draft(session: Session, *, draft_id: int) -> DraftRecord:
    found = session.get(DraftRecord, draft_id)
    if found is None:
        raise not_found("draft", draft_id)
    return found


def list_drafts(session: Session, *, limit: int = 20) -> list[DraftInfo]:
    """The most recently changed drafts first."""
    query = select(DraftRecord).order_by(col(DraftRecord.updated_at).desc()).limit(limit)
    return [info_of(DraftInfo, record) for record in session.exec(query).all()]


def delete_draft(session: Session, *, draft_id: int) -> None:
    """Forget a draft (after its version is saved, or when the person discards it)."""
    session.delete(_draft(session, draft_id=draft_id))
    session.flush()
