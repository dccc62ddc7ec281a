"""``scorer-studio run --queue``: enqueue a run for a runner and follow it to its end."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from scorer_runtime.cli.support import console, engine, styled

if TYPE_CHECKING:
    from rich.console import Console
    from sqlalchemy import Engine

    from scorer_runtime.store import RunInfo


def run_queued(
    scorer: str,
    dataset: str,
    *,
    version: int | None,
    concurrency: int,
    fail_under: float | None,
    use_cache: bool = True,
    max_cost: float | None = None,
    default_cap: bool = False,
    allow_unpriced: bool = False,
) -> None:
    """Queue the run (refused, in words, when a judge's key is not set here), print its
    progress as the runner stores each result, then its summary; exit 1 below the mark.
    ``default_cap``: no cap was given, so the judge's default cap (if any) applies."""
    from scorer_runtime.batch import summarize_run
    from scorer_runtime.batch.queue import runner_alive
    from scorer_runtime.cli.costs import end_if_stopped, say_default_cap
    from scorer_runtime.cli.report import summary_table
    from scorer_runtime.costs.cap import JUDGE_CAP
    from scorer_runtime.runs import RunRequest, plan_run, start_run
    from scorer_runtime.store import get_dataset, get_scorer, get_version, read_session

    made = engine()
    try:
        with read_session(made) as opened:
            scorer_id = get_scorer(opened, name=scorer).id
            dataset_id = get_dataset(opened, name=dataset).id
            assert scorer_id is not None
            assert dataset_id is not None
            chosen = get_version(opened, scorer_id=scorer_id, version=version)
            assert chosen.id is not None
        request = RunRequest(
            chosen.id,
            dataset_id,
            where="queue",
            concurrency=concurrency,
            use_cache=use_cache,
            max_cost=JUDGE_CAP if default_cap else max_cost,
            allow_unpriced=allow_unpriced,
        )
        plan = plan_run(made, request)  # refused in words: no key here, a cap it cannot keep
        say_default_cap(plan)
        run = start_run(made, plan)
        out = console()
        out.print(
            f"Run {run.id} queued: scorer {scorer} v{chosen.version} on dataset {dataset} "
            f"(concurrency {concurrency})"
        )
        if not runner_alive(made):
            out.print(
                "No runner serves this database right now: the run waits until one starts "
                "(scorer-studio worker, or the studio's)."
            )
        _follow(made, run.id, out, scorer=scorer)
        with read_session(made) as opened:
            summary = summarize_run(opened, run_id=run.id, threshold=fail_under)
    finally:
        made.dispose()
    out.print(summary_table(summary))
    end_if_stopped(summary, resume="the Runs page of the studio (its 'Stop at $' box)")
    if summary.verdict == "fail":
        mean = "no scores" if summary.mean is None else f"mean {summary.mean:.3f}"
        console(stderr=True).print(
            styled("red", "below the threshold:", f" {mean} < {fail_under:g}")
        )
        raise typer.Exit(1)


def _follow(made: Engine, run_id: int, out: Console, *, scorer: str) -> None:
    """A progress bar moved by the run's row until the run ends; Ctrl-C cancels the run."""
    from scorer_runtime.batch.pace import RunPace, pace_words
    from scorer_runtime.batch.queue import follow_run
    from scorer_runtime.cli.report import STATUS_WORDS, run_progress
    from scorer_runtime.money import format_dollars
    from scorer_runtime.store import request_cancel, session_scope

    with run_progress(out) as bar:
        task = bar.add_task("queued", total=None, failures=0, cost="—", pace="")

        def seen(run: RunInfo) -> None:
            bar.update(
                task,
                description="scoring"
                if run.status == "running"
                else STATUS_WORDS.get(run.status, run.status),
                completed=run.done_count,
                total=run.total,
                failures=run.failed_count,
                cost=format_dollars(run.cost),
                pace=pace_words(RunPace.from_data(run.pace), run.total - run.done_count) or "",
            )

        try:
            ended = follow_run(made, run_id, seen=seen)
        except KeyboardInterrupt:
            with session_scope(made) as session:
                request_cancel(session, run_id=run_id)
            console(stderr=True).print(
                f"Run {run_id} cancelled; what finished is saved. Resume it from the studio."
            )
            raise typer.Exit(130) from None
    if ended.status == "failed":
        raise ValueError(f"run {run_id} of {scorer} stopped: {ended.error or 'no message kept'}")
