"""``scorer-studio rules add|list|backfill``: scoring rules, which runners apply to each new
trace as it is stored (``scorer-studio worker``, or the runner ``make run`` starts).

``add`` checks the rule can score (its judges' keys, its daily cap against what one trace can
cost) before storing it; ``list`` says what each rule scored today and whether its cap paused
it; ``backfill`` scores the stored traces a rule takes, after showing what that costs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from scorer_runtime.cli.support import console, engine, fail, friendly

if TYPE_CHECKING:
    from rich.table import Table

    from scorer_runtime.store.rules import DaySpend, RuleInfo
    from scorer_runtime.trust.drift import AlertSettings

rules_app = typer.Typer(
    help="Score new traces as they arrive: rules of a scorer, filters, a sample and a daily cap.",
    no_args_is_help=True,
)
CAP_REACHED_EXIT = 3
"""``rules backfill``'s status when the rule's daily cap stopped it (as ``run``'s cap)."""


@rules_app.command("add")
@friendly
def rules_add(
    scorer: Annotated[str, typer.Argument(help="Name of the scorer the rule scores traces with.")],
    version: int | None = typer.Option(None, help="Scorer version (default: the latest)."),
    filter: Annotated[
        list[str] | None,
        typer.Option(
            "--filter",
            help="KEY=VALUE the trace must have (repeatable; all must hold): service, "
            "environment, agent, span, or any span or resource attribute; * matches any text.",
        ),
    ] = None,
    sample: float | None = typer.Option(
        None,
        min=0.0,
        max=1.0,
        help="Score only this share of the traces (0.1 for 10 %), picked by trace id: rules "
        "with the same share score the same traces.",
    ),
    max_cost_per_day: str | None = typer.Option(
        None,
        "--max-cost-per-day",
        help="Dollars the rule may spend in one UTC day; it pauses until the next day there.",
    ),
    allow_unpriced: bool = typer.Option(
        False, help="Let a judge model without a price run under the daily cap."
    ),
    alert_drop: float | None = typer.Option(
        None,
        "--alert-drop",
        help="Alert when a window's score drops by at least this much against the window "
        "before, beyond chance (0.1: a tenth of a point, or ten points of pass rate).",
    ),
    alert_every: str = typer.Option(
        "hour", "--alert-every", help="The window alerts compare: hour or day (UTC)."
    ),
    alert_on: str = typer.Option(
        "mean", "--alert-on", help="What alerts watch: mean (the mean score) or pass_rate."
    ),
    webhook_env: str | None = typer.Option(
        None,
        "--webhook-env",
        help="The environment variable holding the webhook address each alert is POSTed to "
        "(a Slack incoming webhook, for one); the address itself is never stored.",
    ),
) -> None:
    """Add a rule: runners score with SCORER each new trace that passes its filters."""
    from scorer_runtime.cli.stability import _version_id
    from scorer_runtime.costs.cap import read_cap
    from scorer_runtime.runs import plan_rule, start_rule
    from scorer_runtime.store import read_session
    from scorer_runtime.traces.rules import parse_filters

    cap = read_cap(max_cost_per_day)
    filters = parse_filters(filter or [])
    alerts = _alerts(alert_drop, alert_every, alert_on, webhook_env)
    made = engine()
    try:
        with read_session(made) as opened:
            version_id = _version_id(opened, scorer, version)
        plan = plan_rule(
            made,
            scorer_version_id=version_id,
            filters=filters,
            sample=sample,
            max_cost_per_day=cap,
            allow_unpriced=allow_unpriced,
            alerts=alerts,
        )
        rule = start_rule(made, plan)
    finally:
        made.dispose()
    out = console()
    out.print(
        f"Rule {rule.id} added: {scorer} v{rule.version} scores {_takes(rule)} {_cap_words(rule)}.",
        markup=False,
    )
    worst = None if plan.estimate is None else plan.estimate.example_worst_cost
    if worst:
        from scorer_runtime.money import format_dollars

        out.print(
            f"One trace costs at most {format_dollars(worst)} (every retry and re-ask "
            "included), judged on the stored traces it takes.",
            markup=False,
        )
    if rule.alerts is not None:
        out.print(_alert_words(rule.alerts), markup=False)
    out.print(
        "Runners score each new trace it takes as it is stored (scorer-studio worker, or the "
        f"studio's runner). Traces stored before now: scorer-studio rules backfill {rule.id}",
        markup=False,
    )


def _alerts(
    drop: float | None, every: str, on: str, webhook_env: str | None
) -> AlertSettings | None:
    from scorer_runtime.trust.drift import alert_settings

    if drop is None:
        if webhook_env:
            raise fail("--webhook-env sends alerts: say which drop is worth one with --alert-drop")
        return None
    try:
        return alert_settings(every, on.replace("-", "_"), drop, webhook_env)
    except ValueError as e:
        raise fail(f"the rule was not added: {e}") from None


def _alert_words(alerts: AlertSettings) -> str:
    what = "mean score" if alerts.measure == "mean" else "pass rate"
    words = (
        f"It alerts when an {alerts.period}'s {what} drops by {alerts.drop:g} or more against "
        f"the {alerts.period} before, beyond chance"
    )
    if alerts.webhook_env:
        return f"{words}; each alert is POSTed once to the address in ${alerts.webhook_env}."
    return f"{words}; alerts show on the Monitor page and in scorer-studio rules alerts."


def _takes(rule: RuleInfo) -> str:
    from scorer_runtime.traces.rules import filters_words

    share = "" if rule.sample is None else f"{rule.sample:.0%} of "
    what = filters_words(rule.filters)
    return f"{share}{what}" if rule.filters else f"{share}every new trace"


def _cap_words(rule: RuleInfo) -> str:
    from scorer_runtime.money import format_dollars

    if rule.max_cost_per_day is None:
        return "with no daily spend cap"
    return f"spending at most {format_dollars(rule.max_cost_per_day)} a day (UTC)"


@rules_app.command("list")
@friendly
def rules_list() -> None:
    """List the rules: what each takes, what it scored and spent today, and whether it is
    paused by its daily cap."""
    from scorer_runtime.store import read_session
    from scorer_runtime.store.rules import day_spend, list_rules

    made = engine()
    try:
        with read_session(made) as opened:
            rules = [(r, day_spend(opened, rule_id=r.id)) for r in list_rules(opened)]
    finally:
        made.dispose()
    out = console()
    if not rules:
        out.print(
            "No rules yet. Add one: scorer-studio rules add SCORER --filter service=NAME",
            markup=False,
        )
        return
    out.print(_rules_table(rules))


def _rules_table(rules: list[tuple[RuleInfo, DaySpend]]) -> Table:
    from rich.table import Table

    from scorer_runtime.money import format_dollars
    from scorer_runtime.runs import rule_status_words

    table = Table(title="Scoring rules", title_justify="left")
    for name in ("rule", "scorer", "takes", "daily cap", "today (UTC)", "status"):
        table.add_column(name, overflow="fold")
    for rule, today in rules:
        cap = "none" if rule.max_cost_per_day is None else format_dollars(rule.max_cost_per_day)
        pending = f", {today.pending} on their way" if today.pending else ""
        table.add_row(
            str(rule.id),
            f"{rule.scorer_name} v{rule.version}",
            _takes(rule),
            cap,
            f"{today.scored} scored, {format_dollars(today.spent)}{pending}",
            rule_status_words(rule, today),
        )
    return table


@rules_app.command("backfill")
@friendly
def rules_backfill(
    rule: Annotated[int, typer.Argument(help="The rule's number (see scorer-studio rules list).")],
    yes: bool = typer.Option(False, "--yes", "-y", help="Start without asking."),
    concurrency: int = typer.Option(4, min=1, max=256, help="Traces scored at once."),
) -> None:
    """Score the stored traces RULE takes and has not scored yet, after showing the estimate.

    Exits with 3 when the rule's daily cap stopped it (the rest waits for another backfill).
    """
    from scorer_runtime.batch.rule_scoring import backfill_rule
    from scorer_runtime.process import this_runner
    from scorer_runtime.runs import plan_backfill

    made = engine()
    try:
        plan = plan_backfill(made, rule)
        out = console()
        out.print(plan.words(), markup=False)
        if plan.to_score == 0:
            return
        if not yes and not typer.confirm("Score them now?", default=False):
            out.print("Nothing was scored.")
            return
        done = backfill_rule(made, rule, runner=this_runner(), concurrency=concurrency)
    finally:
        made.dispose()
    scored = len(done.outcomes)
    out.print(f"Rule {rule}: {scored} trace{'s' if scored != 1 else ''} scored.", markup=False)
    for alert in done.alerts:
        out.print(f"Alert: {alert.words}", markup=False)
    if done.capped:
        raise fail(
            f"rule {rule} stopped at its daily spend cap; the rest can be backfilled after "
            "00:00 UTC (or add the rule again with a higher --max-cost-per-day)",
            CAP_REACHED_EXIT,
        )


@rules_app.command("alerts")
@friendly
def rules_alerts(
    rule: Annotated[
        int | None, typer.Argument(help="Only this rule's alerts (default: every rule's).")
    ] = None,
) -> None:
    """List the drift alerts of the rules, newest window first, and whether each was sent."""
    from rich.table import Table

    from scorer_runtime.store import read_session
    from scorer_runtime.store.rule_alerts import list_alerts

    made = engine()
    try:
        with read_session(made) as opened:
            alerts = list_alerts(opened, rule_id=rule)
    finally:
        made.dispose()
    out = console()
    if not alerts:
        out.print(
            "No alerts. A rule alerts when it was added with --alert-drop and a window's "
            "scores drop beyond chance.",
            markup=False,
        )
        return
    table = Table(title="Drift alerts", title_justify="left")
    for name in ("rule", "window (UTC)", "what happened", "sent"):
        table.add_column(name, overflow="fold")
    for alert in alerts:
        table.add_row(
            str(alert.rule_id),
            alert.window_start.strftime("%Y-%m-%d %H:%M"),
            alert.words,
            alert.delivery,
        )
    out.print(table)
