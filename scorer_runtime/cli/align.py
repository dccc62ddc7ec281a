"""``scorer-studio align``: improve a judge from people's grades, proven on a holdout."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Annotated

import typer

from scorer_runtime.cli.support import console, engine, friendly, load_env_file

if TYPE_CHECKING:
    from rich.console import Console
    from sqlalchemy import Engine

    from scorer_runtime.cli.costs import CapOption
    from scorer_runtime.trust.align import AlignPlan, AlignReport, Candidates


@friendly
def align(
    scorer: Annotated[str, typer.Argument(help="Name of the scorer.")],
    version: int | None = typer.Option(None, help="Scorer version (default: the latest)."),
    seed: int = typer.Option(0, help="Seed of the split: the same grades and seed, the same."),
    max_cost: str | None = typer.Option(
        None,
        "--max-cost",
        help="Spend cap of the whole alignment in dollars (writing the guidelines included), "
        "shared equally by its runs. Default: the judge's default cap for each run, if it "
        "has one; 'none': no cap.",
    ),
    allow_unpriced: bool = typer.Option(
        False, "--allow-unpriced", help="With --max-cost: run even though a model has no price."
    ),
    guidelines_judge: str | None = typer.Option(
        None,
        "--guidelines-judge",
        help="A saved judge that writes the guidelines (default: the scorer's own judge).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Improve SCORER's judge from people's grades: build candidates (guidelines written from
    people's notes, worked examples, both) from two thirds of the graded examples, measure
    them against the current version on the third held out, and save the best as a new
    version, not approved, when it agrees with people better there."""
    load_env_file()
    from scorer_runtime.cli.costs import CapOption
    from scorer_runtime.cli.stability import _version_id
    from scorer_runtime.store import read_session
    from scorer_runtime.trust.align import (
        check_alignment_cap,
        plan_alignment,
        prepare_candidates,
    )

    cap = CapOption.read(max_cost, allow_unpriced)  # a bad cap is refused before anything
    made = engine()
    out = console(stderr=as_json)  # with --json, standard output is the JSON alone
    try:
        with read_session(made) as session:
            plan = plan_alignment(
                session, scorer_version_id=_version_id(session, scorer, version), seed=seed
            )
        out.print(f"Improving scorer {scorer} v{plan.version}: {plan.describe()}", soft_wrap=True)
        out.print(_estimate_words(made, plan, cap), soft_wrap=True)
        check_alignment_cap(made, plan, max_cost=cap.max_cost, allow_unpriced=cap.allow_unpriced)
        candidates = asyncio.run(prepare_candidates(made, plan, guidelines_judge=guidelines_judge))
        _print_candidates(candidates, out)
        report = _run_with_progress(made, plan, candidates, out, cap)
    finally:
        made.dispose()
    if as_json:
        typer.echo(json.dumps(report.as_json(), indent=2))
        return
    _print_report(report, console())


def _estimate_words(made: Engine, plan: AlignPlan, cap: CapOption) -> str:
    from scorer_runtime.money import format_dollars
    from scorer_runtime.trust.align import estimate_alignment

    found = asyncio.run(estimate_alignment(made, plan))
    said = f"Scoring the current version and the candidates: {found.cost_words()}"
    if isinstance(cap.max_cost, float):
        said += f" The whole alignment stops at {format_dollars(cap.max_cost)} (--max-cost)."
    return said


def _print_candidates(candidates: Candidates, out: Console) -> None:
    from rich.markup import escape

    out.print("Guidelines written from the tuning part's disagreements:")
    for line in candidates.guidelines.lines:
        out.print(f"  - {escape(line)}", soft_wrap=True)
    for kind, why in candidates.skipped.items():
        out.print(f"Not tried: {kind.replace('_', ' ')} ({escape(why)}).", soft_wrap=True)


def _run_with_progress(
    made: Engine, plan: AlignPlan, candidates: Candidates, out: Console, cap: CapOption
) -> AlignReport:
    from scorer_runtime.batch import BatchProgress
    from scorer_runtime.cli.report import run_progress
    from scorer_runtime.money import describe_cost
    from scorer_runtime.trust.align import run_alignment

    names = ["current", *(c.kind for c in candidates.items)]
    with run_progress(out) as bar:
        tasks = {
            name: bar.add_task(name.replace("_", " "), total=None, failures=0, cost="—", pace="")
            for name in names
        }

        def progress(kind: str, p: BatchProgress) -> None:
            cost = describe_cost(p.cost, p.priced, p.unpriced)
            bar.update(tasks[kind], completed=p.done, total=p.total, failures=p.failures, cost=cost)

        aligned = run_alignment(
            made,
            plan,
            candidates,
            max_cost=cap.max_cost,
            allow_unpriced=cap.allow_unpriced,
            progress=progress,
        )
        return asyncio.run(aligned)


def _kappa(figures: dict[str, float | int | None]) -> str:
    value, low, high = figures["kappa"], figures["ci_low"], figures["ci_high"]
    if value is None or low is None or high is None:
        return "kappa cannot be measured"
    return f"kappa {value:.2f} (95 % interval {low:.2f} to {high:.2f})"


def _print_report(report: AlignReport, out: Console) -> None:
    from rich.markup import escape

    data = report.as_json()
    current = data["current"]
    out.print(
        f"Current version {report.plan.version}: holdout {_kappa(current)}, "
        f"tuning part {_kappa(current['tuning'])}.",
        soft_wrap=True,
    )
    for c in data["candidates"]:
        p = "not testable" if c["mcnemar_p"] is None else f"{c['mcnemar_p']:.3g}"
        saved = f" Saved as version {c['version']}." if c["version"] is not None else ""
        out.print(
            f"{escape(c['what_changed']).capitalize()}: holdout {_kappa(c['holdout'])}, tuning "
            f"part {_kappa(c['tuning'])}, McNemar p = {p}.{saved}",
            soft_wrap=True,
        )
    out.print(escape(report.words()), soft_wrap=True)
