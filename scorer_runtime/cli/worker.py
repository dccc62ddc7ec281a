"""``scorer-studio worker``: a warm runner that scores the runs queued in the store."""

from __future__ import annotations

import typer

from scorer_runtime.cli.support import engine, friendly, load_env_file


@friendly
def worker(
    max_runs: int = typer.Option(4, min=1, max=64, help="Runs scored at once by this runner."),
    attached: bool = typer.Option(
        False,
        "--attached",
        hidden=True,
        help="Stop when standard input closes (how the studio keeps its runner).",
    ),
) -> None:
    """Score queued runs as they come (from the studio or ``run --queue``), until stopped.

    Start one per machine that should score; several may serve one PostgreSQL store. A run
    whose runner was killed is resumed by another. Keys in ``.env`` are read first.
    """
    load_env_file()
    from scorer_runtime.batch.serve import serve_forever

    made = engine()
    try:
        serve_forever(made, max_runs=max_runs, attached=attached)
    finally:
        made.dispose()
