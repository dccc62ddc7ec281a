"""Scoring the traces a scoring rule takes: the new ones as they are stored (a runner's
:class:`RuleScoring` polls for them), and the stored ones when a backfill asks.

Both go one way: the rule's traces are read by row id, filtered and sampled
(:mod:`scorer_runtime.traces.rules`), each taken in the store (once per rule, whichever
runner is first, within the rule's daily cap: :func:`scorer_runtime.store.rules.take_trace`),
scored with the judge answer cache and the store's rate limits, and stored as trace scores
(linked to the trace and span, as ``traces score`` stores them) in the commit that marks them
done. A rule's high-water mark (``seen_up_to``) says up to which trace row runners have
looked, so a poll with nothing new costs one short read.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine

from scorer_runtime.batch.rule_alerts import RuleAlerts, find_alerts
from scorer_runtime.batch.sharding import asks_judge
from scorer_runtime.batch.trace_scoring import trace_score_row
from scorer_runtime.batch.writer import answers_to_keep
from scorer_runtime.costs.trace_estimate import estimate_traces
from scorer_runtime.judge.cache import using_cache
from scorer_runtime.judge.rate import using_ledger
from scorer_runtime.saved_scorers import check_judges, compile_version
from scorer_runtime.scorer import Scorer
from scorer_runtime.store.answers import StoreAnswerCache, store_answers
from scorer_runtime.store.engine import read_session, session_scope
from scorer_runtime.store.errors import NotFoundError
from scorer_runtime.store.rate_windows import ledger_for
from scorer_runtime.store.rule_alerts import AlertInfo
from scorer_runtime.store.rules import (
    LostTrace,
    RuleInfo,
    StoredTrace,
    advance_seen,
    get_rule,
    latest_trace_row,
    list_rules,
    lost_rule_traces,
    retake_trace,
    store_rule_scores,
    take_trace,
    taken_among,
    traces_after,
)
from scorer_runtime.store.scorers import get_version_by_id
from scorer_runtime.store.traces import get_trace
from scorer_runtime.traces.evaluation_events import EvaluationSender, evaluation_result
from scorer_runtime.traces.model import Trace
from scorer_runtime.traces.rules import rule_takes
from scorer_runtime.traces.scoring import TraceScoreOutcome, score_traces

QUIET_S = 10.0
"""How long a trace with no root span yet must go without new spans before it is scored.

