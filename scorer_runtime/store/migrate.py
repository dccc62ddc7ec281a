"""Schema migrations, run in code: ``ensure_schema(engine)`` on start, ``upgrade`` from the CLI.

The Alembic scripts live in ``migrations/`` inside the package, so an installed package
migrates its database without an ``alembic.ini`` at the repository root.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, text

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
# Any constant will do: it names the PostgreSQL advisory lock taken while migrating.
_PG_LOCK_KEY = 7_351_024_118


class SchemaError(RuntimeError):
    """The database's schema is newer than this code, or cannot be migrated."""


def _config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def _scripts() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_config())


def head_revision() -> str:
    """The newest revision this code knows."""
    head = _scripts().get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at (None for an empty database)."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> str | None:
    """Migrate the database up to ``revision`` (default: the newest); return where it is now.

    Safe when several processes start at once: SQLite serialises the transactions and
    PostgreSQL takes an advisory lock, so each migration runs exactly once.
    """
    from alembic import command

    known = {script.revision for script in _scripts().walk_revisions()}
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
        from alembic.runtime.migration import MigrationContext

        at = MigrationContext.configure(connection).get_current_revision()
        if at is not None and at not in known:
            raise SchemaError(
                f"the database is at schema revision {at!r}, which this version of Scorer "
                "Studio does not know (it was written by a newer version); upgrade Scorer Studio"
            )
        command.upgrade(_config(connection), revision)
        return MigrationContext.configure(connection).get_current_revision()


def ensure_schema(engine: Engine) -> None:
    """Bring the database to the newest schema; cheap when it is already there (idempotent)."""
    if current_revision(engine) == head_revision():
        return
    upgrade(engine)
