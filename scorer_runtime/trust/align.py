"""Improve this judge: from people's grades to a better judge version, proven on examples
it never saw.

:func:`plan_alignment` reads a version's graded examples (a person's latest grade and the
version's verdict), refuses in words when there are too few (:mod:`.align_split`) and splits
them into a tuning part and a holdout. :func:`prepare_candidates` builds the candidates from
the tuning part alone (:mod:`.align_candidates`; the guidelines cost one request to a judge).
:func:`run_alignment` scores the current version and each candidate on all the graded
examples, through the run-start service (each an ordinary run tagged with the alignment, so
it has the spend cap and the answer cache, and stays out of Runs, Results and agreement),
measures kappa with its interval on the holdout (and on the tuning part beside it), McNemar's
test of agreeing with the person against the current version on the same holdout examples,
and saves the best candidate as a new version, not approved, when it beats the current
version on the holdout.

The studio calls :func:`plan_alignment`, :func:`estimate_alignment`,
:func:`prepare_candidates` (the guidelines may be edited, :meth:`Candidates.edited`), then
:func:`run_alignment` with a progress callback.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from scorer_runtime.batch.runner import BatchProgress, BatchRunner
from scorer_runtime.costs.cap import JudgeCap
from scorer_runtime.costs.estimate import CostEstimate, SampleExample, estimate_cost
from scorer_runtime.money import cost_words
from scorer_runtime.runs.start import RunRequest, StartPlan, plan_run, store_run
from scorer_runtime.saved_scorers import compile_version, judge_profiles
from scorer_runtime.spec import ScorerSpec, load_spec
from scorer_runtime.spec.judge_choice import with_judge_profile
from scorer_runtime.store.alignments import alignment_runs, create_alignment
from scorer_runtime.store.engine import read_session, session_scope
from scorer_runtime.store.labels import examples_by_id
from scorer_runtime.store.runs import cancel_unended
from scorer_runtime.store.scorers import get_version_by_id, save_scorer_version
from scorer_runtime.store.stability import run_scores
from scorer_runtime.trust.ab import mcnemar
from scorer_runtime.trust.agreement import measure
from scorer_runtime.trust.align_candidates import (
    KINDS,
    WHAT_CHANGED,
    Guidelines,
    TuningExample,
    pick_worked,
    step_judges,
    with_guidelines,
    with_worked_examples,
    write_guidelines,
)
from scorer_runtime.trust.align_plan import (
    AlignPlan,
    NotReadyError,
    alignment_readiness,
    graded_examples,
    plan_alignment,
)
from scorer_runtime.trust.align_report import (
    HOLDOUT_IN_WORDS,
    NOT_APPROVED_IN_WORDS,
    AlignReport,
    CandidateResult,
    Figures,
    evidence_words,
)

__all__ = [
    "HOLDOUT_IN_WORDS",
    "NOT_APPROVED_IN_WORDS",
    "AlignPlan",
    "AlignReport",
    "Candidate",
    "CandidateResult",
    "Candidates",
    "Figures",
    "NotReadyError",
    "alignment_readiness",
    "check_alignment_cap",
    "estimate_alignment",
    "graded_examples",
    "plan_alignment",
    "prepare_candidates",
    "run_alignment",
    "stop_alignment",
]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A scorer draft built from the tuning part: its kind and its spec's data."""

    kind: str
    spec: dict[str, Any]
    what_changed: str


@dataclass(frozen=True, slots=True)
class Candidates:
    """The candidates to try, the guidelines they hold, what writing them cost, and the
    kinds that could not be built (with why)."""

    items: tuple[Candidate, ...]
    guidelines: Guidelines
    skipped: Mapping[str, str]
    base: ScorerSpec
    """The current version's spec, which every candidate changes."""
    instructions: Mapping[str, str]
    """What each judge step's instructions say now, by step name."""
    worked: tuple[TuningExample, ...]
    """The tuning examples the worked-examples candidates show."""

    @property
    def cost(self) -> float:
        """What writing the guidelines cost (0 when its price is not known)."""
        return self.guidelines.cost or 0.0

    def edited(self, lines: Sequence[str]) -> Candidates:
        """The candidates rebuilt with the guidelines a person edited (blank lines dropped)."""
        kept = tuple(line.strip() for line in lines if line.strip())
        if not kept:
            raise ValueError("keep at least one guideline, or try the worked examples alone")
        guidelines = replace(self.guidelines, lines=kept)
        return _candidates(self.base, guidelines, self.instructions, self.worked)


