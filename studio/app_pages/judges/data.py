"""The Judges page's reads (cached, keyed by the database URL) and writes (a profile saved or
deleted, through ``services.writing()``, which clears the caches)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from scorer_runtime.store import (
    JudgeProfileInfo,
    database_url,
    delete_judge_profile,
    judge_profile_dict,
    list_judge_profiles,
)
from studio import services
from studio.app_pages.judges.logic import (
    JudgeForm,
    ProfileUse,
    form_of_profile,
    profile_uses_by_name,
    save_profile,
)


@dataclass(frozen=True, slots=True)
class Profile:
    """A saved judge profile as plain data."""

    name: str
    data: dict[str, Any]
    """The profile's settings with model, api_base and api_key_env (``judge_profile_dict``)."""
    uses: list[ProfileUse]

    def form(self) -> JudgeForm:
        """The judge form filled in with this profile."""
        return form_of_profile(self.name, self.data)


def profiles() -> list[Profile]:
    """Every judge profile by name, with the scorers that name it."""
    return _profiles(database_url())


@st.cache_data(show_spinner=False)
def _profiles(url: str) -> list[Profile]:
    with services.reading() as session:
        uses = profile_uses_by_name(session)
        return [
            Profile(record.name, judge_profile_dict(record), uses.get(record.name, []))
            for record in list_judge_profiles(session)
        ]


def save(form: JudgeForm, *, new: bool) -> JudgeProfileInfo:
    """Save the form as a judge profile (JudgeFormError or StoreError, in words, otherwise)."""
    with services.writing() as session:
        return save_profile(session, form, new=new)


def delete(name: str) -> None:
    """Delete the judge profile ``name``."""
    with services.writing() as session:
        delete_judge_profile(session, name=name)
