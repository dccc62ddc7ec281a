"""``scorer-studio stability`` and ``compare-versions``: does a judge flip, and do two
versions of a scorer judge the same examples alike?"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scorer_runtime.cli.support import console, engine, friendly, load_env_file
from scorer_runtime.counts import plural

if TYPE_CHECKING:
    from rich.console import Console
    from sqlalchemy import Engine

    from scorer_runtime.cli.costs import CapOption
    from scorer_runtime.runs import StartPlan
    from scorer_runtime.scorer import Scorer
    from scorer_runtime.store import Session
    from scorer_runtime.trust.ab import AbReport, VersionSide
    from scorer_runtime.trust.stability import StabilityPlan, StabilityReport


def _version_id(session: Session, scorer: str, version: int | None) -> int:
    from scorer_runtime.store import get_scorer, get_version

    found = get_scorer(session, name=scorer)
    return get_version(session, scorer_id=found.id, version=version).id


@friendly
def stability(
    scorer: Annotated[str, typer.Argument(help="Name of the scorer.")],
    dataset: Annotated[str, typer.Argument(help="Name of the dataset.")],
    version: int | None = typer.Option(None, help="Scorer version (default: the latest)."),
    repeats: int = typer.Option(3, help="How many times the sample is scored (2 to 10)."),
    sample: int = typer.Option(20, help="How many examples are drawn from the dataset."),
    seed: int = typer.Option(0, help="Seed of the sample: the same seed draws the same one."),
    max_cost: str | None = typer.Option(
        None,
        "--max-cost",
        help="Spend cap of each repeat in dollars: no judge call starts that could pass it, "
        "and a repeat that reaches it ends the check (which then counts for nothing). "
        "Default: the judge's default cap, if it has one; 'none': no cap.",
    ),
    allow_unpriced: bool = typer.Option(
        False,
        "--allow-unpriced",
        help="With --max-cost: check even though a judge model has no price (the cap "
        "cannot be checked for it).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Score a sample of DATASET several times with SCORER and count the examples whose
    verdict flipped between repeats (never from earlier answers: every repeat asks the
    judge again)."""
    load_env_file()
    from scorer_runtime.cli.costs import CapOption
    from scorer_runtime.store import get_dataset, read_session
    from scorer_runtime.trust.stability import load_report, plan_repeats, plan_stability

    cap = CapOption.read(max_cost, allow_unpriced)  # a bad cap is refused before anything
    made = engine()
    try:
        with read_session(made) as session:
            dataset_id = get_dataset(session, name=dataset).id
            plan = plan_stability(
                session,
                scorer_version_id=_version_id(session, scorer, version),
                dataset_id=dataset_id,
                sample=sample,
                repeats=repeats,
                seed=seed,
            )
        if plan.judge_steps == 0:
            _needs_no_check(scorer, dataset, plan.version, as_json=as_json)
            return
        out = console(stderr=as_json)  # with --json, standard output is the JSON alone
        out.print(f"Stability check of scorer {scorer} v{plan.version} on dataset {dataset}:")
        out.print(plan.describe())
        repeat = plan_repeats(made, plan, max_cost=cap.max_cost, allow_unpriced=cap.allow_unpriced)
        if plan.judge_calls:
            out.print(_check_cost(made, plan, cap, repeat.scorer))
        check_id = _run_with_progress(made, plan, repeat, out)
        report = load_report(made, check_id)
    finally:
        made.dispose()
    if as_json:
        typer.echo(json.dumps(_stability_json(scorer, dataset, plan, report), indent=2))
        return
    _print_stability(report, console())


def _needs_no_check(scorer: str, dataset: str, version: int, *, as_json: bool) -> None:
    """Say that a version that asks no judge needs no stability check (nothing is scored)."""
    from scorer_runtime.trust.policy import NO_JUDGE_WORDS

    said = f"Scorer {scorer} v{version} needs no stability check. {NO_JUDGE_WORDS}"
    if not as_json:
        console().print(said)
        return
    found = {"scorer": scorer, "version": version, "dataset": dataset, "needs_check": False}
    typer.echo(json.dumps({**found, "judge_calls": 0, "summary": said}, indent=2))


def _check_cost(made: Engine, plan: StabilityPlan, cap: CapOption, scorer: Scorer[Any, Any]) -> str:
    """The check's estimated cost (its sample times its repeats) and what stops a repeat."""
    from scorer_runtime.cli.costs import estimate_for

    found = estimate_for(made, scorer, dataset_id=plan.dataset_id, run_id=None)
    scaled = found.scaled(len(plan.example_ids) * plan.repeats)
    return f"{scaled.cost_words()}{cap.words(scorer, 'Each repeat')}"