def _tuning_examples(session: Session, plan: AlignPlan) -> list[TuningExample]:
    """The tuning part as candidates may show it (never a holdout example)."""
    examples = examples_by_id(session, example_ids=plan.split.tuning)
    return [
        TuningExample(examples[i], plan.graded[i], plan.scale.verdict(plan.graded[i].score))
        for i in plan.split.tuning
    ]


async def prepare_candidates(
    engine: Engine, plan: AlignPlan, *, guidelines_judge: str | None = None
) -> Candidates:
    """Build the candidates from the tuning part: the guidelines (one request to the
    version's judge, or to the saved judge ``guidelines_judge``), the worked examples, both."""
    with read_session(engine) as session:
        tuning = _tuning_examples(session, plan)
        version = get_version_by_id(session, version_id=plan.scorer_version_id)
        scorer = compile_version(session, version)
        writer = scorer
        if guidelines_judge is not None:
            other = with_judge_profile(version.spec, guidelines_judge)
            writer = compile_version(session, replace(version, spec=other))
    judges = step_judges(scorer)
    instructions = {name: judge.instructions or "" for name, judge in judges.items()}
    wrong = [t for t in tuning if not t.graded.agrees]
    written = await write_guidelines(
        next(iter(step_judges(writer).values())), "\n\n".join(instructions.values()), wrong
    )
    return _candidates(version.spec, written, instructions, pick_worked(tuning))


def _candidates(
    spec: ScorerSpec,
    guidelines: Guidelines,
    instructions: Mapping[str, str],
    worked: Sequence[TuningExample],
) -> Candidates:
    built: list[Candidate] = []
    skipped: dict[str, str] = {}
    guided = with_guidelines(spec, guidelines.text(), instructions)
    for kind in KINDS:
        if kind != "guidelines" and not worked:
            skipped[kind] = "no tuning example fits a worked example (answer or note too long)"
            continue
        data = {
            "guidelines": guided,
            "worked_examples": with_worked_examples(spec, worked),
            "both": with_worked_examples(spec, worked, guided),
        }[kind]
        built.append(Candidate(kind, data, WHAT_CHANGED[kind]))
    return Candidates(tuple(built), guidelines, skipped, spec, instructions, tuple(worked))


_CUT_SHORT = ("stopped", "cancelled", "failed")
"""A run that did not score all it should: the alignment is then no evidence."""

ProgressFn = Callable[[str, BatchProgress], None]
"""Told which version is scored ("current" or a candidate's kind) and its progress."""


async def estimate_alignment(engine: Engine, plan: AlignPlan) -> CostEstimate:
    """What scoring the graded examples with the current version and the candidates costs
    (each candidate's prompt is a little longer: this is the current version's price for all
    four versions), rehearsed without a provider call."""
    with read_session(engine) as session:
        version = get_version_by_id(session, version_id=plan.scorer_version_id)
        scorer = compile_version(session, version)
        examples = examples_by_id(session, example_ids=list(plan.graded))
    sample = [
        SampleExample(e.input, e.output, e.ground_truth, e.request_context)
        for e in examples.values()
    ]
    return await estimate_cost(scorer, sample, examples=len(sample) * (1 + len(KINDS)))


def _plans(
    engine: Engine,
    plan: AlignPlan,
    candidates: Candidates,
    *,
    max_cost: float | JudgeCap | None,
    allow_unpriced: bool,
) -> list[tuple[str, StartPlan]]:
    """Each run to make (the current version's, then each candidate's, per dataset), planned
    before any is stored: compiled, keys checked, cap checked."""
    kinds: list[tuple[str, dict[str, Any] | None]] = [("current", None)]
    kinds += [(c.kind, c.spec) for c in candidates.items]
    share: float | JudgeCap | None = max_cost  # the judge's default cap, or none, per run
    if isinstance(max_cost, float | int):
        share = max(max_cost - candidates.cost, 0.0) / (len(kinds) * plan.runs_per_candidate)
    return [
        (
            kind,
            plan_run(
                engine,
                RunRequest(
                    plan.scorer_version_id,
                    dataset_id,
                    max_cost=share,
                    allow_unpriced=allow_unpriced,
                    candidate=None if spec is None else kind,
                    candidate_spec=spec,
                ),
            ),
        )
        for kind, spec in kinds
        for dataset_id in plan.dataset_ids
    ]


