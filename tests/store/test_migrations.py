"""Migrations: upgrade from the first revision keeps data; ensure_schema is idempotent."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text

from scorer_runtime.store import (
    SchemaError,
    ScoreFilter,
    current_revision,
    ensure_schema,
    get_dataset,
    get_scorer,
    list_scores,
    make_engine,
    read_session,
    upgrade,
)
from scorer_runtime.store.migrate import MIGRATIONS_DIR, head_revision
from scorer_runtime.store.tables import TABLES

FIRST = "0001_initial"
NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _insert_at_first_revision(connection) -> None:
    rows = [
        (
            "INSERT INTO scorers (id, name, description, created_at, updated_at) "
            "VALUES (1, 'tone', 'd', :t, :t)"
        ),
        (
            "INSERT INTO scorer_versions (id, scorer_id, version, spec, content_hash, note, "
            "created_at) VALUES (1, 1, 1, '{\"id\": \"tone\"}', 'abc', '', :t)"
        ),
        "INSERT INTO datasets (id, name, description, created_at) VALUES (1, 'faq', '', :t)",
        (
            "INSERT INTO examples (id, dataset_id, position, input, output, created_at) "
            "VALUES (1, 1, 0, '\"q\"', '\"a\"', :t)"
        ),
        (
            "INSERT INTO runs (id, scorer_id, scorer_version_id, dataset_id, status, concurrency, "
            "total, done_count, failed_count, cost, cancel_requested, created_at) "
            "VALUES (1, 1, 1, 1, 'done', 2, 1, 1, 0, 0.0, false, :t)"
        ),
        (
            "INSERT INTO scores (id, run_id, example_id, scorer_id, scorer_version_id, dataset_id, "
            "score, outcome, attempts, input_tokens, output_tokens, total_tokens, created_at) "
            "VALUES (1, 1, 1, 1, 1, 1, 0.75, 'scored', 1, 10, 5, 15, :t)"
        ),
        (  # failed before any judge call: no cost written then, 0 since revision 0006
            "INSERT INTO scores (id, example_id, scorer_id, scorer_version_id, outcome, attempts, "
            "input_tokens, output_tokens, total_tokens, created_at) "
            "VALUES (2, 1, 1, 1, 'step_error', 0, 0, 0, 0, :t)"
        ),
    ]
    for sql in rows:
        connection.execute(text(sql), {"t": NOW})


def test_there_is_more_than_one_revision_so_the_upgrade_path_is_exercised():
    assert len(list((MIGRATIONS_DIR / "versions").glob("0*.py"))) >= 2
    assert head_revision() != FIRST


def test_upgrade_from_the_first_revision_keeps_data_written_there(db_url):
    engine = make_engine(db_url)
    assert current_revision(engine) is None
    upgrade(engine, FIRST)
    assert current_revision(engine) == FIRST
    assert "labels" not in inspect(engine).get_table_names()
    with engine.begin() as connection:
        _insert_at_first_revision(connection)

    upgrade(engine)

    assert current_revision(engine) == head_revision()
    with read_session(engine) as session:
        assert get_scorer(session, name="tone").description == "d"
        assert get_dataset(session, name="faq").id == 1
        rows = list_scores(session, filter=ScoreFilter(run_id=1)).rows
    assert [(r.score, r.outcome, r.total_tokens, r.trace_id) for r in rows] == [
        (0.75, "scored", 15, None)
    ]
    assert rows[0].created_at == NOW
    with engine.connect() as connection:
        costs = dict(connection.execute(text("SELECT id, cost FROM scores")).all())
    assert costs == {1: None, 2: 0.0}  # NULL now means "judge called, price unknown"
    assert "labels" in inspect(engine).get_table_names()
    engine.dispose()


def test_ensure_schema_is_idempotent_and_matches_the_models(db_url):
    engine = make_engine(db_url)
    ensure_schema(engine)
    ensure_schema(engine)
    assert current_revision(engine) == head_revision()
    metadata = TABLES[0].metadata
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, metadata) == []
    engine.dispose()


def test_a_database_from_a_newer_version_is_refused_with_a_clear_message(db_url):
    engine = make_engine(db_url)
    ensure_schema(engine)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999_future'"))
    with pytest.raises(SchemaError, match="written by a newer version"):
        ensure_schema(engine)
    engine.dispose()


def test_processes_starting_at_once_migrate_a_new_file_exactly_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'race.db'}"
    code = (
        "import sys; from scorer_runtime.store import make_engine, ensure_schema, "
        "current_revision; e = make_engine(sys.argv[1]); ensure_schema(e); "
        "print(current_revision(e))"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=60) for p in procs]
    for (out, err), proc in zip(outputs, procs, strict=True):
        assert proc.returncode == 0, err
        assert out.strip() == head_revision()
