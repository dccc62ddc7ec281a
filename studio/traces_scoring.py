"""Scoring imported traces with a saved agent scorer, and storing the scores, free of Streamlit.

Scores are stored in the scores table with no run, example or dataset, linked to the trace
and span they judged (``trace_id`` / ``span_id``), with the same evidence a batch run keeps
(step results, prompts, judge transcripts, attempts, tokens, cost), so the results pages and
the drill-down read them like any other score.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from scorer_runtime.errors import ErrorKind
from scorer_runtime.results import ScoreResult
from scorer_runtime.store import (
    Outcome,
    ScoreRecord,
    ScorerRecord,
    ScorerVersionRecord,
    add_scores,
    jsonable,
)
from scorer_runtime.traces import Trace, TraceScoreOutcome

_STEP_RESULTS = ("preprocess_step_result", "analyze_step_result")
_PROMPTS = {
    "preprocess": "preprocess_prompt",
    "analyze": "analyze_prompt",
    "generate_score": "generate_score_prompt",
    "generate_reason": "generate_reason_prompt",
}
_JUDGE_KINDS = frozenset(kind.value for kind in ErrorKind)


@dataclass(frozen=True, slots=True)
class AgentScorerOption:
    """A saved version of an agent scorer (``type: agent``), which can score traces."""

    scorer_id: int
    name: str
    version_id: int
    version: int
    note: str
    judge_steps: int
    """Steps that ask the judge: each scored trace makes this many judge requests (or more,
    with retries)."""

    def label(self) -> str:
        """The option in a picker: "tool-call-accuracy · version 2"."""
        return f"{self.name} · version {self.version}"


def _judge_steps(spec: Mapping[str, Any]) -> int:
    steps = spec.get("steps")
    if not isinstance(steps, list):
        return 0
    return sum(1 for step in steps if isinstance(step, Mapping) and "template" in step)


def agent_scorer_options(session: Session) -> list[AgentScorerOption]:
    """Every version of a live agent scorer, by scorer name, newest version first."""
    spec = col(ScorerVersionRecord.spec)
    query = (
        select(ScorerVersionRecord, ScorerRecord.name)
        .join(ScorerRecord, col(ScorerRecord.id) == col(ScorerVersionRecord.scorer_id))
        .where(col(ScorerRecord.archived_at).is_(None), spec["type"].as_string() == "agent")
        .order_by(col(ScorerRecord.name), col(ScorerVersionRecord.version).desc())
    )
    options = []
    for version, name in session.exec(query).all():
        assert version.id is not None
        options.append(
            AgentScorerOption(
                scorer_id=version.scorer_id,
                name=name,
                version_id=version.id,
                version=version.version,
                note=version.note,
                judge_steps=_judge_steps(version.spec),
            )
        )
    return options


def stored_outcome(outcome: TraceScoreOutcome) -> Outcome:
    """The scores table's outcome for a trace outcome (judge errors by their kind)."""
    if outcome.status == "scored":
        return "scored"
    if outcome.status == "not_scorable":
        return "not_scorable"
    if outcome.error_kind == ErrorKind.FORMAT.value:
        return "judge_format_error"
    if outcome.error_kind in _JUDGE_KINDS:
        return "provider_error"
    return "step_error"


def _evidence(result: ScoreResult | None) -> dict[str, Any]:
    if result is None:
        return {}
    executions = list(result.judge.values())
    usage = [e.usage for e in executions]
    return {
        "step_results": jsonable({name: getattr(result, name) for name in _STEP_RESULTS}),
        "prompts": {s: p for s, name in _PROMPTS.items() if (p := getattr(result, name))},
        "judge": jsonable({step: e.to_dict() for step, e in result.judge.items()}),
        "attempts": sum(e.model_call_count for e in executions),
        "input_tokens": sum(u.input_tokens for u in usage),
        "output_tokens": sum(u.output_tokens for u in usage),
        "total_tokens": sum(u.total_tokens for u in usage),
        "cost": result.cost,
    }


def outcome_row(
    outcome: TraceScoreOutcome, *, scorer_id: int, scorer_version_id: int
) -> dict[str, Any]:
    """The scores-table row of one trace outcome, linked to its trace and span."""
    stored = stored_outcome(outcome)
    result = outcome.result
    failed_step: str | None = None
    if stored == "not_scorable" and result is not None and result.not_scorable is not None:
        failed_step = result.not_scorable.step
    elif outcome.error_kind == "run_error":
        failed_step = "prepare_run"
    elif stored != "scored" and result is not None:
        # The trace outcome does not name the failed step; its failed judge execution does.
        failed = [step for step, e in result.judge.items() if e.status == "failed"]
        failed_step = failed[-1] if failed else None
    return {
        "scorer_id": scorer_id,
        "scorer_version_id": scorer_version_id,
        "trace_id": outcome.trace_id,
        "span_id": outcome.span_id,
        "score": outcome.score if stored == "scored" else None,
        "outcome": stored,
        "reason": outcome.reason if stored == "not_scorable" else (result and result.reason),
        "error": outcome.error,
        "failed_step": failed_step,
        "latency_ms": outcome.duration_ms,
        **_evidence(result),
    }