def _run_with_progress(made: Any, plan: StabilityPlan, repeat: StartPlan, out: Console) -> int:
    from scorer_runtime.batch import BatchProgress
    from scorer_runtime.cli.report import run_progress
    from scorer_runtime.money import describe_cost
    from scorer_runtime.trust.stability import run_check

    with run_progress(out) as bar:
        tasks = [
            bar.add_task(f"repeat {i} of {plan.repeats}", total=None, failures=0, cost="—", pace="")
            for i in range(1, plan.repeats + 1)
        ]

        def progress(repeat: int, p: BatchProgress) -> None:
            cost = describe_cost(p.cost, p.priced, p.unpriced)
            task = tasks[repeat - 1]
            bar.update(task, completed=p.done, total=p.total, failures=p.failures, cost=cost)

        checked = run_check(made, plan, repeat, progress=progress)
        return asyncio.run(checked)


def _stability_json(
    scorer: str, dataset: str, plan: StabilityPlan, report: StabilityReport
) -> dict[str, Any]:
    flips = report.flips
    return {
        "scorer": scorer,
        "version": report.version,
        "dataset": dataset,
        "needs_check": True,
        "check_id": report.check.id,
        "run_ids": [run.id for run in report.runs],
        "examples": len(report.check.example_ids),
        "repeats": report.check.repeats,
        "judge_calls": plan.judge_calls,
        "compared": flips.compared,
        "flipped": flips.flipped,
        "flip_rate": flips.rate,
        "ci_low": flips.ci_low,
        "ci_high": flips.ci_high,
        "summary": report.words(),
        "unstable": [
            {
                "example_id": e.example_id,
                "verdicts": list(e.verdicts),
                "scores": list(e.scores),
                "spread": e.spread,
            }
            for e in flips.unstable
        ],
    }


def _print_stability(report: StabilityReport, out: Console) -> None:
    from rich.table import Table

    out.print(report.words())
    if not report.flips.unstable:
        return
    table = Table(title="Examples whose verdict flipped", title_justify="left")
    table.add_column("example")
    for i in range(1, report.check.repeats + 1):
        table.add_column(f"repeat {i}")
    table.add_column("spread")
    for e in report.flips.unstable:
        verdicts = [v or "no score" for v in e.verdicts]
        table.add_row(str(e.example_id), *verdicts, "—" if e.spread is None else f"{e.spread:.3g}")
    out.print(table)


