"""``scorer-studio agreement`` and ``gate``: how far a scorer version agrees with people, and
whether its trust policy holds (for CI: ``gate`` exits 1 when it does not)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from scorer_runtime.cli.support import console, fail, friendly, session

if TYPE_CHECKING:
    from scorer_runtime.store import ScorerInfo, Session
    from scorer_runtime.trust.agreement import Agreement, Estimate
    from scorer_runtime.trust.policy import VersionTrust

GATE_FAILED = 1
"""The exit status of ``gate`` when the trust policy does not hold (errors exit 2)."""

ScorerArg = Annotated[str, typer.Argument(help="Name (or id) of the scorer.")]
VersionOpt = Annotated[
    int | None, typer.Option("--version", help="Version to measure (default: the latest).")
]


def add_trust_commands(app: typer.Typer) -> None:
    """Register ``agreement`` and ``gate`` on the ``scorer-studio`` app."""
    app.command("agreement")(agreement)
    app.command("gate")(gate)


@friendly
def agreement(
    scorer: ScorerArg,
    version: VersionOpt = None,
    run: Annotated[
        int | None, typer.Option("--run", help="Measure the scores of this run instead.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """How far a scorer version agrees with people's grades, with 95 % intervals."""
    if version is not None and run is not None:
        raise fail("give --version or --run, not both")
    with session() as opened:
        trust = _trust(opened, scorer, version, run)
    if as_json:
        data = {"version": trust.version, **trust.agreement.as_json()}
        data["left_out"] = list(trust.left_out)
        typer.echo(json.dumps(data, indent=2))
        return
    _print_agreement(trust)


@friendly
def gate(scorer: ScorerArg, version: VersionOpt = None) -> None:
    """Exit 1 unless the scorer version's trust policy holds, saying why."""
    with session() as opened:
        found = _scorer(opened, scorer)
        trust = _trust(opened, scorer, version, None)
    verdict = trust.verdict
    out = console(stderr=verdict.badge != "trusted")
    out.print(f"{found.name} version {trust.version}: {verdict.words}")
    for reason in verdict.reasons_for(stability_where="with `scorer-studio stability`"):
        out.print(f"- {reason}")
    if verdict.badge != "trusted":
        raise typer.Exit(GATE_FAILED)


def _scorer(opened: Session, name: str) -> ScorerInfo:
    """The scorer named ``name``, else the one whose id it is."""
    from scorer_runtime.store import NotFoundError, get_scorer

    try:
        return get_scorer(opened, name=name)
    except NotFoundError:
        if not name.isdigit():
            raise
        return get_scorer(opened, id=int(name))


def _trust(opened: Session, name: str, version: int | None, run: int | None) -> VersionTrust:
    from scorer_runtime.store import get_run, get_version
    from scorer_runtime.trust.policy import version_trust

    found = _scorer(opened, name)
    if run is not None:
        measured = get_run(opened, run_id=run)
        if measured.scorer_id != found.id:
            raise fail(f"run {run} is not a run of scorer {found.name}")
        return version_trust(opened, scorer_version_id=measured.scorer_version_id, run_id=run)
    assert found.id is not None
    chosen = get_version(opened, scorer_id=found.id, version=version)
    return version_trust(opened, scorer_version_id=chosen.id)


def _print_agreement(trust: VersionTrust) -> None:
    found = trust.agreement
    out = console()
    out.print(f"Version {trust.version}: {found.reading}")
    out.print(f"Examples graded and scored: {found.n}")
    out.print(f"{found.kappa_name}: {_figure(found.kappa)}")
    out.print(f"Percent agreement: {_figure(found.percent_agreement, percent=True)}")
    if found.spearman is not None:
        out.print(f"Spearman: {_figure(found.spearman)}")
    if found.mae is not None:
        out.print(f"Mean absolute error: {_figure(found.mae)}")
    out.print(
        f"Pass rate: people {_rate(found.human_pass_rate)}, judge {_rate(found.judge_pass_rate)}"
    )
    out.print(_confusion(found))
    for words in (*found.problems[1:], *trust.left_out):
        out.print(f"Note: {words}")


def _figure(estimate: Estimate, *, percent: bool = False) -> str:
    def shown(x: float) -> str:
        return f"{x:.0%}" if percent else f"{x:.2f}"

    if estimate.value is None:
        return "cannot be measured (see the reading above)"
    if estimate.low is None or estimate.high is None:
        return shown(estimate.value)
    return (
        f"{shown(estimate.value)} (95 % interval {shown(estimate.low)} to {shown(estimate.high)})"
    )


def _rate(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.0%}"


def _confusion(found: Agreement) -> str:
    width = max(len(c) for c in found.categories) + 2
    head = "people \\ judge".ljust(width + 8) + "".join(c.rjust(width) for c in found.categories)
    rows = [
        f"{name}".ljust(width + 8) + "".join(str(c).rjust(width) for c in row)
        for name, row in zip(found.categories, found.confusion, strict=True)
    ]
    return "\n".join([head, *rows])
