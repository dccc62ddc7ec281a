"""Drafts of scorers under construction: saved as they change, listed newest first."""

from __future__ import annotations

import pytest

from scorer_runtime.store import (
    NotFoundError,
    delete_draft,
    get_draft,
    list_drafts,
    save_draft,
    save_scorer_version,
    session_scope,
)
from tests.store.fixtures import valid_spec


def test_a_draft_is_saved_updated_listed_and_deleted(engine):
    with session_scope(engine) as session:
        first = save_draft(session, spec={"name": "Tone", "steps": []})
        draft_id = first.id
    with session_scope(engine) as session:
        save_draft(session, draft_id=draft_id, spec={"name": "Tone v2", "id": "tone"})
        other = save_draft(session, spec={"id": "only-an-id"})
    with session_scope(engine) as session:
        drafts = list_drafts(session)
        assert [d.title for d in drafts] == ["only-an-id", "Tone v2"]
        assert get_draft(session, draft_id=draft_id).spec == {"name": "Tone v2", "id": "tone"}
        delete_draft(session, draft_id=other.id)
    with session_scope(engine) as session:
        assert [d.id for d in list_drafts(session)] == [draft_id]
        with pytest.raises(NotFoundError):
            get_draft(session, draft_id=other.id)


def test_an_incomplete_spec_is_kept_as_typed(engine):
    incomplete = {"id": "", "steps": [{"step": "generate_score", "formula": ""}]}
    with session_scope(engine) as session:
        draft_id = save_draft(session, spec=incomplete).id
    with session_scope(engine) as session:
        assert get_draft(session, draft_id=draft_id).spec == incomplete


def test_a_draft_can_belong_to_a_saved_scorer(engine):
    with session_scope(engine) as session:
        version = save_scorer_version(
            session,
            spec=valid_spec("tone"),
        )
        draft = save_draft(session, spec={"id": "tone"}, scorer_id=version.scorer_id)
        assert draft.scorer_id == version.scorer_id
