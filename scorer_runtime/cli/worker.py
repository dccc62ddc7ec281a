"""``scorer-studio worker``: a warm runner that scores the runs queued in the store."""

from __future__ import annotations

import asyncio

import typer

from scorer_runtime.cli.support import engine, fail, friendly, load_env_file


@friendly
def worker(
    max_runs: int = typer.Option(4, min=1, max=64, help="Runs scored at once by this runner."),
    engine_name: str = typer.Option(
        "local",
        "--engine",
        help="Where claimed runs are scored: local (this machine) or ray (the actors of a Ray "
        "cluster, one run at a time; this runner stores the scores).",
    ),
    address: str | None = typer.Option(
        None,
        help="With --engine ray: the cluster (auto: the one started here with `ray start "
        "--head`; ray://HOST:10001 for another machine's; default: a local one).",
    ),
    attached: bool = typer.Option(
        False,
        "--attached",
        hidden=True,
        help="Stop when standard input closes (how the studio keeps its runner).",
    ),
    export_otlp: str | None = typer.Option(
        None,
        "--export-otlp",
        envvar="SCORER_STUDIO_EXPORT_OTLP",
        help="Also send each score of a scoring rule to this OpenTelemetry collector (OTLP "
        "over HTTP, e.g. http://127.0.0.1:4318) as a gen_ai.evaluation.result event of the "
        "span it scored.",
    ),
) -> None:
    """Score queued runs as they come (from the studio or ``run --queue``), until stopped.

    Start one per machine that should score; several may serve one PostgreSQL store. A run
    whose runner was killed is resumed by another. Keys in ``.env`` are read first.
    """
    load_env_file()
    from scorer_runtime.batch.serve import serve_forever
    from scorer_runtime.cli.runs import join_engine

    if export_otlp:
        from scorer_runtime.traces.evaluation_events import logs_endpoint

        try:
            logs_endpoint(export_otlp)
        except ValueError as e:
            raise fail(f"the runner did not start: {e}") from None
    shards = join_engine(engine_name, address, None)  # fails in words before serving
    made = engine()
    try:
        serve_forever(
            made, max_runs=max_runs, attached=attached, pool=shards, export_otlp=export_otlp
        )
    finally:
        if shards is not None:
            asyncio.run(shards.close())
        made.dispose()
