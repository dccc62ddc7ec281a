"""The Monitor page's reads (cached per database and store revision) and its one write:
adding a rule through the run-start service (``scorer_runtime.runs``)."""

from __future__ import annotations

from scorer_runtime.runs import plan_rule, start_rule
from scorer_runtime.store import (
    AlertInfo,
    RuleInfo,
    change_alerts,
    database_url,
    get_version,
)
from scorer_runtime.store.views import (
    RuleLine,
    RuleScoreLine,
    RuleWindows,
    newest_alerts,
    newest_rule_scores,
    rule_lines,
    rule_windows,
)
from scorer_runtime.trust.drift import AlertSettings
from studio import services
from studio.app_pages.monitor.logic import RuleForm

_cached = services.cached(ttl=30)


def rules() -> list[RuleLine]:
    """Every rule with what it did today."""
    return _rules(database_url())


@_cached
def _rules(url: str) -> list[RuleLine]:
    with services.reading() as session:
        return rule_lines(session)


def newest_scores() -> list[RuleScoreLine]:
    """The newest scores the rules stored."""
    return _newest(database_url())


@_cached
def _newest(url: str) -> list[RuleScoreLine]:
    with services.reading() as session:
        return newest_rule_scores(session, limit=20)


def alerts() -> list[AlertInfo]:
    """The newest drift alerts of every rule."""
    return _alerts(database_url())


@_cached
def _alerts(url: str) -> list[AlertInfo]:
    with services.reading() as session:
        return newest_alerts(session, limit=20)


def windows(rule_id: int) -> RuleWindows:
    """The rule's recent windows of scores."""
    return _windows(database_url(), rule_id)


@_cached
def _windows(url: str, rule_id: int) -> RuleWindows:
    with services.reading() as session:
        return rule_windows(session, rule_id=rule_id)


def set_alerts(rule_id: int, alerts: AlertSettings | None) -> RuleInfo:
    """Change (or end, with None) a rule's drift alerts."""
    with services.writing() as session:
        rule = change_alerts(session, rule_id=rule_id, alerts=alerts)
    services.changed()
    return rule


def add_rule(scorer_id: int, form: RuleForm) -> RuleInfo:
    """Add a rule of the scorer's latest version (refused in words, as ``plan_rule`` says)."""
    with services.reading() as session:
        version = get_version(session, scorer_id=scorer_id)
    assert version.id is not None
    plan = plan_rule(
        services.engine(),
        scorer_version_id=version.id,
        filters=form.filters,
        sample=form.sample,
        max_cost_per_day=form.max_cost_per_day,
        alerts=form.alerts,
    )
    rule = start_rule(services.engine(), plan)
    services.changed()
    return rule
