"""The studio's access to the runtime: one cached engine and registry, sessions, cache clearing.

Pages call these instead of building engines or registries themselves. Reads that pages
repeat on every rerun are decorated with :func:`cached`, next to the page that uses them:
each is keyed on the store's revision, so a grade, a score, a run moving on, a stability
check or an approval — made in this tab, another tab, the command line or a runner — shows
on the next rerun of any page. Every write in the studio also ends with :func:`changed`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

import streamlit as st

from scorer_runtime.spec import StepRegistry, default_registry
from scorer_runtime.store import (
    Engine,
    Revision,
    Session,
    database_url,
    ensure_schema,
    make_engine,
    read_session,
    session_scope,
    store_revision,
)

P = ParamSpec("P")
R = TypeVar("R")


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


def revision() -> Revision:
    """The store's revision now (see ``scorer_runtime.store.revision``): one cheap read."""
    with reading() as session:
        return store_revision(session)


def cached(
    *, ttl: float | None = None, spinner: bool | str = False
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """``st.cache_data`` keyed on the store's revision as well as the arguments: a read
    made before anything changed in the store is never shown after it. ``ttl`` only bounds
    how long old entries stay in memory (and re-reads what the revision does not cover)."""

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        def keyed(store: Revision, *args: Any, **kwargs: Any) -> R:
            return func(*args, **kwargs)

        # Streamlit tells cached functions apart by module and qualified name.
        keyed.__module__, keyed.__qualname__ = func.__module__, func.__qualname__
        keyed.__name__, keyed.__doc__ = func.__name__, func.__doc__
        reads = st.cache_data(show_spinner=spinner, ttl=ttl)(keyed)

        def read(*args: P.args, **kwargs: P.kwargs) -> R:
            return reads(revision(), *args, **kwargs)

        read.__module__, read.__qualname__ = func.__module__, func.__qualname__
        read.__name__, read.__doc__ = func.__name__, func.__doc__
        read.clear = reads.clear  # type: ignore[attr-defined]
        return read

    return decorate


def changed() -> None:
    """Forget cached reads after a write, so every page shows the new data."""
    st.cache_data.clear()


def env_is_set(name: str | None) -> bool:
    """Whether an environment variable (a judge's key) is set — its value is never read out."""
    return bool(name) and bool(os.environ.get(name or ""))
