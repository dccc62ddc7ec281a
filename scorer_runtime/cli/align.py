"""``scorer-studio align``: improve a judge from people's grades, proven on a holdout."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Annotated

import typer

from scorer_runtime.cli.support import console, engine, fail, friendly, load_env_file

if TYPE_CHECKING:
    from rich.console import Console

    from scorer_runtime.trust.align import AlignReport, Figures


@friendly
def align(
    scorer: Annotated[str, typer.Argument(help="Name of the scorer.")],
    version: int | None = typer.Option(None, help="Scorer version (default: the latest)."),
    max_cost: str | None = typer.Option(
        None,
        "--max-cost",
        help="Spend cap in dollars for writing guidelines and scoring every candidate: no "
        "example starts that could pass it. Default: the judge's default cap, if it has one; "
        "'none': no cap.",
    ),
    guidelines_judge: str | None = typer.Option(
        None,
        "--guidelines-judge",
        help="A saved judge that writes the guidelines (default: the scorer's own judge).",
    ),
    concurrency: int = typer.Option(4, min=1, max=64, help="Examples scored at once."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Try to improve SCORER's judge from people's grades: split the graded examples into a
    tuning part and a holdout of a third, build candidates from the tuning part (worked
    examples, guidelines, both), score them on the holdout and save the best as a new version
    when it agrees with people better there. The new version is never approved."""
    load_env_file()
    from scorer_runtime.cli.stability import _version_id
    from scorer_runtime.costs.cap import read_cap
    from scorer_runtime.store import read_session
    from scorer_runtime.trust.align import (
        HOLDOUT_WORDS,
        NotReadyError,
        candidate_specs,
        default_cap,
        estimate_candidates,
        plan_align,
        save_best,
        try_candidates,
        write_guidelines,
    )

    typed_cap = None if max_cost is None else read_cap(max_cost)
    made = engine()
    out = console(stderr=as_json)  # with --json, standard output is the JSON alone
    try:
        with read_session(made) as session:
            version_id = _version_id(session, scorer, version)
        try:
            plan = plan_align(made, scorer_version_id=version_id)
        except NotReadyError as e:
            raise fail(str(e)) from None
        cap = default_cap(made, plan) if max_cost is None else typed_cap
        split = plan.split
        out.print(
            f"Improving scorer {scorer} v{plan.version}: {len(split.tuning)} graded examples to "
            f"learn from, {len(split.holdout)} kept apart. {HOLDOUT_WORDS}",
            markup=False,
        )
        guidelines, spent = asyncio.run(write_guidelines(made, plan, profile=guidelines_judge))
        out.print(_guidelines_words(guidelines), markup=False)
        candidates = candidate_specs(made, plan, guidelines)
        estimate = asyncio.run(estimate_candidates(made, plan, candidates))
        if estimate is not None:
            each = len(split.tuning) + len(split.holdout)
            out.print(
                f"Scoring {len(candidates)} candidates on the {each} graded examples each: "
                + estimate.describe(),
                markup=False,
            )
        report = asyncio.run(
            try_candidates(
                made,
                plan,
                candidates,
                guidelines=guidelines,
                max_cost=cap,
                spent=spent,
                concurrency=concurrency,
            )
        )
        report = save_best(made, report)
    finally:
        made.dispose()
    total = report.cost + spent
    if as_json:
        typer.echo(json.dumps({**report.as_json(), "cost": total}, indent=2))
        return
    _print_report(report, total, console())


def _guidelines_words(guidelines: list[str]) -> str:
    if not guidelines:
        return "The judge model wrote no guidelines: only worked examples are tried."
    return "Guidelines written from the disagreements:\n" + "\n".join(f"- {g}" for g in guidelines)


def _print_report(report: AlignReport, cost: float, out: Console) -> None:
    from rich.table import Table

    from scorer_runtime.money import format_dollars
    from scorer_runtime.trust.align import NOT_APPROVED_WORDS, evidence_words
    from scorer_runtime.trust.align_candidates import KIND_WORDS

    table = Table(
        title="Agreement with people (Cohen's kappa, 95 % interval)", title_justify="left"
    )
    for name in ("version", "on the holdout", "on the tuning part", "McNemar p", "cost"):
        table.add_column(name)
    table.add_row(
        f"v{report.plan.version} (now)",
        _cell(report.current_holdout),
        _cell(report.current_tuning),
        "",
        "",
    )
    for c in report.candidates:
        name = KIND_WORDS[c.kind] + (f" → v{c.version}" if c.version else "")
        p = "" if c.mcnemar_p is None else f"{c.mcnemar_p:.3g}"
        holdout = _cell(c.holdout) + (f" ({c.stopped})" if c.stopped else "")
        table.add_row(name, holdout, _cell(c.tuning), p, format_dollars(c.cost))
    out.print(table)
    if report.chosen is not None:
        out.print(evidence_words(report, report.chosen), markup=False)
        out.print(NOT_APPROVED_WORDS, markup=False)
    else:
        out.print(
            "No candidate agreed with people better than the current version on the holdout: "
            "nothing was saved. Grade more examples (the ones the judge gets wrong first), "
            "or rewrite the instructions by hand.",
            markup=False,
        )
    out.print(f"Cost: {format_dollars(cost)}.", markup=False)


def _cell(figures: Figures) -> str:
    if figures.kappa is None:
        return f"not measured ({figures.n} examples)"
    low, high = figures.ci_low, figures.ci_high
    interval = "" if low is None or high is None else f" ({low:.2f} to {high:.2f})"
    return f"{figures.kappa:.2f}{interval}, n = {figures.n}"
