"""Fixtures of the store tests (defined in fixtures.py, shared with batch and CLI tests)."""

from tests.store.fixtures import db_url, engine

__all__ = ["db_url", "engine"]
