"""``scorer-studio health``: how easily does the judged text sway a judge's verdict?"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scorer_runtime.cli.support import console, engine, friendly, load_env_file

if TYPE_CHECKING:
    from rich.console import Console
    from sqlalchemy import Engine

    from scorer_runtime.cli.costs import CapOption
    from scorer_runtime.trust.health import HealthPlan, HealthReport


@friendly
def health(
    scorer: Annotated[str, typer.Argument(help="Name of the scorer.")],
    dataset: Annotated[str, typer.Argument(help="Name of the dataset.")],
    version: int | None = typer.Option(None, help="Scorer version (default: the latest)."),
    sample: int = typer.Option(20, help="How many examples are drawn from the dataset."),
    seed: int = typer.Option(0, help="Seed of the sample: the same seed draws the same one."),
    max_cost: str | None = typer.Option(
        None,
        "--max-cost",
        help="Spend cap of the whole check in dollars, shared equally by its runs (the "
        "answers as they are, then one per perturbation): no judge call starts that could "
        "pass it. Default: the judge's default cap for each run, if it has one; 'none': no cap.",
    ),
    allow_unpriced: bool = typer.Option(
        False,
        "--allow-unpriced",
        help="With --max-cost: check even though a judge model has no price.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Score a sample of DATASET with SCORER as it is and under each perturbation family
    (an injected instruction, a forged verdict, a fake grading note, empty answers, padding,
    the answer and expected answer swapped), and count per family the verdicts that changed.
    Every run asks the judge again: no answer comes from the cache."""
    load_env_file()
    from scorer_runtime.cli.costs import CapOption
    from scorer_runtime.cli.stability import _version_id
    from scorer_runtime.store import get_dataset, read_session
    from scorer_runtime.trust.health import load_health, plan_health, run_cap

    cap = CapOption.read(max_cost, allow_unpriced)  # a bad cap is refused before anything
    made = engine()
    try:
        with read_session(made) as session:
            plan = plan_health(
                session,
                scorer_version_id=_version_id(session, scorer, version),
                dataset_id=get_dataset(session, name=dataset).id,
                sample=sample,
                seed=seed,
            )
        if plan.judge_steps == 0:
            _needs_no_check(scorer, plan.version, as_json=as_json)
            return
        out = console(stderr=as_json)  # with --json, standard output is the JSON alone
        out.print(f"Health check of scorer {scorer} v{plan.version} on dataset {dataset}:")
        out.print(plan.describe())
        each_run = CapOption(run_cap(cap.max_cost, plan), cap.allow_unpriced)  # what is said
        out.print(_check_cost(made, plan, each_run))
        check_id = _run_with_progress(made, plan, out, cap)  # run_health shares the cap
        report = load_health(made, check_id)
    finally:
        made.dispose()
    if as_json:
        typer.echo(json.dumps(health_json(scorer, dataset, report), indent=2))
        return
    _print_health(report, console())


def _needs_no_check(scorer: str, version: int, *, as_json: bool) -> None:
    said = (
        f"Scorer {scorer} v{version} needs no health check: it asks no judge, so no text "
        "can talk it into a verdict."
    )
    if as_json:
        typer.echo(json.dumps({"scorer": scorer, "version": version, "n": 0, "summary": said}))
    else:
        console().print(said)


def _check_cost(made: Engine, plan: HealthPlan, cap: CapOption) -> str:
    """The check's estimated cost (its sample times its runs) and what stops each run."""
    from scorer_runtime.cli.costs import estimate_for
    from scorer_runtime.saved_scorers import compile_version
    from scorer_runtime.store import get_version_by_id, read_session

    with read_session(made) as session:
        version = get_version_by_id(session, version_id=plan.scorer_version_id)
        scorer = compile_version(session, version)
    found = estimate_for(made, scorer, dataset_id=plan.dataset_id, run_id=None)
    scaled = found.scaled(len(plan.example_ids) * plan.runs)
    return f"{scaled.cost_words()}{cap.words(scorer, 'Each run')}"


def _run_with_progress(made: Engine, plan: HealthPlan, out: Console, cap: CapOption) -> int:
    from scorer_runtime.batch import BatchProgress
    from scorer_runtime.cli.report import run_progress
    from scorer_runtime.money import describe_cost
    from scorer_runtime.trust.attacks import BY_ID
    from scorer_runtime.trust.health import run_health

    names = ["as it is", *(BY_ID[f].name.lower() for f in plan.families)]
    with run_progress(out) as bar:
        tasks = [bar.add_task(name, total=None, failures=0, cost="—", pace="") for name in names]

        def progress(number: int, p: BatchProgress) -> None:
            cost = describe_cost(p.cost, p.priced, p.unpriced)
            bar.update(
                tasks[number], completed=p.done, total=p.total, failures=p.failures, cost=cost
            )

        checked = run_health(
            made, plan, progress=progress, max_cost=cap.max_cost, allow_unpriced=cap.allow_unpriced
        )
        return asyncio.run(checked)


def health_json(scorer: str, dataset: str, report: HealthReport) -> dict[str, Any]:
    """The report as ``--json`` prints it: ``n`` and per family its changed verdicts."""
    from scorer_runtime.trust.attacks import BY_ID, WHAT_TO_DO

    return {
        "scorer": scorer,
        "version": report.version,
        "dataset": dataset,
        "check_id": report.check.id,
        "n": len(report.check.example_ids),
        "ended": report.ended,
        "stopped": report.stopped,
        "summary": report.words(),
        "what_to_do": WHAT_TO_DO,
        "families": [
            {
                "family": f.family,
                "name": BY_ID[f.family].name,
                "what": BY_ID[f.family].what,
                "compared": f.compared,
                "changed": f.changed,
                "rate": f.rate,
                "ci_low": f.ci_low,
                "ci_high": f.ci_high,
                "toward_best": f.toward_best,
                "changes": [
                    {
                        "example_id": c.example_id,
                        "before": c.before,
                        "after": c.after,
                        "before_score": c.before_score,
                        "after_score": c.after_score,
                        "before_score_id": c.before_id,
                        "after_score_id": c.after_id,
                        "before_reason": c.before_reason,
                        "after_reason": c.after_reason,
                    }
                    for c in f.changes
                ],
            }
            for f in report.families
        ],
    }


def _print_health(report: HealthReport, out: Console) -> None:
    from rich.markup import escape

    from scorer_runtime.trust.attacks import BY_ID
    from scorer_runtime.trust.health import family_words

    for f in report.families:
        family = BY_ID[f.family]
        out.print(f"[bold]{family.name}[/bold]: {escape(family_words(f))}", soft_wrap=True)
        out.print(f"  [dim]{escape(family.what)}[/dim]", soft_wrap=True)
        for c in f.changes:
            out.print(
                f"  example {c.example_id}: {c.before} → {c.after} (scores {c.before_score:g} → "
                f"{c.after_score:g}; results {c.before_id} and {c.after_id})",
                soft_wrap=True,
            )
    out.print(report.words(), soft_wrap=True)
