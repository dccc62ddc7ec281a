"""Helpers of the scoring-rule tests: scorer versions, rules, stored traces, what was scored."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine

from scorer_runtime.runs import plan_rule, start_rule
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ScoreFilter,
    list_scores,
    read_session,
    save_scorer_version,
    save_traces,
    session_scope,
)
from scorer_runtime.store.rules import RuleInfo
from scorer_runtime.traces.model import Trace
from scorer_runtime.traces.rules import parse_filters
from tests.cli.helpers import verdict_spec
from tests.store.fixtures import valid_spec

PRICE_PER_MILLION = 10.0
"""Dollars per 1M tokens of the priced fake judge: a judge call costs a few
thousandths of a dollar."""


def judge_free_version(engine: Engine, name: str = "always-one") -> int:
    """A scorer version that asks no judge (every trace scores 1); its id."""
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=valid_spec(name))
        assert version.id is not None
        return version.id


def priced_judge_version(engine: Engine, base_url: str, name: str = "verdict") -> int:
    """A scorer version asking the fake judge for a verdict, at a known price; its id."""
    spec = verdict_spec(base_url, scorer_id=name)
    spec["judge"]["input_price_per_million"] = PRICE_PER_MILLION
    spec["judge"]["output_price_per_million"] = PRICE_PER_MILLION
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=load_spec(spec))
        assert version.id is not None
        return version.id


def add_rule(
    engine: Engine,
    version_id: int,
    *filters: str,
    sample: float | None = None,
    cap: float | None = None,
) -> RuleInfo:
    """A rule added through the run-start service, as the command line adds one."""
    plan = plan_rule(
        engine,
        scorer_version_id=version_id,
        filters=parse_filters(filters),
        sample=sample,
        max_cost_per_day=cap,
    )
    return start_rule(engine, plan)


def store_traces(engine: Engine, traces: Sequence[Trace]) -> None:
    """Store traces as a trace import (and the OTLP receiver) stores them."""
    with session_scope(engine) as session:
        save_traces(session, traces=traces, source="test")


def scores_by_trace(engine: Engine, version_id: int) -> dict[str, list[Any]]:
    """Every stored score of the version, by trace id."""
    with read_session(engine) as session:
        rows = list_scores(session, filter=ScoreFilter(scorer_version_id=version_id), limit=10_000)
    found: dict[str, list[Any]] = {}
    for row in rows.rows:
        found.setdefault(row.trace_id, []).append(row)
    return found
