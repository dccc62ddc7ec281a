"""What leaves the store: frozen *Info dataclasses (never table rows), and typed specs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from scorer_runtime.spec import ScorerSpec, load_spec
from scorer_runtime.store import (
    ScorerVersionInfo,
    get_version_by_id,
    list_scorers,
    read_session,
    save_scorer_version,
    session_scope,
)

DEMO_SPEC = Path(__file__).parents[2] / "data" / "scorers" / "keyword-coverage.json"


def test_a_saved_scorer_spec_comes_back_as_a_scorer_spec(engine):
    spec = load_spec(DEMO_SPEC)
    with session_scope(engine) as session:
        saved = save_scorer_version(session, spec=spec, note="typed")
    with read_session(engine) as session:
        read = get_version_by_id(session, version_id=saved.id)
        (scorer,) = list_scorers(session)
    assert isinstance(read, ScorerVersionInfo)
    assert read.scorer_spec() == spec
    assert read.spec == json.loads(json.dumps(read.spec))  # the stored JSON, plain data
    assert (scorer.name, read.version, read.note) == (spec.id, 1, "typed")


def test_the_same_spec_typed_or_as_its_file_data_is_one_version(engine):
    spec = load_spec(DEMO_SPEC)
    with session_scope(engine) as session:
        typed = save_scorer_version(session, spec=spec)
        again = save_scorer_version(session, spec=typed.spec)
    assert again.id == typed.id


def test_infos_are_frozen_copies_not_rows(engine):
    with session_scope(engine) as session:
        saved = save_scorer_version(session, spec={"id": "raw", "description": "d", "steps": {}})
    with pytest.raises(dataclasses.FrozenInstanceError):
        saved.note = "changed"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        saved.scorer_spec()  # plain data is stored as given; reading it typed checks it
    assert isinstance(load_spec(DEMO_SPEC), ScorerSpec)
