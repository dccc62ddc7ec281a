"""The Scorers page's reads and writes: the list and each scorer's versions (cached per
database), what archiving keeps, a copy's name, the judge panel's reads, and the actions
(archive, bring back, copy, use a saved judge, load the demo scorers), each a write through
``services.writing()``, which clears the caches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorer_runtime import saved_scorers
from scorer_runtime.saved_scorers import judge_profiles, use_judge_profile
from scorer_runtime.spec import JudgeSpec, ScorerSpec
from scorer_runtime.store import (
    archive_scorer,
    database_url,
    duplicate_scorer,
    judge_profile_dict,
    latest_version,
    list_judge_profiles,
)
from scorer_runtime.store.views import ScorerPage, scorer_page
from studio import services
from studio.app_pages.scorers.logic import (
    ArchiveImpact,
    VersionLine,
    archive_impact,
    copy_name,
    scorer_name_problem,
    scorer_versions,
)


def page(search: str, number: int, archived: bool) -> ScorerPage:
    """One page of matching scorers (archived ones too when ``archived``)."""
    return _page(database_url(), search, number, archived)


@services.cached(ttl=30)
def _page(url: str, search: str, number: int, archived: bool) -> ScorerPage:
    with services.reading() as session:
        return scorer_page(session, search=search, page=number, include_archived=archived)


def versions(scorer_id: int) -> list[VersionLine]:
    """Every version of a scorer, newest first."""
    return _versions(database_url(), scorer_id)


@services.cached(ttl=30)
def _versions(url: str, scorer_id: int) -> list[VersionLine]:
    with services.reading() as session:
        return scorer_versions(session, scorer_id=scorer_id)


def impact(scorer_id: int) -> ArchiveImpact:
    """What archiving the scorer keeps, read now."""
    with services.reading() as session:
        return archive_impact(session, scorer_id=scorer_id)


def free_copy_name(name: str) -> str:
    """A free name for a copy of the scorer ``name``."""
    with services.reading() as session:
        return copy_name(session, name)


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a new scorer, in words; None when it can."""
    with services.reading() as session:
        return scorer_name_problem(session, name)


@dataclass(frozen=True, slots=True)
class JudgeRead:
    """What the Judge… panel shows: the scorer's latest spec (None: no version yet), the
    saved judges as the compiler reads them, and as spec data by name."""

    spec: ScorerSpec | None
    profiles: dict[str, JudgeSpec]
    saved: dict[str, dict[str, Any]]


def judge_read(scorer_id: int) -> JudgeRead:
    """The Judge… panel's reads, now."""
    with services.reading() as session:
        version = latest_version(session, scorer_id=scorer_id)
        return JudgeRead(
            None if version is None else version.spec,
            judge_profiles(session),
            {r.name: judge_profile_dict(r) for r in list_judge_profiles(session)},
        )


def set_archived(scorer_id: int, archived: bool) -> None:
    """Archive the scorer, or bring it back."""
    with services.writing() as session:
        archive_scorer(session, scorer_id=scorer_id, archived=archived)


def duplicate(scorer_id: int, name: str) -> None:
    """Copy the scorer's latest version under ``name``."""
    with services.writing() as session:
        duplicate_scorer(session, scorer_id=scorer_id, new_name=name)


def use_judge(scorer_id: int, profile: str, *, keep_own: bool) -> int:
    """A new version of the scorer using the saved judge ``profile``; its number."""
    with services.writing() as session:
        return use_judge_profile(
            session, scorer_id=scorer_id, profile=profile, keep_own=keep_own
        ).version


def load_demo_scorers() -> list[str]:
    """Save the demo scorers whose names are free; their names."""
    with services.writing() as session:
        return list(saved_scorers.load_demo(session, parts=["scorers"]).scorers)
