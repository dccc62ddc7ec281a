"""Fixtures of the trust tests: the store's fresh database per test."""

from tests.store.fixtures import db_url, engine

__all__ = ["db_url", "engine"]
