"""What leaves the store: frozen *Info dataclasses (never table rows), and typed specs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from sqlmodel import update

from scorer_runtime.saved_scorers import compile_version, scorer_source, spec_as_data
from scorer_runtime.spec import ScorerSpec, SpecError, load_spec
from scorer_runtime.store import (
    ScorerVersionInfo,
    get_version_by_id,
    list_scorers,
    list_versions,
    read_session,
    save_scorer_version,
    session_scope,
)
from scorer_runtime.store.tables import ScorerVersionRecord
from tests.store.fixtures import SCORE_ONE, valid_spec

DEMO_SPEC = Path(__file__).parents[2] / "data" / "scorers" / "keyword-coverage.json"


def test_a_saved_scorer_spec_comes_back_as_a_scorer_spec(engine):
    spec = load_spec(DEMO_SPEC)
    with session_scope(engine) as session:
        saved = save_scorer_version(session, spec=spec, note="typed")
    with read_session(engine) as session:
        read = get_version_by_id(session, version_id=saved.id)
        (scorer,) = list_scorers(session)
    assert isinstance(read, ScorerVersionInfo)
    assert read.spec == spec
    assert read.problems == ()
    assert (scorer.name, read.version, read.note) == (spec.id, 1, "typed")


def test_the_same_spec_saved_again_is_one_version(engine):
    spec = load_spec(DEMO_SPEC)
    with session_scope(engine) as session:
        typed = save_scorer_version(session, spec=spec)
        again = save_scorer_version(session, spec=load_spec(spec_as_data(typed.spec)))
    assert again.id == typed.id


def test_plain_data_is_refused_on_save(engine):
    with session_scope(engine) as session, pytest.raises(TypeError, match="load_spec"):
        save_scorer_version(session, spec={"id": "raw", "description": "d", "steps": []})  # type: ignore[arg-type]


def test_infos_are_frozen_copies_not_rows(engine):
    with session_scope(engine) as session:
        saved = save_scorer_version(session, spec=valid_spec("frozen"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        saved.note = "changed"  # type: ignore[misc]


def _store_raw(engine, version_id: int, data: object) -> None:
    """Overwrite a stored spec with data saved before specs were checked on save."""
    with session_scope(engine) as session:
        session.exec(
            update(ScorerVersionRecord)
            .where(ScorerVersionRecord.id == version_id)
            .values(spec=data)
        )


def test_an_old_row_that_no_longer_validates_reads_leniently_and_cannot_run(engine):
    with session_scope(engine) as session:
        saved = save_scorer_version(session, spec=valid_spec("old", judge="strict"))
    bad_step = {"step": "analyze", "op": "gone"}
    _store_raw(engine, saved.id, {"id": "old", "judge": "strict", "steps": [bad_step, SCORE_ONE]})
    with read_session(engine) as session:
        (read,) = list_versions(session, scorer_id=saved.scorer_id)
        assert isinstance(read.spec, ScorerSpec)
        assert (read.spec.id, read.spec.judge, read.spec.judge_refs()) == (
            "old",
            "strict",
            ["strict"],
        )
        assert [s.step for s in read.spec.steps] == ["generate_score"]  # the valid step stays
        assert {p.path for p in read.problems} >= {"description"}
        with pytest.raises(SpecError, match="version 1"):
            scorer_source(session, read)
        with pytest.raises(SpecError):
            compile_version(session, read)


@pytest.mark.parametrize("data", ["just text", [1, 2], {"id": "not an id!", "steps": "x"}])
def test_a_row_that_is_no_spec_at_all_still_reads(engine, data):
    with session_scope(engine) as session:
        saved = save_scorer_version(session, spec=valid_spec("junk"))
    _store_raw(engine, saved.id, data)
    with read_session(engine) as session:
        read = get_version_by_id(session, version_id=saved.id)
    assert read.problems
    assert (read.spec.id, read.spec.steps, read.spec.prompt_steps()) == ("junk", [], [])
