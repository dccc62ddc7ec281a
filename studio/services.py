"""The studio's access to the runtime: one cached engine and registry, sessions, cache clearing.

Pages call these instead of building engines or registries themselves. Reads that pages
repeat on every rerun go through ``st.cache_data`` functions defined next to the page that
uses them; every write ends with :func:`changed`, which clears those caches.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from scorer_runtime.spec import StepRegistry, default_registry
from scorer_runtime.store import (
    Engine,
    Session,
    database_url,
    ensure_schema,
    make_engine,
    read_session,
    session_scope,
)


def engine(url: str | None = None) -> Engine:
    """The database engine (``SCORER_STUDIO_DATABASE_URL``, else ``data/scorer_studio.db``),
    with the schema brought up to date once per server process and database. Work on a
    background thread passes the ``url`` it was started for: the setting may change meanwhile."""
    return _engine(database_url() if url is None else url)


@st.cache_resource(show_spinner=False)
def _engine(url: str) -> Engine:
    made = make_engine(url)
    ensure_schema(made)
    return made


@st.cache_resource(show_spinner=False)
def registry() -> StepRegistry:
    """The built-in steps plus installed plugins."""
    return default_registry()


@contextmanager
def writing() -> Iterator[Session]:
    """A session whose changes commit at the end of the block; caches are cleared after."""
    with session_scope(engine()) as session:
        yield session
    changed()


@contextmanager
def reading() -> Iterator[Session]:
    """A read-only session (never blocks a writer)."""
    with read_session(engine()) as session:
        yield session


def changed() -> None:
    """Forget cached reads after a write, so every page shows the new data."""
    st.cache_data.clear()


def env_is_set(name: str | None) -> bool:
    """Whether an environment variable (a judge's key) is set — its value is never read out."""
    return bool(name) and bool(os.environ.get(name or ""))
