"""One score, taken apart for a person: each step's result, the exact prompts, the judge's raw
answer, attempts, provider calls, time, tokens and cost, and any error in plain words.

Streamlit-free. :func:`score_detail` reads either a stored score (``ScoreRecord`` as a dict,
optionally with the example's ``input``/``output``/``ground_truth``) or a fresh
``ScoreResult.to_dict()`` (with ``outcome``/``error``/``failed_step`` added by a caller that
caught a ``ScorerRunError``), so the builder's "try it" and the Results page show one view.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scorer_runtime.store import NameBook, Session
from scorer_runtime.store.views import get_score_with_example, scorer_titles
from scorer_runtime.types import DATA_STEPS, STEP_ORDER, STEP_RESULT_FIELD
from studio.error_words import Explanation, explain_stored
from studio.words import STEP_TITLES

STEPS = STEP_ORDER
_RESULT_KEYS = {step: STEP_RESULT_FIELD[step] for step in DATA_STEPS}


@dataclass(frozen=True, slots=True)
class CallView:
    """One HTTP call to the judge's provider (a retry is another call)."""

    number: int
    ok: bool
    duration_ms: float | None
    status_code: int | None
    error: str | None
    error_kind: str | None
    delay_ms: float | None


@dataclass(frozen=True, slots=True)
class JudgeView:
    """What one prompt step asked the judge and what came back."""

    model: str
    ok: bool
    messages: list[dict[str, str]]
    """The messages exactly as sent (system instructions first)."""
    raw_output: str | None
    parsed_output: Any
    asks: int
    """Times the judge was asked (2 when its first answer was unreadable and it was re-asked)."""
    calls: list[CallView]
    duration_ms: float | None
    input_tokens: int
    output_tokens: int
    cost: float | None
    error: str | None
    error_kind: str | None


@dataclass(frozen=True, slots=True)
class StepView:
    """One step of the pipeline as it ran on this example."""

    step: str
    title: str
    result: Any
    has_result: bool
    prompt: str | None
    judge: JudgeView | None
    failed: bool
    not_scorable: bool
    skipped: bool = False
    """The step never ran: an earlier one failed or said the example is not scorable."""
    partial: bool = False
    """generate_score computed a score, but a later step failed (or said "not scorable"):
    the score is kept as evidence and does not count."""


@dataclass(frozen=True, slots=True)
class ScoreDetail:
    """Everything the drill-down shows, as plain values."""

    outcome: str
    score: float | None
    reason: str | None
    problem: Explanation | None
    steps: list[StepView]
    example: dict[str, Any] = field(default_factory=dict)
    """input / output / ground_truth of the scored example, when known."""
    facts: list[tuple[str, str]] = field(default_factory=list)
    """(label, value) pairs: scorer, dataset, run, example, when."""
    provider_calls: int = 0
    latency_ms: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    partial_score: float | None = None
    """The score computed before a later step failed: shown, never counted."""
    label: str | None = None
    """The verdict in words another tool sent (its label), when it sent one."""
    external: bool = False
    """The score came from another tool (an evaluation event), not from a scorer here."""


def _outcome(data: Mapping[str, Any]) -> str:
    if data.get("outcome"):
        return str(data["outcome"])
    if data.get("not_scorable"):
        return "not_scorable"
    return "step_error" if data.get("error") else "scored"


def _judge_view(data: Mapping[str, Any]) -> JudgeView:
    usage = data.get("usage") or {}
    calls = [
        CallView(
            number=i,
            ok=bool(c.get("ok")),
            duration_ms=c.get("duration_ms"),
            status_code=c.get("status_code"),
            error=c.get("error"),
            error_kind=c.get("error_kind"),
            delay_ms=c.get("delay_ms"),
        )
        for i, c in enumerate(data.get("calls") or [], start=1)
    ]
    return JudgeView(
        model=str(data.get("model") or ""),
        ok=data.get("status", "success") == "success",
        messages=[dict(m) for m in data.get("messages") or []],
        raw_output=data.get("raw_output"),
        parsed_output=data.get("parsed_output"),
        asks=int(data.get("attempt_count") or 0),
        calls=calls,
        duration_ms=data.get("duration_ms"),
        input_tokens=int(usage.get("input_tokens") or 0),
        output_tokens=int(usage.get("output_tokens") or 0),
        cost=data.get("cost"),
        error=data.get("error"),
        error_kind=data.get("error_kind"),
    )


def _step_results(data: Mapping[str, Any], outcome: str) -> dict[str, Any]:
    # Stored rows nest the step results; ScoreResult.to_dict() has them at the top level.
    stored = data.get("step_results") or {}
    out: dict[str, Any] = {
        step: stored.get(key, data.get(key)) for step, key in _RESULT_KEYS.items()
    }
    # A score computed before a later step failed is kept in the evidence (not counted).
    out["generate_score"] = (
        data.get("score")
        if outcome == "scored"
        else stored.get(STEP_RESULT_FIELD["generate_score"], data.get("score"))
    )
    out["generate_reason"] = data.get("reason") if outcome != "not_scorable" else None
    return out


def _prompts(data: Mapping[str, Any]) -> dict[str, str]:
    stored = data.get("prompts") or {}
    return {
        step: str(p)
        for step in STEPS
        if (p := stored.get(step) or data.get(f"{step}_prompt")) is not None
    }


def _not_scorable(data: Mapping[str, Any], outcome: str) -> tuple[str | None, str | None]:
    """(step, reason) of a not-scorable result, from either shape."""
    marker = data.get("not_scorable")
    if isinstance(marker, Mapping):
        return marker.get("step"), marker.get("reason")
    if outcome == "not_scorable":
        return data.get("failed_step"), data.get("reason")
    return None, None


