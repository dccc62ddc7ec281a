"""Saved judge profiles: model, base URL, the key's env-var *name*, and other settings.

A profile never holds a key. ``settings`` is searched (at any depth) for secret-looking
fields and refused if it has one, so a key pasted into a form cannot end up in the database.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from scorer_runtime.names import normal_name
from scorer_runtime.store.canonical import jsonable
from scorer_runtime.store.errors import ConflictError, not_found
from scorer_runtime.store.info import info_of
from scorer_runtime.store.names import checked_new_name
from scorer_runtime.store.tables import (
    JudgeProfileRecord,
    utc_now,
)

_SECRET_KEY = re.compile(r"(^|_)(api_?key|secret|password|token)$", re.IGNORECASE)
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True, slots=True)
class JudgeProfileInfo:
    """A saved judge as the store hands it out: model, base URL, the key's env-var *name*
    and the other settings (never a key)."""

    id: int
    name: str
    model: str
    api_base: str | None
    api_key_env: str | None
    settings: dict[str, Any] | None
    created_at: datetime
    updated_at: datetime


def _secret_paths(value: Any, path: str = "settings") -> list[str]:
    found: list[str] = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            here = f"{path}.{key}"
            if _SECRET_KEY.search(str(key)) and item not in (None, ""):
                found.append(here)
            found.extend(_secret_paths(item, here))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_secret_paths(item, f"{path}[{index}]"))
    return found


def save_judge_profile(
    session: Session,
    *,
    name: str,
    model: str,
    api_base: str | None = None,
    api_key_env: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> JudgeProfileInfo:
    """Create or update the profile ``name``; refuses anything that looks like a secret."""
    if api_key_env is not None and not _ENV_NAME.match(api_key_env):
        raise ConflictError(
            f"api_key_env must be the NAME of an environment variable (like OPENAI_API_KEY), "
            f"not {'a key' if len(api_key_env) > 40 else repr(api_key_env)}"
        )
    clean = jsonable(dict(settings or {}))
    secrets = _secret_paths(clean)
    if secrets:
        raise ConflictError(
            f"judge profile {name!r} would store a secret at {', '.join(secrets)}; "
            "store the name of the environment variable that holds it in api_key_env instead"
        )
    name = normal_name(name)
    record = session.exec(select(JudgeProfileRecord).where(JudgeProfileRecord.name == name)).first()
    if record is None:
        taken = session.exec(select(JudgeProfileRecord.name)).all()
        name = checked_new_name(name, taken, what="judge")
        record = JudgeProfileRecord(name=name, model=model)
    record.model = model
    record.api_base = api_base
    record.api_key_env = api_key_env
    record.settings = clean
    record.updated_at = utc_now()
    session.add(record)
    session.flush()
    return info_of(JudgeProfileInfo, record)


def get_judge_profile(session: Session, *, name: str) -> JudgeProfileInfo:
    """The profile ``name``; raises NotFoundError listing the known profiles."""
    return info_of(JudgeProfileInfo, _profile(session, name=name))


def _profile(session: Session, *, name: str) -> JudgeProfileRecord:
    query = select(JudgeProfileRecord).where(JudgeProfileRecord.name == normal_name(name))
    found = session.exec(query).first()
    if found is None:
        raise not_found("judge profile", name, session.exec(select(JudgeProfileRecord.name)))
    return found


def judge_profile_exists(session: Session, *, name: str) -> bool:
    """Whether a profile is called ``name`` (so creating a new one would overwrite it)."""
    query = select(JudgeProfileRecord.id).where(JudgeProfileRecord.name == normal_name(name))
    return session.exec(query).first() is not None


def list_judge_profiles(session: Session) -> list[JudgeProfileInfo]:
    """Every judge profile, by name."""
    found = session.exec(select(JudgeProfileRecord).order_by(col(JudgeProfileRecord.name))).all()
    return [info_of(JudgeProfileInfo, record) for record in found]


def delete_judge_profile(session: Session, *, name: str) -> None:
    """Delete a profile (scorer versions keep the judge settings they were saved with)."""
    session.delete(_profile(session, name=name))
    session.flush()


def judge_profile_dict(record: JudgeProfileInfo | JudgeProfileRecord) -> dict[str, Any]:
    """The profile as plain data: the settings plus model, api_base and api_key_env."""
    data: dict[str, Any] = dict(record.settings or {})
    data.update(model=record.model, api_base=record.api_base, api_key_env=record.api_key_env)
    return {k: v for k, v in data.items() if v is not None}
