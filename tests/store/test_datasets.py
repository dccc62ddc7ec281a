"""Datasets as an entity: names stay taken when archived; renaming refuses a taken name."""

from __future__ import annotations

import pytest

from scorer_runtime.store import (
    ConflictError,
    archive_dataset,
    dataset_names,
    get_dataset,
    read_session,
    session_scope,
    update_dataset,
)
from tests.store.fixtures import make_dataset


def test_dataset_names_keep_archived_names_taken(engine):
    first = make_dataset(engine, "a", [])
    make_dataset(engine, "b", [])
    with session_scope(engine) as session:
        archive_dataset(session, dataset_id=first)
    with read_session(engine) as session:
        assert dataset_names(session) == {"a", "b"}


def test_update_dataset_renames_and_refuses_a_taken_name(engine):
    first = make_dataset(engine, "a", [])
    make_dataset(engine, "b", [])
    with session_scope(engine) as session:
        update_dataset(session, dataset_id=first, name="  renamed ", description=" new words ")
    with read_session(engine) as session:
        record = get_dataset(session, id=first)
        assert (record.name, record.description) == ("renamed", "new words")
    with pytest.raises(ConflictError, match="already exists"), session_scope(engine) as session:
        update_dataset(session, dataset_id=first, name="b", description="")
    with pytest.raises(ConflictError, match="needs a name"), session_scope(engine) as session:
        update_dataset(session, dataset_id=first, name="  ", description="")
    with session_scope(engine) as session:  # its own name is not "taken"
        update_dataset(session, dataset_id=first, name="renamed", description="other words")
    with read_session(engine) as session:
        assert get_dataset(session, id=first).description == "other words"