An OpenTelemetry SDK exports spans as they end, in batches every few seconds, and a parent
ends after its children: the root span (the agent's run) is usually the last to arrive. A
trace is scored once its root has arrived; one whose root never comes (its parent is in
another service) is scored once no span of it arrived for this long."""
RETAKE_EVERY_S = 10.0
"""How often a runner looks for traces whose runner died before scoring them."""
TRACES_PER_POLL = 50
"""Trace rows one rule reads (and scores) at a time."""
SETTLE_S = 5.0
"""On PostgreSQL, how long a stored trace's row id may wait for the rows below it. Two imports
committing at once may commit the higher id first: a rule's stored mark stays below rows
younger than this, and each runner looks again from that mark every :data:`SETTLE_S`, so a
trace committed late is still seen (SQLite commits one writer at a time, in id order)."""


class RuleCannotRunError(ValueError):
    """A rule whose scorer cannot run now (a spec that no longer compiles, a key not set, a
    model without a price under a cap), in words."""


@dataclass(frozen=True, slots=True)
class RuleBatch:
    """What one pass over a rule's traces did."""

    looked_at: int = 0
    scored: list[TraceScoreOutcome] = field(default_factory=list)
    capped: bool = False
    """The rule's cap for today had no room for a trace it takes."""
    last_row: int = 0
    """The highest trace row looked at."""
    settled_row: int = 0
    """The highest row below which every trace is surely visible (see :data:`SETTLE_S`)."""


@dataclass
class RuleScoring:
    """Scores the new traces of every rule switched on, for runner ``runner``."""

    engine: Engine
    runner: str
    concurrency: int = 8
    settle_s: float = SETTLE_S
    """On PostgreSQL: rows younger than this keep the rule's stored mark below them."""
    look_back_s: float = SETTLE_S
    """How often this runner reads again from the rule's stored mark."""
    quiet_s: float = QUIET_S
    """How long a trace without its root span waits for more spans (see :data:`QUIET_S`)."""
    say: Callable[[str], None] = field(default=lambda text: print(text, file=sys.stderr))
    alerts: RuleAlerts | None = None
    """Finds and sends the rules' drift alerts (None: not this runner's job)."""
    events: EvaluationSender | None = None
    """Sends each stored score to the team's collector as an evaluation event (None: not)."""
    _scorers: dict[int, Scorer[Any, Any]] = field(default_factory=dict)
    _refused: dict[int, str] = field(default_factory=dict)
    _cursor: dict[int, int] = field(default_factory=dict)
    """By rule: the highest trace row this runner looked at."""
    _looked_back: dict[int, float] = field(default_factory=dict)
    retake_every_s: float = RETAKE_EVERY_S
    """How often it looks for traces whose runner died before scoring them."""
    _retook_at: float = field(default=float("-inf"))

    async def poll(self) -> int:
        """One look at every rule switched on: score what each takes of the traces stored
        since it last looked, then read the windows of those with drift alerts. How many
        traces were scored."""
        rules, latest = await asyncio.to_thread(self._rules)
        scored = await self._retake_lost({r.id: r for r in rules})
        for rule in rules:
            done = await self._poll_rule(rule, latest)
            scored += done
            if self.alerts is not None and self.alerts.due(rule, scored=done > 0):
                await self.alerts.check(rule)
        if self.alerts is not None:
            await self.alerts.send_due()
        return scored

    async def _poll_rule(self, rule: RuleInfo, latest: int) -> int:
        after = self._start_row(rule)
        if after >= latest:
            return 0
        if rule.paused():  # traces arriving while paused are not scored (backfill them)
            await asyncio.to_thread(self._advance, rule.id, latest)
            return 0
        try:
            scored = await self._score_from(rule, after)
        except RuleCannotRunError as error:
            self._say_once(rule.id, f"Rule {rule.id} cannot score now: {error}")
            return 0
        self._refused.pop(rule.id, None)
        return scored

    async def _retake_lost(self, rules: dict[int, RuleInfo]) -> int:
        """Take over and score the traces of these rules whose runner died before storing
        their score (at most every :attr:`retake_every_s`); how many were scored."""
        if time.monotonic() - self._retook_at < self.retake_every_s:
            return 0
        self._retook_at = time.monotonic()
        lost = await asyncio.to_thread(_lost, self.engine)
        scored = 0
        for rule_id, traces in _by_rule(lost).items():
            rule = rules.get(rule_id)
            if rule is None:  # switched off: its lost traces wait
                continue
            try:
                scored += await self._rescore(rule, traces)
            except RuleCannotRunError as error:
                self._say_once(rule.id, f"Rule {rule.id} cannot score now: {error}")
        return scored

    async def _rescore(self, rule: RuleInfo, lost: Sequence[LostTrace]) -> int:
        scorer = await asyncio.to_thread(self.scorer, rule)
        traces = await asyncio.to_thread(_stored_traces, self.engine, [t.trace_id for t in lost])
        taken: list[Trace] = []
        for item in lost:
            trace = traces.get(item.trace_id)
            if trace is None:  # deleted since it was taken
                continue
            amount = await _worst_case(rule, scorer, trace)
            got = await asyncio.to_thread(_retake_one, self, item, amount)
            if got == "taken":
                taken.append(trace)
        outcomes = await _score(self, rule, scorer, taken)
        await asyncio.to_thread(_store, self.engine, rule, outcomes, up_to=None)
        if outcomes:
            self.say(f"Rule {rule.id}: scored {len(outcomes)} traces a stopped runner had taken.")
        return len(outcomes)

    def _start_row(self, rule: RuleInfo) -> int:
        """Where to read the rule's traces from: where this runner got to, or now and then the
        rule's stored mark (to see traces that committed late, see :data:`SETTLE_S`)."""
        now = time.monotonic()
        if now - self._looked_back.get(rule.id, 0.0) >= self.look_back_s:
            self._looked_back[rule.id] = now
            return rule.seen_up_to
        return max(rule.seen_up_to, self._cursor.get(rule.id, 0))

    async def _score_from(self, rule: RuleInfo, after: int) -> int:
        scored = 0
        while True:
            done = await score_rule_rows(self, rule, after=after)
            scored += len(done.scored)
            if done.capped:
                self.say(f"Rule {rule.id}: today's spend cap is reached; paused until 00:00 UTC.")
                return scored
            if done.looked_at == 0:
                return scored
            after = self._cursor[rule.id] = max(self._cursor.get(rule.id, 0), done.last_row)
            if done.looked_at < TRACES_PER_POLL:
                return scored

    def _rules(self) -> tuple[list[RuleInfo], int]:
        with read_session(self.engine) as session:
            return list_rules(session, enabled_only=True), latest_trace_row(session)

    def _advance(self, rule_id: int, up_to: int) -> None:
        with session_scope(self.engine) as session:
            advance_seen(session, rule_id=rule_id, up_to=up_to)

    def _say_once(self, rule_id: int, text: str) -> None:
        if self._refused.get(rule_id) != text:
            self._refused[rule_id] = text
            self.say(text)

    def scorer(self, rule: RuleInfo) -> Scorer[Any, Any]:
        """The rule's scorer, compiled once; :class:`RuleCannotRunError` when it cannot run."""
        found = self._scorers.get(rule.scorer_version_id)
        if found is None:
            try:
                with read_session(self.engine) as session:
                    version = get_version_by_id(session, version_id=rule.scorer_version_id)
                    found = compile_version(session, version)
                check_judges(found)
            except ValueError as error:
                raise RuleCannotRunError(str(error)) from None
            self._scorers[rule.scorer_version_id] = found
        return found


async def score_rule_rows(
    scoring: RuleScoring, rule: RuleInfo, *, after: int, advance: bool = True
) -> RuleBatch:
    """Score what ``rule`` takes of the trace rows after ``after`` (at most
    :data:`TRACES_PER_POLL` rows) and store it; with ``advance``, move the rule's stored mark
    up to the settled rows among them (a backfill reads below the mark and leaves it)."""
    scorer = await asyncio.to_thread(scoring.scorer, rule)
    rows, taken_before = await asyncio.to_thread(_read_rows, scoring.engine, rule.id, after)
    if not rows:
        return RuleBatch()
    complete = _complete(scoring, rows)
    wanted = [
        r.trace
        for r in rows
        if r.row in complete
        and r.trace.trace_id not in taken_before
        and rule_takes(r.trace, rule.filters, rule.sample)
    ]
    taken, capped = await _take(scoring, rule, scorer, wanted)
    outcomes = await _score(scoring, rule, scorer, taken)
    settled = _settled_row(scoring, rows, after, complete)
    await asyncio.to_thread(
        _store, scoring.engine, rule, outcomes, up_to=settled if advance else None
    )
    if scoring.events is not None and outcomes:  # after the commit: only stored scores leave
        _send_events(scoring, rule, outcomes)
    return RuleBatch(len(rows), outcomes, capped, rows[-1].row, settled)


def _send_events(
    scoring: RuleScoring, rule: RuleInfo, outcomes: Sequence[TraceScoreOutcome]
) -> None:
    """Queue an evaluation event of each stored score; a failure is said, never raised (the
    scores are stored: the collector missing one must not stop the rule)."""
    assert scoring.events is not None
    try:
        scoring.events.send(evaluation_result(o, rule.scorer_name) for o in outcomes)
    except Exception as error:  # the SDK's queue refusing, a value it cannot send
        scoring.say(f"Rule {rule.id}: its scores are stored but not sent to the collector: {error}")


def _lost(engine: Engine) -> list[LostTrace]:
    with read_session(engine) as session:
        return lost_rule_traces(session)


def _by_rule(lost: Sequence[LostTrace]) -> dict[int, list[LostTrace]]:
    grouped: dict[int, list[LostTrace]] = {}
    for item in lost:
        grouped.setdefault(item.rule_id, []).append(item)
    return grouped


def _stored_traces(engine: Engine, trace_ids: Sequence[str]) -> dict[str, Trace]:
    """The stored traces among ``trace_ids`` (one deleted since is left out)."""
    found: dict[str, Trace] = {}
    with read_session(engine) as session:
        for trace_id in trace_ids:
            with contextlib.suppress(NotFoundError):
                found[trace_id] = get_trace(session, trace_id=trace_id)
    return found


def _retake_one(scoring: RuleScoring, lost: LostTrace, amount: float) -> str:
    with session_scope(scoring.engine) as session:
        return retake_trace(session, lost=lost, runner=scoring.runner, amount=amount)


def _read_rows(engine: Engine, rule_id: int, after: int) -> tuple[list[StoredTrace], set[str]]:
    """The next rows after ``after``, and which of their traces the rule took already."""
    with read_session(engine) as session:
        rows = traces_after(session, after=after, limit=TRACES_PER_POLL)
        ids = [r.trace.trace_id for r in rows]
        return rows, taken_among(session, rule_id=rule_id, trace_ids=ids)


def _complete(scoring: RuleScoring, rows: Sequence[StoredTrace]) -> set[int]:
    """The rows whose trace is complete enough to score: its root span arrived, or no span of
    it arrived for ``quiet_s`` (see :data:`QUIET_S`)."""
    quiet = datetime.now(UTC) - timedelta(seconds=scoring.quiet_s)
    return {
        r.row
        for r in rows
        if r.updated_at <= quiet or any(s.parent_span_id is None for s in r.trace.spans)
    }


def _settled_row(
    scoring: RuleScoring, rows: Sequence[StoredTrace], after: int, complete: set[int]
) -> int:
    """The highest row of ``rows`` below the first one not complete yet or (on PostgreSQL)
    younger than ``settle_s``: the rule's stored mark stays below it, so runners read it
    again from there (every ``look_back_s``) until it can be scored."""
    young = datetime.now(UTC) - timedelta(seconds=scoring.settle_s)
    waits_for_commits = scoring.engine.dialect.name == "postgresql"
    settled = after
    for row in rows:
        if row.row not in complete or (waits_for_commits and row.imported_at > young):
            break
        settled = row.row
    return settled


async def _take(
    scoring: RuleScoring, rule: RuleInfo, scorer: Scorer[Any, Any], traces: Sequence[Trace]
) -> tuple[list[Trace], bool]:
    """The traces this runner took for the rule, and whether the cap stopped it."""
    taken: list[Trace] = []
    for trace in traces:
        amount = await _worst_case(rule, scorer, trace)
        got = await asyncio.to_thread(_take_one, scoring, rule.id, trace.trace_id, amount)
        if got == "cap":
            return taken, True
        if got == "taken":
            taken.append(trace)
    return taken, False


def _take_one(scoring: RuleScoring, rule_id: int, trace_id: str, amount: float) -> str:
    with session_scope(scoring.engine) as session:
        return take_trace(
            session, rule_id=rule_id, trace_id=trace_id, runner=scoring.runner, amount=amount
        )


async def _worst_case(rule: RuleInfo, scorer: Scorer[Any, Any], trace: Trace) -> float:
    """What scoring ``trace`` can cost at worst (0 for a rule without a cap, or a scorer that
    asks no judge); :class:`RuleCannotRunError` for an unpriced model the cap cannot count."""
    if rule.max_cost_per_day is None or not asks_judge(scorer):
        return 0.0
    estimate = await estimate_traces(scorer, [trace])
    if not estimate.priced and not rule.allow_unpriced:
        raise RuleCannotRunError(
            "its daily spend cap needs prices, and the judge model has none: set a price on "
            "the judge profile, or add the rule again with --allow-unpriced"
        )
    return estimate.example_worst_cost or 0.0


async def _score(
    scoring: RuleScoring, rule: RuleInfo, scorer: Scorer[Any, Any], traces: Sequence[Trace]
) -> list[TraceScoreOutcome]:
    """Score the taken traces, judge answers looked up in the store's answer cache first."""
    if not traces:
        return []
    cache = None
    if asks_judge(scorer):  # a scorer's own cache_answers: false is kept by its judge steps
        cache = StoreAnswerCache(scoring.engine, scorer_id=rule.scorer_id)
        await asyncio.to_thread(cache.preload)
    with using_cache(cache), using_ledger(ledger_for(scoring.engine)):
        return await score_traces(scorer, None, list(traces), concurrency=scoring.concurrency)


def _store(
    engine: Engine, rule: RuleInfo, outcomes: Sequence[TraceScoreOutcome], *, up_to: int | None
) -> None:
    rows = [
        trace_score_row(o, scorer_id=rule.scorer_id, scorer_version_id=rule.scorer_version_id)
        for o in outcomes
    ]
    keep, _ = answers_to_keep(rows)
    with session_scope(engine) as session:
        store_rule_scores(session, rule_id=rule.id, rows=rows)
        store_answers(session, rows=keep)
        if up_to is not None:
            advance_seen(session, rule_id=rule.id, up_to=up_to)


@dataclass(frozen=True, slots=True)
class BackfillResult:
    """What a backfill scored, and whether the rule's daily cap stopped it."""

    outcomes: list[TraceScoreOutcome]
    capped: bool
    alerts: list[AlertInfo] = field(default_factory=list)
    """Drift alerts the backfilled scores gave (new ones only)."""


def backfill_rule(
    engine: Engine,
    rule_id: int,
    *,
    runner: str,
    concurrency: int = 8,
    on_outcome: Callable[[TraceScoreOutcome], None] | None = None,
) -> BackfillResult:
    """Score every stored trace the rule takes and has not taken yet, oldest first, within its
    daily cap (the same way a runner scores new ones: never a trace twice); then read its
    windows for drift alerts."""
    done = asyncio.run(_backfill(engine, rule_id, runner, concurrency, on_outcome))
    return BackfillResult(done.outcomes, done.capped, find_alerts(engine, rule_id))


async def _backfill(
    engine: Engine,
    rule_id: int,
    runner: str,
    concurrency: int,
    on_outcome: Callable[[TraceScoreOutcome], None] | None,
) -> BackfillResult:
    with read_session(engine) as session:
        rule = get_rule(session, rule_id=rule_id)
        end = latest_trace_row(session)
    scoring = RuleScoring(engine, runner, concurrency=concurrency)
    outcomes: list[TraceScoreOutcome] = []
    after = 0
    while after < end:
        batch = await score_rule_rows(scoring, rule, after=after, advance=False)
        for outcome in batch.scored:
            outcomes.append(outcome)
            if on_outcome is not None:
                on_outcome(outcome)
        if batch.capped or batch.looked_at == 0:
            return BackfillResult(outcomes, batch.capped)
        after = batch.last_row
    return BackfillResult(outcomes, False)