def _steps(data: Mapping[str, Any], outcome: str) -> list[StepView]:
    results = _step_results(data, outcome)
    prompts = _prompts(data)
    judges = {str(k): _judge_view(v) for k, v in (data.get("judge") or {}).items()}
    failed = data.get("failed_step") if outcome not in ("scored", "not_scorable") else None
    ns_step, _ = _not_scorable(data, outcome)
    views = []
    for step in STEPS:
        has_result = results.get(step) is not None
        ran = has_result or step in prompts or step in judges or step in (failed, ns_step)
        if not ran and step != "generate_score":
            continue
        views.append(
            StepView(
                step=step,
                title=STEP_TITLES[step],
                result=results.get(step),
                has_result=has_result,
                prompt=prompts.get(step),
                judge=judges.get(step),
                failed=step == failed,
                not_scorable=step == ns_step,
                skipped=not ran,
                partial=step == "generate_score" and has_result and outcome != "scored",
            )
        )
    return views


def _judge_kind(data: Mapping[str, Any], step: str | None) -> str | None:
    judges = data.get("judge") or {}
    execution = judges.get(step) if step else None
    return execution.get("error_kind") if isinstance(execution, Mapping) else None


def score_detail(data: Mapping[str, Any]) -> ScoreDetail:
    """The drill-down view of one score (a stored row or a ``ScoreResult.to_dict()``)."""
    if data.get("event_key"):
        return _external_detail(data)
    outcome = _outcome(data)
    ns_step, ns_reason = _not_scorable(data, outcome)
    failed_step = data.get("failed_step") or ns_step
    problem = explain_stored(
        outcome=outcome,
        error=data.get("error"),
        failed_step=failed_step,
        error_kind=_judge_kind(data, failed_step),
        not_scorable_reason=ns_reason,
    )
    judges = [_judge_view(v) for v in (data.get("judge") or {}).values()]
    attempts = data.get("attempts")
    computed = _step_results(data, outcome)["generate_score"]
    return ScoreDetail(
        outcome=outcome,
        score=data.get("score") if outcome == "scored" else None,
        partial_score=None if outcome == "scored" else _number(computed),
        reason=ns_reason if outcome == "not_scorable" else data.get("reason"),
        problem=problem,
        steps=_steps(data, outcome),
        example={k: data[k] for k in ("input", "output", "ground_truth") if k in data},
        facts=[(str(k), str(v)) for k, v in (data.get("facts") or [])],
        provider_calls=int(attempts) if attempts is not None else sum(len(j.calls) for j in judges),
        latency_ms=data.get("latency_ms"),
        input_tokens=int(data.get("input_tokens") or sum(j.input_tokens for j in judges)),
        output_tokens=int(data.get("output_tokens") or sum(j.output_tokens for j in judges)),
        cost=data.get("cost") if "cost" in data else _sum_costs(judges),
    )


def _external_detail(data: Mapping[str, Any]) -> ScoreDetail:
    """A verdict another tool sent: its score or label and explanation, no steps or judge."""
    outcome = _outcome(data)
    return ScoreDetail(
        outcome=outcome,
        score=data.get("score") if outcome == "scored" else None,
        reason=data.get("reason"),
        problem=_external_problem(outcome, data),
        steps=[],
        example={k: data[k] for k in ("input", "output", "ground_truth") if k in data},
        facts=[(str(k), str(v)) for k, v in (data.get("facts") or [])],
        label=data.get("label"),
        external=True,
    )


def _external_problem(outcome: str, data: Mapping[str, Any]) -> Explanation | None:
    where = "This verdict came from another tool, not from a scorer here"
    if outcome == "step_error":
        return Explanation(
            "The other tool could not evaluate this",
            str(data.get("error") or "It sent an error instead of a verdict."),
            f"{where}: look at that tool's own logs or settings.",
        )
    if outcome == "not_scorable" and not data.get("label"):
        return Explanation(
            "The other tool found nothing to evaluate",
            str(data.get("reason") or "It sent no verdict for this span."),
            f"{where}: there is nothing to change in the studio.",
        )
    return None


def _number(value: Any) -> float | None:
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if is_number else None


def _sum_costs(judges: list[JudgeView]) -> float | None:
    costs = [j.cost for j in judges]
    if any(c is None for c in costs):
        return None
    return float(sum(c for c in costs if c is not None))


def load_score(session: Session, *, score_id: int, names: NameBook) -> dict[str, Any]:
    """A stored score as the drill-down reads it: the row, the example it scored, and facts
    (scorer, dataset, run, when) in words. Raises NotFoundError for an unknown id."""
    record, example = get_score_with_example(session, score_id=score_id)
    data: dict[str, Any] = record.json_data()
    if example is not None:
        data.update(input=example.input, output=example.output, ground_truth=example.ground_truth)
    title = scorer_titles(session).get(record.scorer_id, names.scorer(record.scorer_id))
    version = names.version(record.scorer_version_id, with_scorer=False)
    if record.scorer_id in names.external_scorers:  # another tool's: it has no versions here
        version = ""
    facts = [  # the example itself is shown in full: its number in the database is not
        ("Scorer", f"{title} {version}".strip()),
        ("Dataset", names.dataset(record.dataset_id)),
        ("Run", f"#{record.run_id}" if record.run_id is not None else "—"),
        ("When (UTC)", record.created_at.strftime("%Y-%m-%d %H:%M:%S")),
    ]
    if record.trace_id:
        facts.append(("Trace", f"{record.trace_id} / {record.span_id or '—'}"))
    data["facts"] = facts
    return data
