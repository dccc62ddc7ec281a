"""The estimate for a stored dataset: a spread sample of its examples, scaled to the rest."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, exists, func
from sqlmodel import Session, col, select

from scorer_runtime.costs.cap import check_cap
from scorer_runtime.costs.estimate import SAMPLE_SIZE, CostEstimate, SampleExample, estimate_cost
from scorer_runtime.judge.cache import CachedAnswer
from scorer_runtime.scorer import Scorer
from scorer_runtime.store.answers import read_answer
from scorer_runtime.store.engine import read_session
from scorer_runtime.store.tables import ExampleRecord, RunRecord, ScoreRecord


def sample_dataset(
    engine: Engine, *, dataset_id: int, run_id: int | None = None
) -> tuple[list[SampleExample], int]:
    """Up to :data:`SAMPLE_SIZE` examples spread over the dataset, and how many examples a
    run scores (for ``run_id``, a run being resumed: those without a result yet)."""
    query = select(ExampleRecord.id).where(ExampleRecord.dataset_id == dataset_id)
    if run_id is not None:
        scored = exists().where(
            col(ScoreRecord.run_id) == run_id, col(ScoreRecord.example_id) == col(ExampleRecord.id)
        )
        query = query.where(~scored)
    with read_session(engine) as session:
        count = session.exec(select(func.count()).select_from(query.subquery())).one()
        if count == 0:
            return [], 0
        step = max(1, count // SAMPLE_SIZE)
        ids = session.exec(query.order_by(col(ExampleRecord.id))).all()[::step][:SAMPLE_SIZE]
        rows = session.exec(select(ExampleRecord).where(col(ExampleRecord.id).in_(ids))).all()
        sample = [SampleExample(e.input, e.output, e.ground_truth, e.request_context) for e in rows]
    return sample, int(count)


async def estimate_dataset(
    engine: Engine,
    scorer: Scorer[Any, Any],
    *,
    dataset_id: int,
    run_id: int | None = None,
    use_cache: bool = False,
) -> CostEstimate:
    """What scoring the dataset (or what a resumed run has left of it) will cost.

    ``use_cache``: the run takes judge answers from the store's answer cache (a resumed run
    only when it was started so); answers already there are counted as cached. The scorer's
    own ``cache_answers`` is kept to as a run keeps to it."""
    sample, count = sample_dataset(engine, dataset_id=dataset_id, run_id=run_id)
    if not use_cache:
        return await estimate_cost(scorer, sample, examples=count)
    with read_session(engine) as session:
        run = session.get(RunRecord, run_id) if run_id is not None else None
        cache = None if run is not None and not run.use_cache else _SessionCache(session)
        return await estimate_cost(scorer, sample, examples=count, cache=cache)


async def check_dataset_cap(
    engine: Engine,
    scorer: Scorer[Any, Any],
    *,
    dataset_id: int,
    cap: float,
    allow_unpriced: bool,
    run_id: int | None = None,
    spent: float = 0.0,
) -> CostEstimate:
    """Raise :class:`~scorer_runtime.costs.cap.CapError` (in words, before anything is
    stored) when a run of the dataset (or what run ``run_id`` has left, ``spent`` dollars
    spent) must not start under ``cap``: see :func:`~scorer_runtime.costs.cap.check_cap`.
    The estimate it was checked on, when it may."""
    estimate = await estimate_dataset(engine, scorer, dataset_id=dataset_id, run_id=run_id)
    check_cap(cap, estimate, spent=spent, allow_unpriced=allow_unpriced)
    return estimate


class _SessionCache:
    """The store's answers, looked up by key on one connection: the sample's few requests
    need no prefetch of the scorer's answers, nor a connection each."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def get(self, key: str) -> CachedAnswer | None:
        return read_answer(self.session, key)