def store_outcomes(
    session: Session, outcomes: Sequence[TraceScoreOutcome], option: AgentScorerOption
) -> int:
    """Store every outcome as a score linked to its trace and span; returns how many."""
    rows = [
        outcome_row(o, scorer_id=option.scorer_id, scorer_version_id=option.version_id)
        for o in outcomes
    ]
    add_scores(session, rows=rows)
    return len(rows)


def score_traces_with(
    session: Session,
    option: AgentScorerOption,
    traces: Sequence[Trace],
    *,
    on_outcome: Callable[[TraceScoreOutcome], None] | None = None,
    concurrency: int = 4,
) -> list[TraceScoreOutcome]:
    """Score ``traces`` with a stored agent scorer version (judges checked first).

    Raises SpecError when the stored version no longer compiles and JudgeConfigError when
    a judge cannot be called (e.g. its key variable is not set), before any trace is scored.
    """
    from scorer_runtime.batch import check_judges, compile_version
    from scorer_runtime.store import get_version_by_id
    from scorer_runtime.traces import score_traces_sync

    scorer = compile_version(session, get_version_by_id(session, version_id=option.version_id))
    check_judges(scorer)
    return score_traces_sync(
        scorer, None, list(traces), concurrency=concurrency, on_outcome=on_outcome
    )


@dataclass(frozen=True, slots=True)
class TraceScoreLine:
    """A stored score of a trace, as the traces page lists it."""

    score_id: int
    trace_id: str
    span_id: str | None
    scorer: str
    version: int
    score: float | None
    outcome: str
    reason: str | None
    error: str | None
    created_at: datetime


def trace_scores(
    session: Session, trace_ids: Sequence[str], *, limit: int = 500
) -> list[TraceScoreLine]:
    """The stored scores of these traces, newest first (at most ``limit``)."""
    if not trace_ids:
        return []
    query = (
        sa_select(
            col(ScoreRecord.id),
            col(ScoreRecord.trace_id),
            col(ScoreRecord.span_id),
            col(ScorerRecord.name),
            col(ScorerVersionRecord.version),
            col(ScoreRecord.score),
            col(ScoreRecord.outcome),
            col(ScoreRecord.reason),
            col(ScoreRecord.error),
            col(ScoreRecord.created_at),
        )
        .join(ScorerRecord, col(ScorerRecord.id) == col(ScoreRecord.scorer_id))
        .join(
            ScorerVersionRecord, col(ScorerVersionRecord.id) == col(ScoreRecord.scorer_version_id)
        )
        .where(col(ScoreRecord.trace_id).in_(list(trace_ids)))
        .order_by(col(ScoreRecord.created_at).desc(), col(ScoreRecord.id).desc())
        .limit(limit)
    )
    return [TraceScoreLine(*row) for row in session.execute(query).all()]


def trace_score_data(
    session: Session, *, score_id: int, trace: Trace | None = None
) -> dict[str, Any]:
    """A stored trace score as the score drill-down reads it: the row, what the scorer saw of
    the trace (when the trace is loaded), and facts in words."""
    from scorer_runtime.store import get_score
    from scorer_runtime.traces import AgentRunTarget, trace_to_target

    record = get_score(session, score_id=score_id)
    data: dict[str, Any] = record.model_dump(mode="json")
    scorer = session.get(ScorerRecord, record.scorer_id)
    version = session.get(ScorerVersionRecord, record.scorer_version_id)
    if trace is not None and record.span_id and trace.get(record.span_id) is not None:
        target = trace_to_target(trace, agent=True, span_id=record.span_id)
        if isinstance(target, AgentRunTarget):
            data.update(input=jsonable(target.input), output=jsonable(target.output))
    data["facts"] = [
        ("Scorer", f"{scorer.name if scorer else '—'} v{version.version if version else '?'}"),
        ("Trace", record.trace_id or "—"),
        ("Span", record.span_id or "—"),
        ("When (UTC)", record.created_at.strftime("%Y-%m-%d %H:%M:%S")),
    ]
    return data
