"""Fixtures of the receiver tests: a fresh store (SQLite file; PostgreSQL when configured)."""

from tests.store.fixtures import db_url, engine

__all__ = ["db_url", "engine"]
