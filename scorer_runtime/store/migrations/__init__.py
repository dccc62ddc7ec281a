"""Alembic migrations of the store, run programmatically by :mod:`scorer_runtime.store.migrate`."""
