"""Fixtures of the run-start tests: the store's fresh database per test (SQLite and PostgreSQL)."""

from tests.store.fixtures import db_url

__all__ = ["db_url"]
