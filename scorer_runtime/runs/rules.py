"""Starting scoring rules and backfills: planned (the scorer compiled and its judges checked
once, the daily cap checked against what one trace can cost) or refused in words, as
:func:`~scorer_runtime.runs.start.plan_run` does for a run; then stored.

A rule's scores are trace scores (no run, no dataset): runners score each trace it takes as
it is stored (:mod:`scorer_runtime.batch.rule_scoring`), and a backfill scores the stored
ones after its estimate was shown.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine

from scorer_runtime.costs.cap import check_cap
from scorer_runtime.costs.estimate import SAMPLE_SIZE, CostEstimate
from scorer_runtime.costs.trace_estimate import estimate_traces
from scorer_runtime.money import format_dollars
from scorer_runtime.runs.start import RunRefusedError
from scorer_runtime.saved_scorers import check_judges, compile_version
from scorer_runtime.scorer import Scorer
from scorer_runtime.store.engine import read_session, session_scope
from scorer_runtime.store.rules import (
    DaySpend,
    RuleInfo,
    add_rule,
    day_spend,
    get_rule,
    taken_among,
    traces_after,
)
from scorer_runtime.store.scorers import get_version_by_id
from scorer_runtime.traces.model import Trace
from scorer_runtime.traces.rules import RuleFilter, rule_takes
from scorer_runtime.traces.sampling import check_ratio
from scorer_runtime.trust.drift import AlertSettings

_ROWS_PER_READ = 500


@dataclass(frozen=True, slots=True)
class RulePlan:
    """A rule that may be stored: what it is, and its scorer compiled once."""

    scorer_version_id: int
    filters: list[RuleFilter]
    sample: float | None
    max_cost_per_day: float | None
    allow_unpriced: bool
    scorer: Scorer[Any, Any]
    alerts: AlertSettings | None = None
    """What its drift alerts watch (None: none)."""
    estimate: CostEstimate | None = None
    """What one trace of those stored that it takes costs (None: no stored trace to tell)."""


def _compiled(
    engine: Engine, scorer_version_id: int, *, refused: str = "The rule was not added"
) -> Scorer[Any, Any]:
    with read_session(engine) as session:
        version = get_version_by_id(session, version_id=scorer_version_id)
        try:
            scorer = compile_version(session, version)
            check_judges(scorer)
        except ValueError as error:
            raise RunRefusedError(f"{refused}: {error}.") from None
    return scorer


def plan_rule(
    engine: Engine,
    *,
    scorer_version_id: int,
    filters: Sequence[RuleFilter] = (),
    sample: float | None = None,
    max_cost_per_day: float | None = None,
    allow_unpriced: bool = False,
    alerts: AlertSettings | None = None,
) -> RulePlan:
    """The plan of a rule once it is known it can score; refused in words otherwise
    (:class:`RunRefusedError`; :class:`~scorer_runtime.costs.cap.CapError` for a daily cap
    below what one trace can cost, or a model without a price under a cap). Nothing is
    stored."""
    try:
        check_ratio(sample)
    except ValueError as error:
        raise RunRefusedError(f"The rule was not added: {error}.") from None
    scorer = _compiled(engine, scorer_version_id)
    plan = RulePlan(
        scorer_version_id, list(filters), sample, max_cost_per_day, allow_unpriced, scorer, alerts
    )
    if max_cost_per_day is None:
        return plan
    traces = _stored_matches(engine, plan, limit=20)
    if not traces:
        return plan  # nothing stored to rehearse on: each trace is checked as it is taken
    estimate = asyncio.run(estimate_traces(scorer, traces, count=1))
    check_cap(max_cost_per_day, estimate, allow_unpriced=allow_unpriced)
    return RulePlan(**{**_fields(plan), "estimate": estimate})


def _fields(plan: RulePlan) -> dict[str, Any]:
    return {name: getattr(plan, name) for name in RulePlan.__dataclass_fields__}


def start_rule(engine: Engine, plan: RulePlan) -> RuleInfo:
    """Store the planned rule: runners score the traces stored from now on that it takes."""
    with session_scope(engine) as session:
        return add_rule(
            session,
            scorer_version_id=plan.scorer_version_id,
            filters=plan.filters,
            sample=plan.sample,
            max_cost_per_day=plan.max_cost_per_day,
            allow_unpriced=plan.allow_unpriced,
            alerts=plan.alerts,
        )


def _stored_matches(engine: Engine, plan: RulePlan, *, limit: int | None = None) -> list[Trace]:
    found: list[Trace] = []
    after = 0
    while limit is None or len(found) < limit:
        with read_session(engine) as session:
            rows = traces_after(session, after=after, limit=_ROWS_PER_READ)
        if not rows:
            break
        found += [r.trace for r in rows if rule_takes(r.trace, plan.filters, plan.sample)]
        after = rows[-1].row
    return found if limit is None else found[:limit]


@dataclass(frozen=True, slots=True)
class BackfillPlan:
    """What a backfill of a rule would score, what it costs, and the room its cap has today."""

    rule: RuleInfo
    to_score: int
    already: int
    """Stored traces the rule takes that it scored already (or a runner is scoring)."""
    estimate: CostEstimate
    today: DaySpend = field(default_factory=DaySpend)

    def words(self) -> str:
        """The plan in plain words: counts, the estimate, and the cap."""
        n = self.to_score
        text = f"Rule {self.rule.id} takes {n} stored trace{'s' if n != 1 else ''} not scored yet"
        if self.already:
            text += f" ({self.already} it scored already are left out)"
        text += f". {self.estimate.describe()}"
        cap = self.rule.max_cost_per_day
        if cap is not None:
            left = max(cap - self.today.spent, 0.0)
            text += (
                f" It counts in the rule's daily cap of {format_dollars(cap)} "
                f"({format_dollars(left)} left today) and "
                "stops when that is reached."
            )
        return text


def plan_backfill(engine: Engine, rule_id: int) -> BackfillPlan:
    """The estimate of a backfill of rule ``rule_id``, to show before it starts;
    :class:`RunRefusedError` when its scorer cannot run. The stored traces are read a batch
    at a time: only the counts and a sample to rehearse the estimate on are kept."""
    with read_session(engine) as session:
        rule = get_rule(session, rule_id=rule_id)
        today = day_spend(session, rule_id=rule_id)
    scorer = _compiled(engine, rule.scorer_version_id, refused="The backfill cannot start")
    sample: list[Trace] = []
    seen = already = 0
    draw = random.Random(rule_id)  # noqa: S311  (a sample to estimate on, not a secret)
    after = 0
    while True:
        with read_session(engine) as session:
            rows = traces_after(session, after=after, limit=_ROWS_PER_READ)
            matches = [r.trace for r in rows if rule_takes(r.trace, rule.filters, rule.sample)]
            taken = taken_among(session, rule_id=rule_id, trace_ids=[t.trace_id for t in matches])
        if not rows:
            break
        after = rows[-1].row
        already += len(taken)
        for trace in (t for t in matches if t.trace_id not in taken):
            seen += 1
            _keep_in_sample(sample, trace, seen, draw)
    estimate = asyncio.run(estimate_traces(scorer, sample, count=seen))
    return BackfillPlan(rule, seen, already, estimate, today)


def _keep_in_sample(sample: list[Trace], trace: Trace, seen: int, draw: random.Random) -> None:
    """Reservoir sampling (Vitter's algorithm R): after ``seen`` traces, ``sample`` holds
    :data:`SAMPLE_SIZE` of them, each equally likely."""
    if len(sample) < SAMPLE_SIZE:
        sample.append(trace)
        return
    slot = draw.randrange(seen)
    if slot < SAMPLE_SIZE:
        sample[slot] = trace


def rule_status_words(rule: RuleInfo, today: DaySpend) -> str:
    """Whether the rule scores now, in words (paused by its cap: until when, and what then)."""
    if not rule.enabled:
        return "off"
    if rule.paused() and rule.max_cost_per_day is not None:
        return (
            f"paused until 00:00 UTC: today's cap of {format_dollars(rule.max_cost_per_day)} "
            f"is reached ({format_dollars(today.spent)} counted). Traces stored meanwhile are "
            "not scored: backfill them"
        )
    return "scoring new traces"