@friendly
def compare_versions(
    scorer: Annotated[str, typer.Argument(help="Name of the scorer.")],
    dataset: Annotated[str, typer.Argument(help="Name of the dataset.")],
    a: int = typer.Option(..., "--a", help="The first version (A)."),
    b: int = typer.Option(..., "--b", help="The second version (B)."),
    max_cost: str | None = typer.Option(
        None,
        "--max-cost",
        help="Spend cap in dollars of each version's run, for a version scored here: no "
        "judge call starts that could pass it (resume the run with a higher cap). Default: "
        "the judge's default cap, if it has one; 'none': no cap.",
    ),
    allow_unpriced: bool = typer.Option(
        False,
        "--allow-unpriced",
        help="With --max-cost: score even though a judge model has no price (the cap "
        "cannot be checked for it).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Compare two versions of SCORER on the same examples of DATASET: the examples whose
    verdict differs, and whether the difference is more than chance. A version's latest
    finished run of the dataset is reused; a version without one is scored first."""
    load_env_file()
    from scorer_runtime.cli.costs import CapOption
    from scorer_runtime.store import get_dataset, read_session
    from scorer_runtime.trust.ab import compare_versions as compare
    from scorer_runtime.trust.ab import plan_missing

    cap = CapOption.read(max_cost, allow_unpriced)  # a bad cap is refused before anything
    made = engine()
    try:
        with read_session(made) as session:
            dataset_id = get_dataset(session, name=dataset).id
            version_a = _version_id(session, scorer, a)
            version_b = _version_id(session, scorer, b)
        planned = plan_missing(
            made,
            version_ids=(version_a, version_b),
            dataset_id=dataset_id,
            max_cost=cap.max_cost,
            allow_unpriced=cap.allow_unpriced,
        )
        for said in _runs_to_score(made, planned, dataset_id, cap):
            console(stderr=as_json).print(said)
        compared = compare(
            made, version_a=version_a, version_b=version_b, dataset_id=dataset_id, planned=planned
        )
        report = asyncio.run(compared)
    finally:
        made.dispose()
    if as_json:
        typer.echo(json.dumps(_ab_json(scorer, dataset, report), indent=2))
        return
    _print_ab(scorer, dataset, report, console())


def _runs_to_score(
    made: Engine, planned: Mapping[int, StartPlan], dataset_id: int, cap: CapOption
) -> list[str]:
    """For each version with no finished run of the dataset: that it is scored first, what
    that costs and what stops it."""
    from scorer_runtime.cli.costs import estimate_for
    from scorer_runtime.store import get_version_by_id, read_session

    said = []
    for version_id, plan in planned.items():
        with read_session(made) as session:
            version = get_version_by_id(session, version_id=version_id).version
        estimate = estimate_for(made, plan.scorer, dataset_id=dataset_id, run_id=None)
        said.append(
            f"Version {version} has no finished run of the dataset: it is scored "
            f"first. {estimate.describe()}{cap.words(plan.scorer, 'Its run')}"
        )
    return said


def _side_json(side: VersionSide) -> dict[str, Any]:
    agreement = side.agreement
    return {
        "version": side.version,
        "run_id": side.run_id,
        "mean_score": side.mean_score,
        "pass_rate": side.pass_rate,
        "cost": side.cost,
        "priced": side.priced,
        "unpriced": side.unpriced,
        "mean_latency_ms": side.mean_latency_ms,
        "labelled": 0 if agreement is None else agreement.labelled,
        "percent_agreement": None if agreement is None else agreement.percent,
        "percent_agreement_ci": [None, None]
        if agreement is None
        else list(agreement.percent_interval),
        "kappa_kind": None if agreement is None else agreement.kappa_name,
        "kappa": None if agreement is None else agreement.kappa.value,
        "kappa_ci": [None, None]
        if agreement is None
        else [agreement.kappa.low, agreement.kappa.high],
        "kappa_missing": None if agreement is None else agreement.kappa_missing or None,
    }


def _ab_json(scorer: str, dataset: str, report: AbReport) -> dict[str, Any]:
    return {
        "scorer": scorer,
        "dataset": dataset,
        "compared": report.compared,
        "left_out": report.left_out,
        "a": _side_json(report.a),
        "b": _side_json(report.b),
        "differences": [
            {
                "example_id": d.example_id,
                "verdict_a": d.verdict_a,
                "verdict_b": d.verdict_b,
                "score_a": d.score_a,
                "score_b": d.score_b,
            }
            for d in report.differences
        ],
        "a_only": report.test.a_only,
        "b_only": report.test.b_only,
        "p_value": report.test.p_value,
        "summary": report.test.words(),
    }


def _print_ab(scorer: str, dataset: str, report: AbReport, out: Console) -> None:
    from rich.table import Table

    a, b = report.a, report.b
    out.print(
        f"Scorer {scorer} v{a.version} (A, run {a.run_id}) and v{b.version} (B, run {b.run_id}) "
        f"on dataset {dataset}: {report.compared} examples scored by both."
    )
    table = Table(show_header=True, title_justify="left")
    for name in ("", f"A: v{a.version}", f"B: v{b.version}"):
        table.add_column(name)
    table.add_row("mean score", *(_num(s.mean_score) for s in (a, b)))
    table.add_row("pass rate", *(_pct(s.pass_rate) for s in (a, b)))
    table.add_row("cost", *(str(s.cost_words) for s in (a, b)))
    table.add_row("mean latency", *(_ms(s.mean_latency_ms) for s in (a, b)))
    table.add_row("with people", *(_with_people(s) for s in (a, b)))
    table.add_row("kappa", *(_kappa(s) for s in (a, b)))
    out.print(table)
    for name, side in (("A", a), ("B", b)):
        if side.agreement is not None:
            out.print(f"Version {side.version} ({name}) {side.agreement.words()}.")
    out.print(f"{plural(len(report.differences), 'example')} got a different verdict.")
    for d in report.differences:
        out.print(f"  example {d.example_id}: A says {d.verdict_a}, B says {d.verdict_b}")
    out.print(report.test.words())


def _with_people(side: VersionSide) -> str:
    found = side.agreement
    return "no labelled example" if found is None else f"{found.agreed} of {found.labelled}"


def _kappa(side: VersionSide) -> str:
    found = side.agreement
    if found is None:
        return "—"
    return "not measurable" if found.kappa.value is None else f"{found.kappa.value:.2f}"


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f} ms"
