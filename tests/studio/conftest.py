"""Fixtures for the studio's tests: a fresh SQLite file per test, demo data, and AppTest pages."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from streamlit.testing.v1 import AppTest

from scorer_runtime.saved_scorers import load_demo
from scorer_runtime.store import DATABASE_URL_ENV, ensure_schema, make_engine, session_scope

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "studio" / "app.py"


@pytest.fixture
def demo_scorers() -> list[str]:
    """The ids of the demo scorers in data/scorers (what loading the demo adds)."""
    return sorted(p.stem for p in (ROOT / "data" / "scorers").glob("*.json"))


@pytest.fixture
def studio_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    """An empty, migrated database file that the studio under test uses."""
    url = f"sqlite:///{tmp_path / 'studio.db'}"
    monkeypatch.setenv(DATABASE_URL_ENV, url)
    engine = make_engine(url)
    ensure_schema(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def demo_db(studio_db: Engine) -> Engine:
    """The studio's database seeded with the demo scorers and datasets from data/."""
    with session_scope(studio_db) as session:
        load_demo(session, data_dir=ROOT / "data", only_into_empty=True)
    return studio_db


@pytest.fixture
def open_page() -> Callable[..., AppTest]:
    """``open_page("examples")`` runs the studio on that page (its app_pages/<name>/page.py)."""

    def _open(name: str, *, timeout: float = 30) -> AppTest:
        at = AppTest.from_file(str(APP), default_timeout=timeout)
        at.run()
        at.switch_page(f"app_pages/{name}/page.py")
        at.run()
        return at

    return _open
