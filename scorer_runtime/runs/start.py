"""The one way a run starts: plan it, then store it.

:func:`plan_run` reads the scorer version (or the run to resume), compiles it **once**, checks
that every judge it calls has its key, chooses the spend cap (the one asked for, the judge's
default, or a resumed run's own) and checks the run can keep it. It returns a
:class:`StartPlan`, or refuses in words before anything is stored: :class:`RunRefusedError`
for a version that no longer compiles or a key that is not set, a
:class:`~scorer_runtime.costs.cap.CapError` for a cap the run could not keep.

:func:`start_run` stores the planned run and its cap in one transaction, ``where`` it was
asked to run: ``"queue"`` for a runner to claim (the studio's Start and Resume,
``run --queue``, the Trust page's checks), or ``"here"``, owned by this process from the
start, so a runner serving the same store never takes it (``run``, ``stability`` and
``compare-versions`` on the command line, which may carry an ``--api-base`` only they know).
A run scored here is then scored by a :class:`~scorer_runtime.batch.BatchRunner` built from
the plan's compiled scorer.

Every run of the project is created here: ``store.create_run`` is called nowhere else
(``tests/test_architecture.py`` checks it).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Any, Literal

from sqlalchemy import Engine
from sqlmodel import Session

from scorer_runtime.costs.cap import JUDGE_CAP, CapError, JudgeCap, default_cap
from scorer_runtime.costs.dataset_estimate import check_dataset_cap
from scorer_runtime.saved_scorers import ScorerSource, check_judges, scorer_source
from scorer_runtime.scorer import Scorer
from scorer_runtime.store.caps import set_run_cap
from scorer_runtime.store.engine import read_session, session_scope
from scorer_runtime.store.queue import enqueue_again
from scorer_runtime.store.reservations import held_spend
from scorer_runtime.store.runs import RunInfo, create_run, get_run, run_counts
from scorer_runtime.store.scorers import get_version_by_id

Where = Literal["queue", "here"]
"""Who scores the run: a runner that claims it from the queue, or this process."""


class RunRefusedError(ValueError):
    """A run that was not started, and why (a sentence a person can act on)."""


@dataclass(frozen=True, slots=True)
class RunRequest:
    """What was asked: a scorer version on a dataset (or a run to resume), and how.

    ``max_cost`` is the spend cap in dollars, :data:`~scorer_runtime.costs.cap.JUDGE_CAP` for
    the judge's default cap (a resumed run keeps its own cap instead, when it has one), or
    None for no cap; ``allow_unpriced`` lets a model without a price run under it.
    ``api_base`` sends every judge request to another URL (a run scored ``here`` only: a
    runner knows nothing of it). ``stability_check_id`` makes the run a repeat of that
    check: it scores the check's sample and asks the judge afresh (no answer cache);
    ``health_check_id`` makes it a run of that health check, each example of the check's
    sample changed as ``perturbation`` says (None: scored as it is), also asked afresh.
    ``alignment_id`` makes it a run of that alignment (its graded examples of the dataset),
    scored by ``candidate_spec`` (named ``candidate``) instead of the version's own spec when
    given; such a run may take answers from the cache.
    """

    scorer_version_id: int
    dataset_id: int
    where: Where = "here"
    concurrency: int = 4
    use_cache: bool = True
    max_cost: float | JudgeCap | None = JUDGE_CAP
    allow_unpriced: bool = False
    api_base: str | None = None
    resume: int | None = None
    stability_check_id: int | None = None
    health_check_id: int | None = None
    perturbation: dict[str, Any] | None = None
    alignment_id: int | None = None
    candidate: str | None = None
    candidate_spec: dict[str, Any] | None = None

    @classmethod
    def resuming(cls, run: RunInfo, **how: Any) -> RunRequest:
        """A request to go on with ``run`` (its version, dataset, check and cache setting)."""
        kept = dict(
            scorer_version_id=run.scorer_version_id,
            dataset_id=run.dataset_id,
            concurrency=run.concurrency,
            use_cache=run.use_cache,
            stability_check_id=run.stability_check_id,
            health_check_id=run.health_check_id,
            perturbation=run.perturbation,
            alignment_id=run.alignment_id,
            candidate=run.candidate,
            candidate_spec=run.candidate_spec,
        )
        return cls(**{**kept, **how, "resume": run.id})


@dataclass(frozen=True, slots=True)
class StartPlan:
    """A run that may start: its scorer compiled once (and where workers build it from, None
    for a scorer built in code: see :meth:`given`), and the cap it keeps.

    ``cap`` is None for no cap; ``cap_kept`` means a resumed run goes on under the cap it
    already has (nothing is written to it); ``default_cap`` that the cap is the judge's
    default (nobody chose one), which the command line says.
    """

    request: RunRequest
    scorer: Scorer[Any, Any]
    source: ScorerSource | None = None
    cap: float | None = None
    allow_unpriced: bool = False
    cap_kept: bool = False
    default_cap: bool = False

    @classmethod
    def given(cls, request: RunRequest, scorer: Scorer[Any, Any]) -> StartPlan:
        """The plan of a scorer a program built itself (``run_batch``): taken as it is, with
        the cap asked for (None: none) and no checks (they are the program's own)."""
        cap = default_cap(scorer) if isinstance(request.max_cost, str) else request.max_cost
        return cls(request, scorer, cap=cap, allow_unpriced=request.allow_unpriced)

    def repeat_of(self, check_id: int) -> StartPlan:
        """The same run as one repeat of stability check ``check_id``: it scores the check's
        sample and asks the judge afresh (:func:`store_run`)."""
        request = replace(self.request, stability_check_id=check_id, use_cache=False)
        return replace(self, request=request)

    def perturbed(self, check_id: int, perturbation: dict[str, Any] | None) -> StartPlan:
        """The same run as one run of health check ``check_id``: it scores the check's sample,
        each example changed as ``perturbation`` says, and asks the judge afresh."""
        request = replace(
            self.request, health_check_id=check_id, perturbation=perturbation, use_cache=False
        )
        return replace(self, request=request)


def plan_run(engine: Engine, request: RunRequest) -> StartPlan:
    """The plan of ``request`` once it is known the run can start; refused in words otherwise
    (:class:`RunRefusedError`, :class:`~scorer_runtime.costs.cap.CapError`). Nothing is
    stored. Checking a cap estimates the run's cost on a sample (on an event loop of its own:
    from async code, call it with ``asyncio.to_thread``)."""
    if request.where == "queue" and request.api_base is not None:
        raise RunRefusedError(
            "A queued run is scored by a runner with the judge URL of its spec: "
            "another URL (--api-base) needs the run scored here"
        )
    with read_session(engine) as session:
        version = get_version_by_id(session, version_id=request.scorer_version_id)
        resumed = None if request.resume is None else get_run(session, run_id=request.resume)
        spent = 0.0 if resumed is None else _spent(session, run_id=resumed.id)
        try:
            source = scorer_source(
                session, version, api_base=request.api_base, candidate_spec=request.candidate_spec
            )
            scorer = source.build()  # compiled once for the whole start
            check_judges(scorer)
        except ValueError as error:  # a spec that no longer compiles, a judge without key
            # A queued run is refused where the person asked (studio, run --queue): say no
            # run was queued; a run here fails with the reason alone, as any command does.
            said = f"The run was not queued: {error}." if request.where == "queue" else error
            raise RunRefusedError(str(said)) from None
    plan = StartPlan(request, scorer, source, allow_unpriced=request.allow_unpriced)
    if isinstance(request.max_cost, str) and resumed is not None and resumed.max_cost is not None:
        return replace(
            plan, cap=resumed.max_cost, allow_unpriced=resumed.allow_unpriced, cap_kept=True
        )
    if isinstance(request.max_cost, str):
        plan = replace(plan, cap=default_cap(scorer), default_cap=True)
    else:
        plan = replace(plan, cap=request.max_cost)
    if plan.cap is not None:
        _check_cap(engine, plan, run_id=request.resume, spent=spent)
    return plan


def _spent(session: Session, *, run_id: int) -> float:
    """What run ``run_id`` has spent: its stored results' cost, and the worst case of the
    answers a runner of it set aside and lost when it stopped (see ``store.reservations``)."""
    return run_counts(session, run_id=run_id)[2] + held_spend(session, run_id=run_id).cost


def _check_cap(engine: Engine, plan: StartPlan, *, run_id: int | None, spent: float) -> None:
    """A cap the run could not keep starts nothing (CapError, in words; for the judge's
    default cap, saying where that cap is set)."""
    assert plan.cap is not None
    checked = check_dataset_cap(
        engine,
        plan.scorer,
        dataset_id=plan.request.dataset_id,
        cap=plan.cap,
        allow_unpriced=plan.allow_unpriced,
        run_id=run_id,
        spent=spent,
    )
    try:
        asyncio.run(checked)
    except CapError as error:
        if not plan.default_cap:
            raise
        raise CapError(
            f"{error}. It is the judge's default spend cap: “Stop a run at $” on the Judges page"
        ) from None


def start_run(engine: Engine, plan: StartPlan) -> RunInfo:
    """Store the planned run with its cap, in one transaction (no runner can claim it before
    its cap is set): a new run, or the resumed one put back in the queue or taken by this
    process. The run as stored."""
    with session_scope(engine) as session:
        return store_run(session, plan)


def store_run(session: Session, plan: StartPlan) -> RunInfo:
    """:func:`start_run` inside a transaction the caller holds (a stability check stores
    itself and all its repeats in one)."""
    request = plan.request
    if request.resume is not None:
        run = get_run(session, run_id=request.resume)
        if request.where == "queue":
            run = enqueue_again(session, run_id=run.id)
    else:
        run = create_run(
            session,
            scorer_version_id=request.scorer_version_id,
            dataset_id=request.dataset_id,
            concurrency=request.concurrency,
            stability_check_id=request.stability_check_id,
            health_check_id=request.health_check_id,
            perturbation=request.perturbation,
            alignment_id=request.alignment_id,
            candidate=request.candidate,
            candidate_spec=request.candidate_spec,
            # A trust check's run must ask the judge afresh.
            use_cache=request.use_cache
            and request.stability_check_id is None
            and request.health_check_id is None,
            here=request.where == "here",
        )
    if plan.cap_kept:
        return run
    # Running without a price only means something under a cap.
    unpriced = plan.allow_unpriced and plan.cap is not None
    return set_run_cap(session, run_id=run.id, max_cost=plan.cap, allow_unpriced=unpriced)
