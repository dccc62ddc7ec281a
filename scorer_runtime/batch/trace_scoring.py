"""Scoring stored traces with a stored scorer version, and storing each outcome.

Trace scores go to the scores table like a batch run's, with no run, example or dataset,
linked to the trace and span they judged, with the same evidence (step results, prompts,
judge transcripts, attempts, tokens, cost), so history, results and the drill-down read
them like any other score. Outcomes are stored as they complete, in small batches: a crash
loses at most one batch, and scoring again skips the traces this version already scored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scorer_runtime.batch.outcome import ExampleScore, example_score
from scorer_runtime.errors import ErrorKind
from scorer_runtime.traces import TraceScoreOutcome, in_sample
from scorer_runtime.types import Outcome

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlmodel import Session

    from scorer_runtime.store import ScorerVersionInfo

_JUDGE_KINDS = frozenset(kind.value for kind in ErrorKind) - {ErrorKind.FORMAT.value}
WRITE_EVERY = 50
"""Outcomes stored per write while scoring."""
TRACES_PER_BATCH = 500
"""Stored traces read (and scored) at a time."""


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


def trace_score(outcome: TraceScoreOutcome) -> ExampleScore:
    """A trace outcome as storable plain data (its result's evidence included)."""
    return example_score(
        None,
        outcome.result,
        outcome=stored_outcome(outcome),
        error=outcome.error,
        failed_step=outcome.failed_step,
        latency_ms=outcome.duration_ms,
        reason=outcome.reason,
    )


def trace_score_row(
    outcome: TraceScoreOutcome, *, scorer_id: int, scorer_version_id: int
) -> dict[str, Any]:
    """The scores-table row of one trace outcome, linked to its trace and span."""
    return trace_score(outcome).row(
        run_id=None,
        scorer_id=scorer_id,
        scorer_version_id=scorer_version_id,
        dataset_id=None,
        trace_id=outcome.trace_id,
        span_id=outcome.span_id,
    )


def store_trace_outcomes(
    session: Session,
    outcomes: Sequence[TraceScoreOutcome],
    *,
    scorer_id: int,
    scorer_version_id: int,
) -> int:
    """Store every outcome as a score linked to its trace and span; returns how many."""
    from scorer_runtime.store import add_scores

    rows = [
        trace_score_row(o, scorer_id=scorer_id, scorer_version_id=scorer_version_id)
        for o in outcomes
    ]
    add_scores(session, rows=rows)
    return len(rows)


@dataclass(frozen=True, slots=True)
class TraceSelectionPlan:
    """Which stored traces a scoring will score, and why the others are left out."""

    to_score: list[str]
    already_scored: list[str] = field(default_factory=list)
    """Traces this scorer version has a stored result for (scored again with ``rescore``)."""
    not_sampled: list[str] = field(default_factory=list)


def plan_trace_scoring(
    session: Session,
    *,
    scorer_version_id: int,
    trace_ids: Sequence[str] | None = None,
    sample: float | None = None,
    rescore: bool = False,
) -> TraceSelectionPlan:
    """The traces to score: ``trace_ids`` (default: every stored trace, the most recent
    first), those in the sample (deterministic per trace id), not yet scored by this
    version unless ``rescore``. Raises NotFoundError for a trace id that is not stored."""
    from scorer_runtime.store import all_trace_ids, get_traces, scored_trace_ids
    from scorer_runtime.traces.sampling import check_ratio

    check_ratio(sample)
    if trace_ids is None:
        ids = all_trace_ids(session)
    else:
        ids = list(dict.fromkeys(trace_ids))
        get_traces(session, trace_ids=ids)  # every id must be stored
    sampled = [t for t in ids if in_sample(t, sample)]
    not_sampled = [t for t in ids if not in_sample(t, sample)]
    done = set() if rescore else scored_trace_ids(session, scorer_version_id=scorer_version_id)
    return TraceSelectionPlan(
        to_score=[t for t in sampled if t not in done],
        already_scored=[t for t in sampled if t in done],
        not_sampled=not_sampled,
    )


def score_stored_traces(
    engine: Engine,
    version: ScorerVersionInfo,
    trace_ids: Sequence[str],
    *,
    concurrency: int = 8,
    api_base: str | None = None,
    on_outcome: Callable[[TraceScoreOutcome], None] | None = None,
) -> list[TraceScoreOutcome]:
    """Score stored traces with a stored scorer version; store each outcome as it completes.

    Checks the scorer's judges first (raising JudgeConfigError, e.g. for a key variable
    that is not set, before any trace is scored); SpecError when the stored version no
    longer compiles; NotFoundError for a trace deleted meanwhile (what was scored before it
    stays stored). ``api_base`` points every judge at another OpenAI-compatible server.
    """
    from scorer_runtime.judge.rate import using_ledger
    from scorer_runtime.saved_scorers import check_judges, compile_version
    from scorer_runtime.store import get_traces, read_session, session_scope
    from scorer_runtime.store.rate_windows import ledger_for
    from scorer_runtime.traces import score_traces_sync

    version_id = version.id
    assert version_id is not None
    ids = list(trace_ids)
    with read_session(engine) as session:
        scorer = compile_version(session, version, api_base=api_base)
    check_judges(scorer)
    pending: list[TraceScoreOutcome] = []

    def flush() -> None:
        if pending:
            with session_scope(engine) as session:
                store_trace_outcomes(
                    session,
                    pending,
                    scorer_id=version.scorer_id,
                    scorer_version_id=version_id,
                )
            pending.clear()

    def completed(outcome: TraceScoreOutcome) -> None:
        pending.append(outcome)
        if len(pending) >= WRITE_EVERY:
            flush()
        if on_outcome is not None:
            on_outcome(outcome)

    outcomes: list[TraceScoreOutcome] = []
    try:
        # A batch of traces at a time: memory stays bounded however many are stored.
        for start in range(0, len(ids), TRACES_PER_BATCH):
            with read_session(engine) as session:
                traces = get_traces(session, trace_ids=ids[start : start + TRACES_PER_BATCH])
            with using_ledger(ledger_for(engine)):  # the store's judges' limits hold
                outcomes += score_traces_sync(
                    scorer, None, traces, concurrency=concurrency, on_outcome=completed
                )
    finally:
        flush()  # what completed is kept, even when scoring is interrupted
    return outcomes
