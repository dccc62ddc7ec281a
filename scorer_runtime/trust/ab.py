"""Version A/B: two versions of a scorer on the identical stored examples of a dataset.

Each version's latest finished run of the whole dataset is reused when there is one (a
stability repeat, which scored a sample, never is); otherwise the command line scores it
(:func:`compare_versions`) or the studio queues it (:func:`queue_missing`). The report lists
the examples whose verdict differs, each version's mean score, cost, latency and agreement
with people on the labelled examples (percent with Wilson's interval, kappa with its Bayesian
bootstrap interval: :mod:`scorer_runtime.trust.intervals`), and McNemar's exact test of the
pass/fail difference.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean

from sqlalchemy import Engine
from sqlmodel import Session

from scorer_runtime.batch.runner import BatchRunner
from scorer_runtime.costs.cap import JUDGE_CAP, JudgeCap
from scorer_runtime.money import CostWords, cost_words
from scorer_runtime.runs.start import RunRefusedError, RunRequest, StartPlan, plan_run, start_run
from scorer_runtime.store.engine import read_session
from scorer_runtime.store.labels import latest_labels
from scorer_runtime.store.runs import RunInfo
from scorer_runtime.store.scorers import get_version_by_id
from scorer_runtime.store.stability import RunScore, latest_full_run, run_scores
from scorer_runtime.store.trust import graded_scale
from scorer_runtime.trust.agreement import NONE, Agreement, Estimate, measure
from scorer_runtime.trust.intervals import wilson
from scorer_runtime.trust.scale import Scale


@dataclass(frozen=True, slots=True)
class PeopleAgreement:
    """How often a version's verdict is the person's, on the labelled examples, and how far
    beyond chance (kappa, on the scorer's scale: :func:`scorer_runtime.trust.agreement.measure`).
    ``kappa`` is ``None`` when it cannot be measured, and ``kappa_missing`` says why."""

    labelled: int
    agreed: int
    kappa: Estimate = NONE
    kappa_name: str = "kappa"
    """Which kappa: "kappa", "weighted kappa" (three labels or more) or "kappa at the pass
    mark" (a number scale)."""
    kappa_missing: str = ""

    @property
    def percent(self) -> float:
        return self.agreed / self.labelled

    @property
    def percent_interval(self) -> tuple[float, float]:
        """Wilson's 95 % interval of the share agreed (5 of 5 is 57 % to 100 %, not 100 %)."""
        return wilson(self.agreed, self.labelled)

    def percent_words(self) -> str:
        """The share agreed with its interval, e.g. "100%, 95 % interval 57% to 100%"."""
        low, high = self.percent_interval
        return f"{self.percent:.0%}, 95 % interval {low:.0%} to {high:.0%}"

    def kappa_words(self) -> str:
        """The kappa in words: "kappa 0.78", or why it cannot be measured."""
        if self.kappa.value is None:
            return f"{self.kappa_name} cannot be measured: {self.kappa_missing}"
        return f"{self.kappa_name} {self.kappa.value:.2f}"

    def words(self) -> str:
        return (
            f"agrees with people on {self.agreed} of {self.labelled} labelled examples "
            f"({self.percent_words()}), {self.kappa_words()}"
        )


_SHORT_KAPPA = {
    "Cohen's kappa": "kappa",
    "quadratic-weighted kappa": "weighted kappa",
    "Cohen's kappa at the pass mark": "kappa at the pass mark",
}


def agreement_with_people(
    scale: Scale, scores: Mapping[int, float], labels: Mapping[int, float]
) -> PeopleAgreement | None:
    """Percent agreement and kappa of the version's verdicts with the latest human label per
    example; ``None`` without a labelled one."""
    labelled = [example for example in scores if example in labels]
    if not labelled:
        return None
    agreed = sum(scale.verdict(scores[e]) == scale.verdict(labels[e]) for e in labelled)
    measured = measure([(labels[e], scores[e]) for e in labelled], scale)
    return PeopleAgreement(
        len(labelled),
        agreed,
        measured.kappa,
        _SHORT_KAPPA.get(measured.kappa_name, measured.kappa_name),
        "" if measured.kappa.value is not None else _why_no_kappa(measured),
    )


def _why_no_kappa(measured: Agreement) -> str:
    """Why kappa is missing, short enough for a table cell."""
    if measured.n < 2:
        return "it needs at least 2 labelled examples"
    rows = [sum(row) for row in measured.confusion]
    columns = [sum(column) for column in zip(*measured.confusion, strict=True)]
    for who, counts in (("people", rows), ("this version", columns)):
        if sum(c > 0 for c in counts) == 1:
            grade = measured.categories[next(i for i, c in enumerate(counts) if c)]
            return f"{who} gave every labelled example the same grade ({grade})"
    return "the labelled examples do not allow it"


@dataclass(frozen=True, slots=True)
class McNemar:
    """McNemar's exact test on the examples where the two versions' pass/fail differ:
    ``a_only`` passed by A and failed by B, ``b_only`` the other way round."""

    a_only: int
    b_only: int
    p_value: float | None

    def words(self) -> str:
        if self.p_value is None:
            return "Both versions gave the same pass or fail on every example: nothing to test."
        split = (
            f"version A passes {self.a_only} example(s) that B fails, B passes {self.b_only} "
            "that A fails"
        )
        if self.p_value < 0.05:
            return (
                f"The versions differ more than chance would explain (McNemar's exact test, "
                f"p = {self.p_value:.3g}): {split}."
            )
        return (
            f"The difference could be chance (McNemar's exact test, p = {self.p_value:.3g}): "
            f"{split}."
        )


def mcnemar(a_pass: Sequence[bool], b_pass: Sequence[bool]) -> McNemar:
    """McNemar's exact test of paired pass/fail verdicts (scipy's binomial test on the
    discordant pairs)."""
    from scipy.stats import binomtest

    a_only = sum(a and not b for a, b in zip(a_pass, b_pass, strict=True))
    b_only = sum(b and not a for a, b in zip(a_pass, b_pass, strict=True))
    if a_only + b_only == 0:
        return McNemar(0, 0, None)
    return McNemar(a_only, b_only, float(binomtest(a_only, a_only + b_only, 0.5).pvalue))


@dataclass(frozen=True, slots=True)
class VersionSide:
    """One version's figures on the examples both versions scored."""

    scorer_version_id: int
    version: int
    run_id: int
    mean_score: float | None
    pass_rate: float | None
    cost: float
    """The sum of the known costs (see ``priced``, ``unpriced`` and :attr:`cost_words`)."""
    priced: int
    """Results on those examples with a positive cost."""
    unpriced: int
    """Results on those examples without a known price (the cost is then a lower bound)."""
    mean_latency_ms: float | None
    agreement: PeopleAgreement | None

    @property
    def cost_words(self) -> CostWords:
        """The cost in words: ``unknown`` when no result was priced, never a plain ``$0``."""
        return cost_words(self.cost, self.priced, self.unpriced)


@dataclass(frozen=True, slots=True)
class VerdictDifference:
    """An example the two versions judged differently."""

    example_id: int
    verdict_a: str
    verdict_b: str
    score_a: float
    score_b: float


@dataclass(frozen=True, slots=True)
class AbReport:
    """Two versions on the identical stored examples of one dataset."""

    dataset_id: int
    a: VersionSide
    b: VersionSide
    compared: int
    """Examples that both runs scored."""
    left_out: int
    """Examples that one run scored and the other did not (an error, or added later)."""
    differences: tuple[VerdictDifference, ...]
    test: McNemar


def _scored(rows: Sequence[RunScore]) -> dict[int, RunScore]:
    return {row.example_id: row for row in rows if row.score is not None}


def _side(
    run: RunInfo, version: int, scale: Scale, rows: Sequence[RunScore], labels: Mapping[int, float]
) -> VersionSide:
    scores = {row.example_id: float(row.score) for row in rows if row.score is not None}
    latencies = [row.latency_ms for row in rows if row.latency_ms is not None]
    return VersionSide(
        run.scorer_version_id,
        version,
        run.id,
        fmean(scores.values()) if scores else None,
        fmean(scale.passes(s) for s in scores.values()) if scores else None,
        sum(row.cost or 0.0 for row in rows),
        sum(row.cost is not None and row.cost > 0 for row in rows),
        sum(row.cost is None for row in rows),
        fmean(latencies) if latencies else None,
        agreement_with_people(scale, scores, labels),
    )


def ab_report(session: Session, *, run_a: RunInfo, run_b: RunInfo) -> AbReport:
    """The A/B of two finished runs of the same dataset."""
    if run_a.dataset_id != run_b.dataset_id:
        raise ValueError("the two runs scored different datasets: compare runs of one dataset")
    version_a = get_version_by_id(session, version_id=run_a.scorer_version_id)
    version_b = get_version_by_id(session, version_id=run_b.scorer_version_id)
    scale_a = graded_scale(session, scorer_version_id=version_a.id)
    scale_b = graded_scale(session, scorer_version_id=version_b.id)
    a_rows = _scored(run_scores(session, run_id=run_a.id))
    b_rows = _scored(run_scores(session, run_id=run_b.id))
    both = sorted(a_rows.keys() & b_rows.keys())
    labels = {
        example: label.value
        for example, label in latest_labels(session, scorer_id=run_a.scorer_id).items()
    }
    a_scores = [float(a_rows[e].score or 0.0) for e in both]
    b_scores = [float(b_rows[e].score or 0.0) for e in both]
    differences = tuple(
        VerdictDifference(e, scale_a.verdict(a), scale_b.verdict(b), a, b)
        for e, a, b in zip(both, a_scores, b_scores, strict=True)
        if scale_a.verdict(a) != scale_b.verdict(b)
    )
    return AbReport(
        run_a.dataset_id,
        _side(run_a, version_a.version, scale_a, [a_rows[e] for e in both], labels),
        _side(run_b, version_b.version, scale_b, [b_rows[e] for e in both], labels),
        len(both),
        len(a_rows.keys() ^ b_rows.keys()),
        differences,
        mcnemar([scale_a.passes(s) for s in a_scores], [scale_b.passes(s) for s in b_scores]),
    )


def runs_to_compare(
    session: Session, *, version_a: int, version_b: int, dataset_id: int
) -> tuple[RunInfo | None, RunInfo | None]:
    """Each version's latest finished run of the whole dataset (``None``: it has none)."""
    return (
        latest_full_run(session, scorer_version_id=version_a, dataset_id=dataset_id),
        latest_full_run(session, scorer_version_id=version_b, dataset_id=dataset_id),
    )


def plan_missing(
    engine: Engine,
    *,
    version_ids: Sequence[int],
    dataset_id: int,
    api_base: str | None = None,
    max_cost: float | JudgeCap | None = JUDGE_CAP,
    allow_unpriced: bool = True,
) -> dict[int, StartPlan]:
    """The run of each version in ``version_ids`` that has no finished run of the dataset,
    to be scored here: compiled once, keys and cap checked, before any judge call.

    Such a run stops at ``max_cost`` dollars (by default its judge's default cap, as in the
    studio; None: no cap). A cap a run could not keep (below one example's worst case, or on
    a model without a price unless ``allow_unpriced``) raises
    :class:`~scorer_runtime.costs.cap.CapError`.
    """
    with read_session(engine) as session:
        missing = [
            version_id
            for version_id in version_ids
            if latest_full_run(session, scorer_version_id=version_id, dataset_id=dataset_id) is None
        ]
    return {
        version_id: plan_run(
            engine,
            RunRequest(
                version_id,
                dataset_id,
                max_cost=max_cost,
                allow_unpriced=allow_unpriced,
                api_base=api_base,
            ),
        )
        for version_id in missing
    }


async def compare_versions(
    engine: Engine,
    *,
    version_a: int,
    version_b: int,
    dataset_id: int,
    planned: Mapping[int, StartPlan] | None = None,
) -> AbReport:
    """The A/B, scoring here (one version after the other) a version that has no finished
    run of the dataset yet, as ``planned`` by :func:`plan_missing` (None: planned here with
    its defaults, before either version is scored)."""
    if version_a == version_b:
        raise ValueError("pick two different versions to compare")
    pair = (version_a, version_b)
    plans = dict(planned) if planned is not None else None
    if plans is None:
        plans = await asyncio.to_thread(
            plan_missing, engine, version_ids=pair, dataset_id=dataset_id
        )
    with read_session(engine) as session:
        found = runs_to_compare(
            session, version_a=version_a, version_b=version_b, dataset_id=dataset_id
        )
    for version_id, run in zip(pair, found, strict=True):
        if run is None and version_id not in plans:  # its run went since it was planned
            plans.update(plan_missing(engine, version_ids=[version_id], dataset_id=dataset_id))
    runs: list[RunInfo] = []
    for version_id, run in zip(pair, found, strict=True):
        runs.append(run if run is not None else await _score_here(engine, plans[version_id]))
    with read_session(engine) as session:
        return ab_report(session, run_a=runs[0], run_b=runs[1])


async def _score_here(engine: Engine, plan: StartPlan) -> RunInfo:
    """Score the dataset with the planned version in this process; its finished run, or
    ValueError in words."""
    started = await asyncio.to_thread(start_run, engine, plan)
    with read_session(engine) as session:
        number = get_version_by_id(session, version_id=started.scorer_version_id).version
    runner = BatchRunner(engine, plan.scorer, run_id=started.id, source=plan.source)
    summary = await runner.run()
    if summary.status == "stopped":
        raise ValueError(  # at its cap: resumable, nothing lost
            f"run {summary.run_id} of version {number} {summary.error} "
            f"(scorer-studio run --resume {summary.run_id} --max-cost AMOUNT), then "
            "compare again"
        )
    with read_session(engine) as session:
        found = latest_full_run(
            session, scorer_version_id=started.scorer_version_id, dataset_id=started.dataset_id
        )
    if found is None or found.id != summary.run_id:
        raise ValueError(f"the run of version {number} did not finish")
    return found


def queue_missing(engine: Engine, *, version_ids: Sequence[int], dataset_id: int) -> list[int]:
    """Queue a run of the dataset for each version that has no finished one; their ids.

    Each run stops at its judge's default spend cap, as a run started on the Runs page
    does. A model without a price cannot be held to it, and runs all the same
    (``allow_unpriced``): the Trust page says so before the runs are queued. A version that
    cannot run (its spec, a key, a cap below what one example can cost) refuses, in words,
    before any run is queued.
    """
    plans = []
    for version_id in version_ids:
        with read_session(engine) as session:
            if latest_full_run(session, scorer_version_id=version_id, dataset_id=dataset_id):
                continue
            number = get_version_by_id(session, version_id=version_id).version
        request = RunRequest(version_id, dataset_id, where="queue", allow_unpriced=True)
        try:
            plans.append(plan_run(engine, request))
        except ValueError as error:  # RunRefusedError or CapError: name the version
            raise RunRefusedError(
                f"The run of version {number} was not queued: {_reason(error)}"
            ) from None
    return [start_run(engine, plan).id for plan in plans]


def _reason(error: ValueError) -> str:
    """Why a version cannot run, without the "The run was not queued:" a plan begins with."""
    text = str(error).removeprefix("The run was not queued: ")
    return text if text.endswith(".") else f"{text}."
