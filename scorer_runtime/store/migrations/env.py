"""Alembic environment: migrate the connection handed over by ``migrate.py`` (no alembic.ini)."""

from __future__ import annotations

from alembic import context

from scorer_runtime.store.tables import TABLES

connection = context.config.attributes["connection"]
# render_as_batch lets ALTER-style operations work on SQLite (copy-and-move of the table).
context.configure(
    connection=connection,
    target_metadata=TABLES[0].metadata,
    render_as_batch=True,
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
