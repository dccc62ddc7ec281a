"""The Export page's reads and writes: the scorers and versions to pick, a version exported
(cached per database), and for an imported file the judge profiles it is checked against,
whether a name is free, whether it repeats a stored version, and saving it."""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from scorer_runtime.spec import ScorerSpec
from scorer_runtime.store import database_url
from studio import services
from studio.app_pages.export.logic import (
    MASTRA_PROBLEM,
    ExportFile,
    ExportFormat,
    ImportCheck,
    ImportMode,
    ImportProblem,
    RunGuide,
    SavedImport,
    check_import,
    export_file,
    path_words,
    run_guide,
    same_version,
    save_import,
)
from studio.app_pages.scorers.logic import scorer_name_problem


@dataclass(frozen=True, slots=True)
class VersionChoice:
    """A version in the picker."""

    version_id: int
    version: int
    note: str
    saved: str


@dataclass(frozen=True, slots=True)
class Exported:
    """An export, or the problems that prevent it."""

    file: ExportFile | None = None
    guide: RunGuide | None = None
    problems: list[ImportProblem] = field(default_factory=list)


def scorers() -> dict[int, str]:
    """Live scorers by id, in name order (their stored names: what an imported file names)."""
    return _scorers(database_url())


@services.cached(ttl=30)
def _scorers(url: str) -> dict[int, str]:
    """Live scorers by id, in name order (their stored names: what an imported file names)."""
    from scorer_runtime.store import load_names

    with services.reading() as session:
        return load_names(session).live_scorers()


def titles() -> dict[int, str]:
    """Live scorers by id, by what people call them (their display names), in that order."""
    return _titles(database_url())


@services.cached(ttl=30)
def _titles(url: str) -> dict[int, str]:
    """Live scorers by id, by what people call them (their display names), in that order."""
    from scorer_runtime.store.views import scorer_titles

    with services.reading() as session:
        titles = scorer_titles(session)
    live = _scorers(url)
    named = {i: titles.get(i, name) for i, name in live.items()}
    return dict(sorted(named.items(), key=lambda kv: kv[1].casefold()))


def versions(scorer_id: int) -> list[VersionChoice]:
    """A scorer's versions, newest first."""
    return _versions(database_url(), scorer_id)


@services.cached(ttl=30)
def _versions(url: str, scorer_id: int) -> list[VersionChoice]:
    """A scorer's versions, newest first."""
    from scorer_runtime.store import list_versions

    with services.reading() as session:
        return [
            VersionChoice(int(v.id or 0), v.version, v.note, f"{v.created_at:%d %b %Y}")
            for v in list_versions(session, scorer_id=scorer_id)
        ]


def exported(version_id: int, format: ExportFormat) -> Exported:
    """A stored version exported (judge profiles written out in full)."""
    return _exported(database_url(), version_id, format)


@st.cache_data(show_spinner=False, ttl=30)
def _exported(url: str, version_id: int, format: ExportFormat) -> Exported:
    """A stored version exported (judge profiles written out in full)."""
    from scorer_runtime.saved_scorers import judge_profiles, load_stored_spec
    from scorer_runtime.spec import SpecError
    from scorer_runtime.spec.mastra import MastraExportError
    from scorer_runtime.store import get_version_by_id

    with services.reading() as session:
        profiles = judge_profiles(session)
        try:
            stored = get_version_by_id(session, version_id=version_id)
            spec = load_stored_spec(session, stored)
            made = export_file(
                spec,
                format,
                registry=services.registry(),
                judge_profiles=profiles,
                version=stored.version,
            )
        except SpecError as error:
            problems = [
                ImportProblem(path_words(p.path), p.path, p.line, p.message) for p in error.problems
            ]
            return Exported(problems=problems)
        except MastraExportError as error:
            problems = [ImportProblem(MASTRA_PROBLEM, "", None, p) for p in error.problems]
            return Exported(problems=problems)
    return Exported(made, run_guide(spec, profiles))


def check(data: bytes, file_name: str) -> ImportCheck:
    """What an uploaded scorer file holds, checked against the saved judge profiles."""
    from scorer_runtime.saved_scorers import judge_profiles

    with services.reading() as session:
        profiles = judge_profiles(session)
    return check_import(data, file_name, registry=services.registry(), judge_profiles=profiles)


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a new scorer, in words; None when it can."""
    with services.reading() as session:
        return scorer_name_problem(session, name)


def same_stored_version(scorer_id: int, spec: ScorerSpec) -> int | None:
    """The number of the scorer's version that is exactly ``spec`` (None: none is)."""
    with services.reading() as session:
        return same_version(session, scorer_id=scorer_id, spec=spec)


def save(
    spec: ScorerSpec, *, mode: ImportMode, name: str | None, scorer_id: int | None, note: str
) -> SavedImport:
    """Save an imported file as a new scorer or a new version of ``scorer_id``."""
    with services.writing() as session:
        return save_import(session, spec=spec, mode=mode, name=name, scorer_id=scorer_id, note=note)