def check_alignment_cap(
    engine: Engine,
    plan: AlignPlan,
    *,
    max_cost: float | JudgeCap | None,
    allow_unpriced: bool = True,
) -> None:
    """Before anything is spent (the guidelines included): refuse in words
    (:class:`~scorer_runtime.costs.cap.CapError`, :class:`~scorer_runtime.runs.RunRefusedError`)
    an alignment whose runs could not keep their share of ``max_cost``, or whose version
    cannot run (a key not set). The current version's runs and the worked examples' are
    checked; the guidelines' length is known only once written (:func:`run_alignment` checks
    every run again before the first is scored)."""
    share: float | JudgeCap | None = max_cost
    if isinstance(max_cost, float | int):
        share = max_cost / ((1 + len(KINDS)) * plan.runs_per_candidate)
    with read_session(engine) as session:
        worked = pick_worked(_tuning_examples(session, plan))
        spec = get_version_by_id(session, version_id=plan.scorer_version_id).spec
    specs: list[dict[str, Any] | None] = [None]
    if worked:
        specs.append(with_worked_examples(spec, worked))
    for candidate_spec in specs:
        for dataset_id in plan.dataset_ids:
            request = RunRequest(
                plan.scorer_version_id,
                dataset_id,
                max_cost=share,
                allow_unpriced=allow_unpriced,
                candidate_spec=candidate_spec,
            )
            plan_run(engine, request)


async def run_alignment(
    engine: Engine,
    plan: AlignPlan,
    candidates: Candidates,
    *,
    max_cost: float | JudgeCap | None = None,
    allow_unpriced: bool = True,
    progress: ProgressFn | None = None,
) -> AlignReport:
    """Score the current version and each candidate on the graded examples here, one run
    after another; measure on the holdout; save the best candidate as a new version (not
    approved) when it beats the current version there. ``max_cost`` in dollars caps the
    whole alignment (what the guidelines cost included): each run stops at an equal share of
    what is left (:data:`~scorer_runtime.costs.cap.JUDGE_CAP`: each at the judge's default
    cap; None: no cap). A run cut short (its cap, a cancel) leaves its examples unscored, and the
    figures are measured on what was scored."""
    plans = await asyncio.to_thread(
        _plans, engine, plan, candidates, max_cost=max_cost, allow_unpriced=allow_unpriced
    )
    with session_scope(engine) as session:
        alignment = create_alignment(
            session,
            scorer_version_id=plan.scorer_version_id,
            tuning_ids=plan.split.tuning,
            holdout_ids=plan.split.holdout,
            seed=plan.split.seed,
        )
    for kind, each in plans:
        tagged = replace(each, request=replace(each.request, alignment_id=alignment.id))
        with session_scope(engine) as session:
            ran = alignment_runs(session, alignment_id=alignment.id)
            if any(r.status in _CUT_SHORT for r in ran):
                break  # stopped, or a run reached its cap: no more runs
            stored = store_run(session, tagged)
        told = None if progress is None else _told(progress, kind)
        await BatchRunner(
            engine, each.scorer, run_id=stored.id, progress=told, source=each.source
        ).run()
    return await asyncio.to_thread(_finish, engine, plan, candidates, alignment.id)


def stop_alignment(engine: Engine, alignment_id: int) -> list[int]:
    """Ask every run of the alignment that has not ended to cancel (no further run starts);
    the ids of those runs. What was scored is kept; nothing is saved."""
    with session_scope(engine) as session:
        return cancel_unended(session, alignment_runs(session, alignment_id=alignment_id))


def _told(progress: ProgressFn, kind: str) -> Callable[[BatchProgress], None]:
    return lambda p: progress(kind, p)


