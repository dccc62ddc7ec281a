"""The builder's reads and writes: judge profiles, the datasets and examples it previews on,
the draft's life in this session and in the database (load, start again, continue one left
earlier, autosave, forget once saved), and saving a version.

The draft lives in session state (``state.BUILDER_DRAFT``) and, as the person types, in the
``drafts`` table, so closing the tab loses nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import streamlit as st

from scorer_runtime.datasets.fit import dataset_shape
from scorer_runtime.spec import ScorerDraft, ScorerSpec
from scorer_runtime.spec.references import with_short_references
from scorer_runtime.store import (
    canonical_json,
    delete_draft,
    get_draft,
    get_scorer,
    judge_profile_dict,
    latest_version,
    list_datasets,
    list_drafts,
    list_examples,
    list_judge_profiles,
    save_draft,
    save_scorer_version,
    session_scope,
)
from studio import services, state
from studio.app_pages.builder.logic import new_draft, working_profile


@st.cache_data(show_spinner=False, ttl=30)
def profiles(url: str) -> dict[str, dict[str, Any]]:
    """The saved judge profiles as spec data, by name (cached per database URL)."""
    with services.reading() as session:
        return {p.name: judge_profile_dict(p) for p in list_judge_profiles(session)}


def load_draft() -> ScorerDraft:
    """The draft in this session; a saved scorer's latest spec when one was chosen to edit."""
    scorer_id = state.get(state.BUILDER_SCORER_ID)
    draft: ScorerDraft | None = state.get(state.BUILDER_DRAFT)
    if scorer_id is not None and state.get(state.BUILDER_LOADED_FOR) != scorer_id:
        with services.reading() as session:
            version = latest_version(session, scorer_id=scorer_id)
            scorer = get_scorer(session, id=scorer_id)
        draft = (
            with_short_references(ScorerDraft.from_spec(version.spec))
            if version
            else new_draft().model_copy(update={"id": scorer.name})
        )
        state.put(state.BUILDER_LOADED_FOR, scorer_id)
        state.put(state.BUILDER_GEN, state.get(state.BUILDER_GEN) + 1)
        state.reset(state.BUILDER_TOUCHED)
        # Opening a scorer is not a draft yet: one is written once the person changes it.
        state.reset(state.BUILDER_DRAFT_ID)
        state.put(state.BUILDER_SAVED_DIGEST, canonical_json(draft.to_data()))
    if scorer_id is not None:
        state.put(state.CURRENT_SCORER_ID, scorer_id)
    if draft is None:
        draft = new_draft(working_profile(profiles(url()), services.env_is_set))
        # A fresh form is not written to the database until the person changes it.
        state.put(state.BUILDER_SAVED_DIGEST, canonical_json(draft.to_data()))
    state.put(state.BUILDER_DRAFT, draft)
    return draft


def url() -> str:
    """The database's address (the key of the cached reads)."""
    return str(services.engine().url)


def start_new() -> None:
    """Forget the draft being edited: the builder starts again from a blank form."""
    for key in (
        state.BUILDER_DRAFT,
        state.BUILDER_DRAFT_ID,
        state.BUILDER_SCORER_ID,
        state.BUILDER_LOADED_FOR,
        state.BUILDER_SAVED_DIGEST,
        state.BUILDER_TOUCHED,
        state.BUILDER_JUST_SAVED,
        state.TRY_RESULT,
    ):
        state.reset(key)
    state.put(state.BUILDER_GEN, state.get(state.BUILDER_GEN) + 1)


def continue_draft(draft_id: int) -> None:
    """Pick up a draft left earlier (in this browser or another)."""
    with services.reading() as session:
        record = get_draft(session, draft_id=draft_id)
        draft, scorer_id = ScorerDraft.model_validate(record.spec), record.scorer_id
    start_new()
    state.put(state.BUILDER_DRAFT, draft)
    state.put(state.BUILDER_DRAFT_ID, draft_id)
    state.put(state.BUILDER_SCORER_ID, scorer_id)
    state.put(state.BUILDER_LOADED_FOR, scorer_id)
    if scorer_id is not None:
        state.put(state.CURRENT_SCORER_ID, scorer_id)


def touch(*stages: str) -> None:
    """The person acted on these stages: their problems may show from now on."""
    state.put(state.BUILDER_TOUCHED, state.get(state.BUILDER_TOUCHED) | set(stages))


def autosave(draft: ScorerDraft, stage: str) -> None:
    """Write the draft to the database when it changed, so closing the tab loses nothing.

    A change since the last write is the person typing or choosing: ``stage`` is touched."""
    data = draft.to_data()
    digest = canonical_json(data)
    previous = state.get(state.BUILDER_SAVED_DIGEST)
    if digest == previous:
        return
    if previous is not None:
        touch(stage)
    state.reset(state.BUILDER_JUST_SAVED)
    # Drafts are read by no cached page, so this write does not clear the read caches.
    with session_scope(services.engine()) as session:
        record = save_draft(
            session,
            spec=data,
            draft_id=state.get(state.BUILDER_DRAFT_ID),
            scorer_id=state.get(state.BUILDER_SCORER_ID),
        )
        state.put(state.BUILDER_DRAFT_ID, record.id)
    state.put(state.BUILDER_SAVED_DIGEST, digest)


def forget_draft() -> None:
    """The version is saved: the draft has served its purpose."""
    draft_id = state.get(state.BUILDER_DRAFT_ID)
    if draft_id is not None:
        with session_scope(services.engine()) as session:
            delete_draft(session, draft_id=draft_id)
    state.reset(state.BUILDER_DRAFT_ID)


def drafts_left() -> list[tuple[int | None, str, datetime]]:
    """Every draft in the database (id, title, last change), to continue one."""
    with services.reading() as session:
        return [(d.id, d.title, d.updated_at) for d in list_drafts(session)]


def save_version(spec: ScorerSpec, note: str) -> tuple[int, int]:
    """Save ``spec`` as its scorer's next version with ``note``; (scorer id, version number)."""
    with services.writing() as session:
        version = save_scorer_version(session, spec=spec, note=note)
        return version.scorer_id, version.version


@st.cache_data(show_spinner=False, ttl=30)
def datasets(url: str) -> list[tuple[int, str, bool | None]]:
    """Each dataset's id, name and whether its examples are agent runs (None: it has none)."""
    with services.reading() as session:
        found = []
        for d in list_datasets(session):
            if d.id is not None:
                shape = dataset_shape(session, dataset_id=d.id)
                agent = shape.agent_runs * 2 >= shape.sampled if shape.sampled else None
                found.append((d.id, d.name, agent))
        return found


@st.cache_data(show_spinner=False, ttl=30)
def examples(url: str, dataset_id: int) -> list[dict[str, Any]]:
    """The first 50 examples of a dataset, as the builder previews them."""
    with services.reading() as session:
        rows = list_examples(session, dataset_id=dataset_id, limit=50)
        return [
            {
                "id": r.id,
                "input": r.input,
                "output": r.output,
                "ground_truth": r.ground_truth,
                "request_context": r.request_context,
            }
            for r in rows
        ]
