"""Engines and sessions: made from a database URL on demand, never at import.

The URL comes from the caller, else ``SCORER_STUDIO_DATABASE_URL``, else an SQLite file
``data/scorer_studio.db`` under the *current working directory* (``make run`` and the CLI run
from the repository root, so that is ``<repo>/data/``, which git ignores).

SQLite is tuned for one writer and many readers on threads and processes: WAL journal,
``foreign_keys=ON``, a busy timeout, ``check_same_thread=False`` (Streamlit serves sessions
on threads). Transactions start with ``BEGIN IMMEDIATE`` so two writers queue on the busy
timeout instead of failing with "database is locked" when a read turns into a write;
:func:`read_session` opts out for reads, which in WAL mode never block the writer.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlmodel import Session

from scorer_runtime.store.canonical import json_text

DATABASE_URL_ENV = "SCORER_STUDIO_DATABASE_URL"
DEFAULT_DATABASE_FILE = Path("data") / "scorer_studio.db"
"""Relative to the current working directory."""

SQLITE_BUSY_TIMEOUT_MS = 30_000
_BEGIN_OPTION = "scorer_studio_sqlite_begin"


def database_url(url: str | None = None) -> str:
    """The database URL to use: ``url``, else the environment variable, else the default file."""
    if url:
        return url
    from_env = os.environ.get(DATABASE_URL_ENV, "").strip()
    if from_env:
        return from_env
    return f"sqlite:///{DEFAULT_DATABASE_FILE.as_posix()}"


def describe_url(url: str) -> str:
    """The URL with any password hidden, for messages."""
    return make_url(url).render_as_string(hide_password=True)


def make_engine(
    url: str | None = None, *, echo: bool = False, busy_timeout_ms: int = SQLITE_BUSY_TIMEOUT_MS
) -> Engine:
    """An engine for ``url`` (see :func:`database_url`); creates an SQLite file's folder.

    ``busy_timeout_ms``: how long an SQLite write waits for another writer before failing
    (the OTLP receiver waits less and asks the exporter to send again).
    """
    parsed = make_url(database_url(url))
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, echo=echo, pool_pre_ping=True)
    path = parsed.database
    if path and path != ":memory:" and not path.startswith("file:"):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        parsed,
        echo=echo,
        connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
        # The same text as json.dumps, made faster: bulk inserts of scores spend much here.
        json_serializer=json_text,
    )
    event.listen(engine, "connect", functools.partial(_on_sqlite_connect, busy_timeout_ms))
    event.listen(engine, "begin", _on_sqlite_begin)
    return engine


def _on_sqlite_connect(busy_timeout_ms: int, dbapi_connection: Any, _record: Any) -> None:
    # Take transaction control away from the driver so "begin" below decides how to begin.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        # Safe with WAL (a power cut may lose the last commits, never corrupt the file).
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def _on_sqlite_begin(connection: Any) -> None:
    mode = connection.get_execution_options().get(_BEGIN_OPTION, "IMMEDIATE")
    connection.exec_driver_sql(f"BEGIN {mode}")


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """A session for reads and writes; the one place that commits (or rolls back on error).

    Repository functions only flush; everything done in the block commits together.
    Objects stay readable after the block (no expiry on commit).
    """
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


@contextmanager
def read_session(engine: Engine) -> Iterator[Session]:
    """A session for reads only: never commits, and on SQLite never blocks a writer."""
    reader = engine.execution_options(**{_BEGIN_OPTION: "DEFERRED"})
    # Closing (not rolling back) ends the transaction and keeps loaded objects readable.
    with Session(reader, expire_on_commit=False) as session:
        yield session
