"""External scores: the verdicts other tools send as OpenTelemetry evaluation events, stored
beside ours.

Each ``gen_ai.evaluation.name`` is one *external scorer* (``scorers.external_name`` set),
called ``<name> (external)`` wherever scorers are named, with one version whose stored spec
has no steps: it reads back with problems, so nothing can compile, run or export it, and the
lists that offer scorers to build, run or score with leave it out. Each event is one score
of that scorer, linked to the trace and span it judged (as our trace scores are): the score
(or ``None``), the label in words, the explanation as the reason, and ``error.type`` as a
failed outcome. An event delivered twice (an exporter's retry) has the same ``event_key``
and is stored once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from scorer_runtime.store.scores import add_scores
from scorer_runtime.store.tables import ScoreRecord, ScorerRecord, ScorerVersionRecord, utc_now
from scorer_runtime.traces.received_evaluations import ExternalEvaluation
from scorer_runtime.types import Outcome

EXTERNAL_MARK = "(external)"
"""What follows an external scorer's name wherever it is shown."""
_MAX_SHOWN_NAME = 180


def external_scorer(session: Session, *, name: str) -> tuple[int, int]:
    """The ids of the external scorer for evaluation ``name`` and of its one version, made
    on first use (a second process making it at once is no error: its row is used)."""
    found = _find(session, name)
    if found is not None:
        return found
    try:
        with session.begin_nested():
            return _create(session, name)
    except IntegrityError:  # made meanwhile by another writer
        made = _find(session, name)
        if made is None:
            raise
        return made


def _find(session: Session, name: str) -> tuple[int, int] | None:
    query = (
        select(ScorerRecord.id, ScorerVersionRecord.id)
        .join(ScorerVersionRecord, col(ScorerVersionRecord.scorer_id) == col(ScorerRecord.id))
        .where(ScorerRecord.external_name == name)
    )
    row = session.exec(query).first()
    return (int(row[0] or 0), int(row[1] or 0)) if row is not None else None


def _create(session: Session, name: str) -> tuple[int, int]:
    shown = _free_name(session, shown_name(name))
    scorer = ScorerRecord(
        name=shown,
        description=f"Scores another tool sent as evaluation events named {name!r}.",
        external_name=name,
    )
    session.add(scorer)
    session.flush()
    assert scorer.id is not None
    # No steps: the spec does not validate, so nothing can compile or run this version.
    spec = {"id": shown, "name": shown, "description": scorer.description, "external": True}
    version = ScorerVersionRecord(
        scorer_id=scorer.id, version=1, spec=spec, content_hash="external", note="external"
    )
    session.add(version)
    session.flush()
    assert version.id is not None
    return scorer.id, version.id


def shown_name(name: str) -> str:
    """How an external scorer is called: the other tool's name, made printable, marked."""
    cleaned = "".join(ch if ch.isprintable() and ch not in "/\\" else " " for ch in name)
    words = " ".join(cleaned.split())[:_MAX_SHOWN_NAME] or "unnamed"
    return f"{words} {EXTERNAL_MARK}"


def _free_name(session: Session, shown: str) -> str:
    """``shown``, or ``shown 2``, ``shown 3``… when one of our scorers has that name."""
    taken = set(session.exec(select(ScorerRecord.name)).all())
    candidate, n = shown, 1
    while candidate in taken:
        n += 1
        candidate = f"{shown} {n}"
    return candidate


def external_score_row(
    evaluation: ExternalEvaluation, *, scorer_id: int, scorer_version_id: int
) -> dict[str, Any]:
    """The scores-table row of one evaluation event, linked to the span it judged."""
    outcome, error = _outcome(evaluation)
    return {
        "scorer_id": scorer_id,
        "scorer_version_id": scorer_version_id,
        "trace_id": evaluation.trace_id,
        "span_id": evaluation.span_id,
        "score": evaluation.score if outcome == "scored" else None,
        "outcome": outcome,
        "reason": evaluation.explanation,
        "error": error,
        "label": evaluation.label,
        "event_key": evaluation.key,
        "created_at": evaluation.time or utc_now(),
    }


def _outcome(evaluation: ExternalEvaluation) -> tuple[Outcome, str | None]:
    """The outcome of an event, and the error in words when it reports one."""
    if evaluation.error_type == "not_scorable":
        return "not_scorable", None
    if evaluation.error_type:
        return "step_error", f"the other tool could not evaluate this: {evaluation.error_type}"
    if evaluation.score is not None:
        return "scored", None
    # A label on a scale we do not know: kept in words, with no number.
    return "not_scorable", None


def save_external_scores(session: Session, *, evaluations: Sequence[ExternalEvaluation]) -> int:
    """Store each evaluation event as a score of its external scorer; returns how many were
    new (an event already stored, or twice in ``evaluations``, counts once)."""
    unique = list({e.key: e for e in evaluations}.values())
    if not unique:
        return 0
    stored = _stored_keys(session, [e.key for e in unique])
    fresh = [e for e in unique if e.key not in stored]
    scorers: dict[str, tuple[int, int]] = {}
    rows = []
    for evaluation in fresh:
        if evaluation.name not in scorers:
            scorers[evaluation.name] = external_scorer(session, name=evaluation.name)
        scorer_id, version_id = scorers[evaluation.name]
        rows.append(
            external_score_row(evaluation, scorer_id=scorer_id, scorer_version_id=version_id)
        )
    add_scores(session, rows=rows)  # a key stored meanwhile is ignored by the database
    return len(rows)


def _stored_keys(session: Session, keys: Iterable[str]) -> set[str]:
    query = select(ScoreRecord.event_key).where(col(ScoreRecord.event_key).in_(list(keys)))
    return {key for key in session.exec(query).all() if key}


def external_scorer_ids(session: Session) -> frozenset[int]:
    """The ids of every external scorer."""
    query = select(ScorerRecord.id).where(col(ScorerRecord.external_name).is_not(None))
    return frozenset(int(i) for i in session.exec(query).all() if i is not None)