def _finish(
    engine: Engine, plan: AlignPlan, candidates: Candidates, alignment_id: int
) -> AlignReport:
    with read_session(engine) as session:
        runs = alignment_runs(session, alignment_id=alignment_id)
        scores: dict[str, dict[int, float]] = {}
        cost, priced, unpriced = candidates.cost, 0, 0
        if candidates.guidelines.cost is None:
            unpriced += 1
        for run in runs:
            kind = run.candidate or "current"
            for row in run_scores(session, run_id=run.id):
                cost += row.cost or 0.0
                priced += row.cost is not None and row.cost > 0
                unpriced += row.cost is None
                if row.score is not None:
                    scores.setdefault(kind, {})[row.example_id] = float(row.score)
    current = scores.get("current", {})
    results = [
        _result(plan, c.kind, c.what_changed, current, scores.get(c.kind, {}))
        for c in candidates.items
    ]
    cut_short = tuple(r.id for r in runs if r.status in _CUT_SHORT)
    chosen = None if cut_short else _best(results)
    saved = None
    if chosen is not None:
        saved = _save(engine, plan, candidates, chosen, current)
        results = [replace(r, version=saved) if r.kind == chosen.kind else r for r in results]
    return AlignReport(
        plan,
        alignment_id,
        _figures(plan, current, plan.split.holdout),
        _figures(plan, current, plan.split.tuning),
        tuple(results),
        saved,
        cost,
        candidates.guidelines.lines,
        candidates.skipped,
        cost_words(cost, priced, unpriced),
        cut_short,
    )


def _figures(plan: AlignPlan, scores: Mapping[int, float], ids: Sequence[int]) -> Figures:
    """Agreement with people of ``scores`` on the examples ``ids`` that have a score."""
    pairs = [(plan.graded[i].grade, scores[i]) for i in ids if i in scores]
    agreed = sum(plan.scale.verdict(h) == plan.scale.verdict(s) for h, s in pairs)
    return Figures(len(pairs), agreed, measure(pairs, plan.scale))


def _agrees(plan: AlignPlan, scores: Mapping[int, float], example_id: int) -> bool:
    grade = plan.graded[example_id].grade
    return plan.scale.verdict(grade) == plan.scale.verdict(scores[example_id])


def _result(
    plan: AlignPlan,
    kind: str,
    what_changed: str,
    current: Mapping[int, float],
    scores: Mapping[int, float],
) -> CandidateResult:
    holdout = _figures(plan, scores, plan.split.holdout)
    both = [i for i in plan.split.holdout if i in current and i in scores]
    test = mcnemar(
        [_agrees(plan, scores, i) for i in both], [_agrees(plan, current, i) for i in both]
    )
    now = _figures(plan, current, plan.split.holdout).agreement.kappa.value
    value = holdout.agreement.kappa.value
    better = value is not None and (now is None or value > now)
    return CandidateResult(
        kind,
        what_changed,
        holdout,
        _figures(plan, scores, plan.split.tuning),
        test.p_value,
        better,
    )


def _best(results: Sequence[CandidateResult]) -> CandidateResult | None:
    """The candidate with the highest holdout kappa, when it beats the current version."""
    better = [r for r in results if r.better]
    if not better:
        return None
    return max(better, key=lambda r: (r.holdout.agreement.kappa.value or 0.0, r.holdout.agreed))


def _save(
    engine: Engine,
    plan: AlignPlan,
    candidates: Candidates,
    chosen: CandidateResult,
    current: Mapping[int, float],
) -> int:
    """Save the chosen candidate as the scorer's next version, its evidence as the
    version's note; its number."""
    spec = next(c.spec for c in candidates.items if c.kind == chosen.kind)
    before = _figures(plan, current, plan.split.holdout)
    note = (
        f"Improved from version {plan.version} from people's grades ({chosen.what_changed}): "
        f"{evidence_words(before, chosen)}. Not approved."
    )
    with session_scope(engine) as session:
        checked = load_spec(spec, judge_profiles=judge_profiles(session))
        return save_scorer_version(session, spec=checked, name=plan.scorer_name, note=note).version
