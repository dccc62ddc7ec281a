"""Database fixtures shared by the store, batch and CLI tests.

Every test gets a fresh database: a new SQLite file in its tmp_path and, when
``SCORER_STUDIO_TEST_PG_URL`` is set, the same test again on a fresh PostgreSQL schema.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

import pytest
from sqlalchemy import Engine, create_engine, event, text

from scorer_runtime.spec import ScorerSpec, load_spec
from scorer_runtime.store import (
    ExampleData,
    add_examples,
    create_dataset,
    ensure_schema,
    make_engine,
    save_scorer_version,
    session_scope,
)

PG_URL_ENV = "SCORER_STUDIO_TEST_PG_URL"


def _backends() -> list[Any]:
    backends: list[Any] = ["sqlite"]
    if os.environ.get(PG_URL_ENV):
        backends.append("postgresql")
    return backends


@pytest.fixture(params=_backends())
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    """The URL of a fresh, empty database (SQLite file; PostgreSQL schema when configured)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}"
        return
    base = os.environ[PG_URL_ENV]
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in base else "?"
    try:
        yield f"{base}{sep}options={quote(f'-csearch_path={schema}')}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine on a fresh database with the newest schema."""
    made = make_engine(db_url)
    ensure_schema(made)
    yield made
    made.dispose()


def make_dataset(engine: Engine, name: str, examples: list[ExampleData]) -> int:
    """A dataset holding ``examples``; returns its id."""
    with session_scope(engine) as session:
        dataset = create_dataset(session, name=name)
        assert dataset.id is not None
        add_examples(session, dataset_id=dataset.id, examples=examples)
        return dataset.id


SCORE_ONE: dict[str, Any] = {"step": "generate_score", "formula": "1"}
"""The smallest generate_score step: every example scores 1."""


def judge_step(step: str = "analyze", **fields: Any) -> dict[str, Any]:
    """A valid prompt step asking the judge whether the output is polite (``{"ok": bool}``)."""
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    return {
        "step": step,
        "description": "Ask the judge",
        "template": "Is this polite? {{ output }}",
        "output_schema": schema,
        **fields,
    }


def valid_spec(id: str = "tone", description: str = "test scorer", **fields: Any) -> ScorerSpec:
    """A small valid spec, checked by ``load_spec``: ``id``, ``description``, the ``fields``
    given and, unless ``steps`` is among them, one formula step scoring 1."""
    return load_spec({"id": id, "description": description, "steps": [SCORE_ONE], **fields})


def make_version(engine: Engine, name: str = "tone", **spec: Any) -> tuple[int, int]:
    """A scorer version with a small valid spec; returns (scorer_id, version_id)."""
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=valid_spec(name, **spec))
        assert version.id is not None
        return version.scorer_id, version.id


@contextmanager
def counting_selects(engine: Engine) -> Iterator[list[str]]:
    """The SELECT statements sent to the database inside the block (for tests that hold a
    read to a fixed number of statements)."""
    seen: list[str] = []

    def listen(conn: object, cursor: object, statement: str, *args: object) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", listen)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", listen)


def add_repeat_run(session: Any, *, check_id: int, concurrency: int = 1) -> Any:
    """A queued repeat run of a stability check, as the run-start service stores one (its
    sample, the judge answer cache off), made inside the caller's transaction."""
    from scorer_runtime.store import create_run, get_stability_check

    check = get_stability_check(session, check_id=check_id)
    return create_run(
        session,
        scorer_version_id=check.scorer_version_id,
        dataset_id=check.dataset_id,
        concurrency=concurrency,
        stability_check_id=check_id,
        use_cache=False,
    )
