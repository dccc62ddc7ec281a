"""What every ``scorer-studio`` command shares: the database, consoles, friendly errors."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text
    from sqlalchemy import Engine
    from sqlmodel import Session

F = TypeVar("F", bound=Callable[..., Any])
ERROR_EXIT = 2
"""The exit status of a command that failed (1 is ``run --fail-under``'s verdict)."""
BUDGET_EXIT = 3
"""The exit status of ``run`` when its spend cap stopped it ("stopped: budget reached"):
what finished is saved, and the run resumes with a higher cap."""

database_url_option: dict[str, str | None] = {"url": None}
"""The ``--database-url`` given to the command group (None: environment or default)."""


ENV_FILE = ".env"
"""The file of keys ``ui`` and ``run`` read at start, in the folder they are started from
(the studio writes it when a person asks it to remember a pasted key)."""


def load_env_file(folder: Path | None = None) -> None:
    """Read ``.env`` of ``folder`` (default: the working folder) into the environment.

    Variables already set win over the file, so a key exported in the shell or set by a
    deployment is never replaced by an older one remembered on disk.
    """
    from dotenv import load_dotenv

    load_dotenv((folder or Path.cwd()) / ENV_FILE, override=False)


_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
"""Characters a terminal obeys or hides rather than shows: control and escape codes (ANSI
colours, OSC-8 links, a carriage return that overwrites a line), bidi overrides, zero-width."""


def visible(text: str) -> str:
    """``text`` with every control, escape, bidi and zero-width character written as its
    code (``\\x1b``, ``\\u202e``), so data can never steer the terminal that shows it."""
    return _INVISIBLE.sub(lambda found: found.group().encode("unicode_escape").decode(), text)


def console(*, stderr: bool = False) -> Console:
    """A rich console for tables and progress (plain text when not a terminal).

    Every string it prints is data, shown as text: no Rich markup (a description holding
    ``[link=…]`` prints those characters), no emoji codes, and control characters shown as
    codes (:func:`visible`). Our own colours are given as styled ``Text`` (:func:`styled`).
    """
    return _data_console()(
        stderr=stderr, highlight=False, soft_wrap=True, markup=False, emoji=False
    )


@functools.cache
def _data_console() -> type[Console]:
    """The console class whose every string is shown through :func:`visible` (made once, on
    first use: rich is imported only by commands that print)."""
    from rich.console import Console

    class DataConsole(Console):
        def render_str(self, text: str, **options: Any) -> Text:
            return super().render_str(visible(text), **options)

    return DataConsole


def styled(style: str, words: str, rest: str = "") -> Text:
    """``words`` in ``style`` followed by plain ``rest``, both shown as text (never markup)."""
    from rich.text import Text

    return Text.assemble((visible(words), style), visible(rest))


def fail(message: str, code: int = ERROR_EXIT) -> typer.Exit:
    """Print ``error: message`` on stderr; return the Exit to raise.

    The message is redacted first: it may quote a provider, and a runner's output may be
    its log file.
    """
    from scorer_runtime.secrets import environment_secrets, redact

    message = redact(message, environment_secrets())
    console(stderr=True).print(styled("red", "error:", f" {message}"))
    return typer.Exit(code)


def friendly(fn: F) -> F:
    """Turn the errors a user can cause into one message on stderr and exit status 2."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from sqlalchemy.exc import OperationalError

        from scorer_runtime.datasets.issues import ImportFailure
        from scorer_runtime.store import SchemaError, StoreError, describe_url

        try:
            return fn(*args, **kwargs)
        except (StoreError, ImportFailure, SchemaError, ValueError, OSError) as e:
            # SpecError is a ValueError: it lists every problem of a spec file.
            raise fail(str(e)) from None
        except OperationalError as e:
            where = describe_url(url())
            raise fail(f"cannot use the database {where}: {e.orig or e}") from None

    return wrapper  # type: ignore[return-value]


def url() -> str:
    """The database URL in force."""
    from scorer_runtime.store import database_url

    return database_url(database_url_option["url"])


def engine() -> Engine:
    """An engine on the database in force, with its schema brought up to date."""
    from scorer_runtime.store import ensure_schema, make_engine

    made = make_engine(url())
    ensure_schema(made)
    return made


@contextmanager
def session(*, write: bool = False) -> Iterator[Session]:
    """A session on the database in force (committed at the end when ``write``)."""
    from scorer_runtime.store import read_session, session_scope

    made = engine()
    try:
        with session_scope(made) if write else read_session(made) as opened:
            yield opened
    finally:
        made.dispose()
