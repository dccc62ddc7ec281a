"""``scorer-studio run|history``: score a dataset with a stored scorer, show its scores."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated

import typer

from scorer_runtime.cli.support import console, engine, friendly, load_env_file, session, styled

if TYPE_CHECKING:
    from rich.console import Console
    from sqlmodel import Session

    from scorer_runtime.batch import BatchProgress, BatchRunner, BatchSummary
    from scorer_runtime.batch.ray_engine import RayPool
    from scorer_runtime.store import ScorerVersionInfo


# -- run ---------------------------------------------------------------------------------------


@friendly
def run(
    scorer: Annotated[str, typer.Argument(help="Name of the scorer.")],
    dataset: Annotated[str, typer.Argument(help="Name of the dataset.")],
    version: int | None = typer.Option(None, help="Scorer version (default: the latest)."),
    concurrency: int = typer.Option(4, min=1, max=256, help="Examples scored at once."),
    fail_under: float | None = typer.Option(
        None, help="Exit with status 1 when the mean score is below this."
    ),
    resume: int | None = typer.Option(
        None, help="Resume this run id: score only the examples that have no result yet."
    ),
    api_base: str | None = typer.Option(
        None, help="Send every judge request to this OpenAI-compatible base URL instead."
    ),
    processes: int | None = typer.Option(
        None,
        min=1,
        help="Worker processes (default: one per CPU core for a big run of a judge scorer; "
        "1 keeps everything in this process). With --engine ray: Ray actors (default: one "
        "per CPU of the cluster).",
    ),
    engine_name: str = typer.Option(
        "local",
        "--engine",
        help="Where the examples are scored: local (this machine's processes) or ray (the "
        "actors of a Ray cluster, for runs bigger than one machine).",
    ),
    address: str | None = typer.Option(
        None,
        help="With --engine ray: the cluster (auto: the one started here with `ray start "
        "--head`; ray://HOST:10001 for another machine's; default: a local one for this run).",
    ),
    cache: bool = typer.Option(
        True,
        "--cache/--no-cache",
        help="Take judge answers already given to the same request from the judge answer "
        "cache (default), or ask the judge for every one (a resumed run keeps its setting).",
    ),
    queue: bool = typer.Option(
        False,
        "--queue",
        help="Queue the run for a runner (scorer-studio worker, or the studio's) and follow "
        "it to its end, instead of scoring in this process.",
    ),
    estimate: bool = typer.Option(
        False,
        "--estimate",
        help="Print what the run would cost (judge calls, tokens, typical and worst case) "
        "and exit; no run is made.",
    ),
    max_cost: str | None = typer.Option(
        None,
        "--max-cost",
        help="Spend cap in dollars: no judge call starts that could pass it; the run then "
        "ends 'stopped: budget reached' (resume it with a higher cap). Default: the judge's "
        "default cap, if it has one (a resumed run keeps its own); 'none': no cap.",
    ),
    allow_unpriced: bool = typer.Option(
        False,
        "--allow-unpriced",
        help="With --max-cost: run even though a judge model has no price (the cap cannot "
        "be checked for it).",
    ),
) -> None:
    """Score every example of DATASET with SCORER and print the summary.

    Judge keys in ``.env`` of the working folder are read first (variables already set win).
    """
    load_env_file()
    from scorer_runtime.costs.cap import JUDGE_CAP, read_cap

    cap = read_cap(max_cost)  # a bad cap is refused before anything else
    if estimate:
        # A resumed run keeps its own cache setting: the estimate reads it from the run.
        _print_estimate(
            scorer, dataset, version, resume, api_base, use_cache=cache or resume is not None
        )
        return
    if queue:
        if (
            api_base is not None
            or processes is not None
            or resume is not None
            or engine_name != "local"
        ):
            raise ValueError(
                "--queue cannot be combined with --api-base, --processes, --resume or --engine: a "
                "runner scores the stored scorer as it is (resume a run from the studio)"
            )
        from scorer_runtime.cli.queued import run_queued

        run_queued(
            scorer,
            dataset,
            version=version,
            concurrency=concurrency,
            fail_under=fail_under,
            use_cache=cache,
            max_cost=cap,
            default_cap=max_cost is None,
            allow_unpriced=allow_unpriced,
        )
        return
    shards = join_engine(engine_name, address, processes)  # before a run is stored
    from scorer_runtime.batch import BatchRunner
    from scorer_runtime.cli.costs import end_if_stopped, say_default_cap, say_lost
    from scorer_runtime.cli.report import summary_table
    from scorer_runtime.runs import RunRequest, plan_run, start_run
    from scorer_runtime.store import session_scope

    made = engine()
    with session_scope(made) as opened:
        version_record, dataset_id = _chosen(opened, scorer, dataset, version, resume)
    assert version_record.id is not None
    request = RunRequest(
        version_record.id,
        dataset_id,
        concurrency=concurrency,
        use_cache=cache,
        max_cost=JUDGE_CAP if max_cost is None else cap,
        allow_unpriced=allow_unpriced,
        api_base=api_base,
        resume=resume,
    )
    # Compiled once, keys and cap checked: a missing key or a cap the run could not keep
    # starts nothing (on resume, the run's own cap when no --max-cost was given).
    plan = plan_run(made, request)
    say_default_cap(plan)
    run_id = start_run(made, plan).id
    out = console()
    out.print(
        f"Run {run_id}: scorer {scorer} v{version_record.version} on dataset {dataset} "
        f"(concurrency {concurrency})"
    )
    say_lost(made, run_id)  # whatever the run holds set aside now, an earlier runner lost
    runner = BatchRunner(
        made,
        plan.scorer,
        run_id=run_id,
        concurrency=concurrency,
        threshold=fail_under,
        processes=None if shards is not None else processes,
        source=plan.source,
        pool=shards,
    )
    try:
        summary = _run_with_progress(runner, out)
    except KeyboardInterrupt:
        console(stderr=True).print(
            f"Run {run_id} cancelled; what finished is saved. "
            f"Resume it with: scorer-studio run {scorer} {dataset} --resume {run_id}"
        )
        raise typer.Exit(130) from None
    finally:
        if shards is not None:
            asyncio.run(shards.close())
        made.dispose()
    out.print(summary_table(summary))
    end_if_stopped(
        summary, resume=f"scorer-studio run {scorer} {dataset} --resume {run_id} --max-cost DOLLARS"
    )
    if summary.verdict == "fail":
        mean = "no scores" if summary.mean is None else f"mean {summary.mean:.3f}"
        console(stderr=True).print(
            styled("red", "below the threshold:", f" {mean} < {fail_under:g}")
        )
        raise typer.Exit(1)


def join_engine(name: str, address: str | None, actors: int | None) -> RayPool | None:
    """The Ray actors that score the run (None: the local engine); fails in words, within
    seconds, when the cluster does not answer."""
    if name == "local":
        if address is not None:
            raise ValueError("--address names a Ray cluster: use it with --engine ray")
        return None
    if name != "ray":
        raise ValueError(f"unknown engine {name!r}: use local or ray")
    try:
        from scorer_runtime.batch.ray_engine import RayPool
    except ImportError:
        raise ValueError(
            "the ray engine needs Ray: install it with pip install 'scorer-studio[ray]'"
        ) from None
    return RayPool.join(address, actors=actors)


def _chosen(
    opened: Session, scorer: str, dataset: str, version: int | None, resume: int | None
) -> tuple[ScorerVersionInfo, int]:
    """The scorer version to run and the dataset's id (for ``resume``, the run's own)."""
    from scorer_runtime.store import (
        ConflictError,
        get_dataset,
        get_run,
        get_scorer,
        get_version,
        get_version_by_id,
    )

    scorer_record = get_scorer(opened, name=scorer)
    dataset_record = get_dataset(opened, name=dataset)
    assert scorer_record.id is not None
    assert dataset_record.id is not None
    if resume is None:
        return get_version(opened, scorer_id=scorer_record.id, version=version), dataset_record.id
    existing = get_run(opened, run_id=resume)
    version_record = get_version_by_id(opened, version_id=existing.scorer_version_id)
    if existing.scorer_id != scorer_record.id or existing.dataset_id != dataset_record.id:
        raise ConflictError(f"run {resume} is not a run of scorer {scorer} on dataset {dataset}")
    if version is not None and version != version_record.version:
        raise ConflictError(f"run {resume} ran version {version_record.version}, not {version}")
    return version_record, dataset_record.id


def _print_estimate(
    scorer: str,
    dataset: str,
    version: int | None,
    resume: int | None,
    api_base: str | None,
    *,
    use_cache: bool = True,
) -> None:
    """``run --estimate``: what the run would cost, printed; nothing is stored."""
    from scorer_runtime.cli.costs import estimate_for
    from scorer_runtime.saved_scorers import scorer_source
    from scorer_runtime.store import session_scope

    made = engine()
    try:
        with session_scope(made) as opened:
            version_record, dataset_id = _chosen(opened, scorer, dataset, version, resume)
            source = scorer_source(opened, version_record, api_base=api_base)
        found = estimate_for(
            made, source.build(), dataset_id=dataset_id, run_id=resume, use_cache=use_cache
        )
    finally:
        made.dispose()
    what = f"Resuming run {resume}" if resume is not None else f"Scoring {dataset} with {scorer}"
    console().print(f"{what} v{version_record.version}: {found.describe()}")
    if found.sampled < found.examples:
        console().print(
            f"Estimated from {found.sampled} of the {found.examples:,} examples, in "
            f"{found.seconds:.2f} s."
        )


def _run_with_progress(runner: BatchRunner, out: Console) -> BatchSummary:
    from scorer_runtime.batch.pace import pace_words
    from scorer_runtime.cli.report import run_progress
    from scorer_runtime.money import describe_cost

    with run_progress(out) as bar:
        task = bar.add_task("scoring", total=None, failures=0, cost="—", pace="")

        def progress(p: BatchProgress) -> None:
            cost = describe_cost(p.cost, p.priced, p.unpriced)
            pace = pace_words(p.pace, p.total - p.done) or ""
            bar.update(
                task, completed=p.done, total=p.total, failures=p.failures, cost=cost, pace=pace
            )

        runner.progress = progress
        summary: BatchSummary = asyncio.run(runner.run())
    return summary


# -- history -----------------------------------------------------------------------------------


@friendly
def history(
    scorer: Annotated[str, typer.Argument(help="Name of the scorer.")],
    version: int | None = typer.Option(None, help="Only this version."),
    dataset: str | None = typer.Option(None, help="Only this dataset."),
    run_id: int | None = typer.Option(None, "--run", help="Only this run."),
    outcome: Annotated[
        list[str] | None, typer.Option(help="Only these outcomes (repeatable).")
    ] = None,
    limit: int = typer.Option(20, min=1, max=1000, help="How many scores to show."),
) -> None:
    """Show SCORER's newest scores."""
    from scorer_runtime.cli.report import scores_table
    from scorer_runtime.store import (
        ScoreFilter,
        get_dataset,
        get_scorer,
        get_version,
        list_scores,
    )
    from scorer_runtime.types import OUTCOMES

    bad = sorted(set(outcome or ()) - set(OUTCOMES))
    if bad:
        raise ValueError(f"unknown outcome {', '.join(bad)}; outcomes: {', '.join(OUTCOMES)}")
    with session() as opened:
        record = get_scorer(opened, name=scorer)
        assert record.id is not None
        version_id = (
            get_version(opened, scorer_id=record.id, version=version).id if version else None
        )
        dataset_id = get_dataset(opened, name=dataset).id if dataset else None
        query = ScoreFilter(
            scorer_id=record.id,
            scorer_version_id=version_id,
            dataset_id=dataset_id,
            run_id=run_id,
            outcomes=tuple(outcome) if outcome else None,
        )
        page = list_scores(opened, filter=query, limit=limit)
    if not page.rows:
        console().print(
            f"No scores for {scorer} yet. Run it with: scorer-studio run {scorer} DATASET"
        )
        return
    console().print(scores_table(page.rows, title=f"Newest scores of {scorer}"))
