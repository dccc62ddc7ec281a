"""The one demo loader: every part into an empty database, or one part by free names."""

from __future__ import annotations

from pathlib import Path

from sqlmodel import Session

from scorer_runtime.saved_scorers import load_demo
from scorer_runtime.spec import load_spec
from scorer_runtime.store import save_scorer_version, session_scope
from scorer_runtime.store.views import dataset_rows
from tests.store.fixtures import db_url, engine

__all__ = ["db_url", "engine"]

DATA = Path(__file__).resolve().parents[1] / "data"
DEMO_SCORERS = sorted(p.stem for p in (DATA / "scorers").glob("*.json"))
"""The ids of the demo scorers in data/scorers (what loading the demo adds)."""


def _spec(name: str, description: str = "d") -> dict:
    return {
        "id": name,
        "description": description,
        "steps": [{"step": "generate_score", "formula": "1"}],
    }


def test_loading_the_demo_scorers_leaves_existing_ones_alone(engine):
    with session_scope(engine) as session:
        save_scorer_version(session, spec=load_spec(_spec("conciseness", "my own")))
        saved = load_demo(session, data_dir=DATA, parts=("scorers",)).scorers
    assert "conciseness" not in saved
    assert "tone-politeness" in saved
    assert sorted(saved) == [s for s in DEMO_SCORERS if s != "conciseness"]
    with session_scope(engine) as session:
        assert load_demo(session, data_dir=DATA, parts=("scorers",)).scorers == []


def test_loading_the_demo_datasets_loads_each_once(engine):
    with session_scope(engine) as session:
        first = load_demo(session, data_dir=DATA, parts=("datasets",)).datasets
    with session_scope(engine) as session:
        second = load_demo(session, data_dir=DATA, parts=("datasets",)).datasets
    expected = sorted(p.stem for p in (DATA / "datasets").glob("*.jsonl"))
    assert sorted(first) == expected
    assert len(expected) >= 3
    assert second == []
    with Session(engine) as session:
        assert all(row.examples > 0 for row in dataset_rows(session))


def test_the_whole_demo_goes_only_into_an_empty_database(engine):
    with session_scope(engine) as session:
        loaded = load_demo(session, data_dir=DATA, only_into_empty=True)
    assert loaded.skipped_reason is None
    assert loaded.scorers == DEMO_SCORERS
    assert sorted(loaded.datasets) == sorted(p.stem for p in (DATA / "datasets").glob("*.jsonl"))
    assert loaded.traces > 0
    with session_scope(engine) as session:
        again = load_demo(session, data_dir=DATA, only_into_empty=True)
    assert again.skipped_reason == "the database already has scorers or datasets"
    assert (again.scorers, again.datasets, again.traces) == ([], [], 0)
