"""``scorer-studio db|seed``: bring the schema up to date, load the demo data."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scorer_runtime.cli.support import console, friendly, session, url

db_app = typer.Typer(help="Manage the database.", no_args_is_help=True)
_DATA = Path("data")


# -- database ----------------------------------------------------------------------------------


@db_app.command("upgrade")
@friendly
def db_upgrade() -> None:
    """Bring the database schema to the newest revision (also done on every start)."""
    from scorer_runtime.store import current_revision, describe_url, make_engine, upgrade

    engine = make_engine(url())
    try:
        before = current_revision(engine)
        after = upgrade(engine)
    finally:
        engine.dispose()
    change = "already up to date" if before == after else f"upgraded from {before or 'empty'}"
    console().print(f"Database {describe_url(url())}: {change} (revision {after}).")


@friendly
def seed(
    data_dir: Annotated[
        Path, typer.Option(help="Folder with scorers/, datasets/ and traces/.")
    ] = _DATA,
) -> None:
    """Load the demo scorers, datasets and agent traces, if the database has none yet."""
    from scorer_runtime.saved_scorers import load_demo

    with session(write=True) as opened:
        result = load_demo(opened, data_dir=data_dir, only_into_empty=True)
    if result.skipped_reason:
        console().print(f"Nothing to seed: {result.skipped_reason}.")
        return
    parts = [
        f"{len(result.scorers)} scorers ({', '.join(result.scorers) or 'none'})",
        f"{len(result.datasets)} datasets ({', '.join(result.datasets) or 'none'})",
    ]
    if result.traces:
        parts.append(f"{result.traces} agent traces")
    console().print(f"Seeded {', '.join(parts[:-1])} and {parts[-1]}.")
