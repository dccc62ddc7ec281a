"""Improve this judge: from people's grades to a better judge version, proven on a holdout.

1. :func:`plan_align` reads the version's graded examples (the person's grade beside the
   judge's stored score), says what is missing when there are too few
   (:class:`NotReadyError`), and splits them into a tuning part and a holdout
   (:mod:`scorer_runtime.trust.align_split`).
2. :func:`write_guidelines` asks a judge model (the version's own judge, or a saved profile)
   for guidelines, showing it the tuning disagreements only.
3. :func:`try_candidates` builds the candidates (:mod:`scorer_runtime.trust.align_candidates`)
   and scores each on the tuning part and the holdout, here, with the store's judge answer
   cache and rate limits, under a spend cap checked before every example; the current
   version's figures are its stored scores (the ones agreement is measured on). Each version
   gets Cohen's kappa with its interval on the holdout (and on the tuning part, so
   over-fitting shows) and McNemar's exact test against the current version on the same
   holdout examples (right or wrong against the person).
4. :func:`save_best` saves the best candidate as a new version, never approved, with its
   evidence as the version's note, when it beats the current version on the holdout;
   otherwise nothing is saved.

Candidates are scored without being stored as runs: a run belongs to a saved version, and a
candidate that loses is never saved.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine

from scorer_runtime.costs.estimate import CostEstimate, SampleExample, estimate_cost
from scorer_runtime.judge.cache import using_cache
from scorer_runtime.judge.rate import using_ledger
from scorer_runtime.saved_scorers import check_judges, judge_profiles
from scorer_runtime.scorer import Scorer
from scorer_runtime.spec import compile_spec
from scorer_runtime.spec.models import ScorerSpec
from scorer_runtime.store.answers import StoreAnswerCache
from scorer_runtime.store.engine import read_session, session_scope
from scorer_runtime.store.labels import examples_by_id
from scorer_runtime.store.rate_windows import ledger_for
from scorer_runtime.store.scorers import get_scorer, get_version_by_id, save_scorer_version
from scorer_runtime.store.trust import agreement_data, graded_scale
from scorer_runtime.trust.ab import mcnemar
from scorer_runtime.trust.agreement import measure
from scorer_runtime.trust.align_candidates import (
    KIND_WORDS,
    WRITER_INSTRUCTIONS,
    WRITER_SCHEMA,
    CandidateKind,
    ExampleText,
    chosen_examples,
    guidelines_request,
    read_guidelines,
    with_guidelines,
    with_worked_examples,
    worked_example,
)
from scorer_runtime.trust.align_split import Graded, Split, disagrees, readiness, split_graded
from scorer_runtime.trust.scale import Scale

HOLDOUT_WORDS = (
    "A third of the graded examples are kept apart (the holdout): no candidate is built from "
    "them, so how a candidate does on them shows how it will do on examples it never saw."
)
NOT_APPROVED_WORDS = (
    "The new version is saved but not approved: approve it on the Trust page once its own "
    "checks (agreement on more grades, stability) meet your policy."
)


class NotReadyError(ValueError):
    """A version that cannot be improved yet; the message says what is missing."""


@dataclass(frozen=True, slots=True)
class AlignPlan:
    """What an improvement works from: the version, its scale, the split and the examples."""

    scorer_version_id: int
    scorer_id: int
    scorer_name: str
    version: int
    spec: ScorerSpec
    scale: Scale
    split: Split
    texts: Mapping[int, ExampleText]
    request_contexts: Mapping[int, Any]

    @property
    def holdout_example_ids(self) -> list[int]:
        return [g.example_id for g in self.split.holdout]


@dataclass(frozen=True, slots=True)
class Figures:
    """A version's agreement with people on one part: kappa with its interval, and n."""

    n: int
    kappa: float | None
    ci_low: float | None
    ci_high: float | None
    agreed: int

    def as_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "kappa": self.kappa,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "agreed": self.agreed,
        }


@dataclass(frozen=True, slots=True)
class CandidateResult:
    """One candidate: what it changed, its figures, McNemar's test against the current one."""

    kind: CandidateKind
    spec: ScorerSpec
    holdout: Figures
    tuning: Figures
    mcnemar_p: float | None
    cost: float
    stopped: str | None = None
    """Why it was not measured in full (the spend cap), or None."""
    version: int | None = None


@dataclass(frozen=True, slots=True)
class AlignReport:
    """Every candidate against the current version, and the one chosen (if any)."""

    plan: AlignPlan
    current_holdout: Figures
    current_tuning: Figures
    candidates: tuple[CandidateResult, ...]
    guidelines: tuple[str, ...]
    cost: float
    chosen: CandidateResult | None = None
    saved_version: int | None = None
    estimate: CostEstimate | None = field(default=None, compare=False)

    def as_json(self) -> dict[str, Any]:
        """The report for ``align --json``."""
        split = self.plan.split
        return {
            "scorer": self.plan.scorer_name,
            "version": self.plan.version,
            "tuning_n": len(split.tuning),
            "holdout_n": len(split.holdout),
            "holdout_example_ids": self.plan.holdout_example_ids,
            "current": {**self.current_holdout.as_json(), "tuning": self.current_tuning.as_json()},
            "guidelines": list(self.guidelines),
            "candidates": [
                {
                    "kind": c.kind,
                    "holdout": c.holdout.as_json(),
                    "tuning": c.tuning.as_json(),
                    "mcnemar_p": c.mcnemar_p,
                    "cost": c.cost,
                    "stopped": c.stopped,
                    "version": c.version,
                }
                for c in self.candidates
            ],
            "chosen_version": self.saved_version,
            "cost": self.cost,
        }


def plan_align(engine: Engine, *, scorer_version_id: int) -> AlignPlan:
    """The plan of improving a version; :class:`NotReadyError` in words when it cannot be."""
    with read_session(engine) as session:
        version = get_version_by_id(session, version_id=scorer_version_id)
        scale = graded_scale(session, scorer_version_id=scorer_version_id)
        data = agreement_data(
            session, scorer_id=version.scorer_id, scorer_version_id=scorer_version_id
        )
        graded = [Graded(p.example_id, p.human, p.judge, p.note) for p in data.pairs]
        problem = readiness(graded, scale)
        if problem is not None:
            raise NotReadyError(problem)
        examples = examples_by_id(session, example_ids=[g.example_id for g in graded])
        name = get_scorer(session, id=version.scorer_id).name
    texts = {i: ExampleText(e.input, e.output, e.ground_truth) for i, e in examples.items()}
    contexts = {i: e.request_context for i, e in examples.items()}
    return AlignPlan(
        scorer_version_id,
        version.scorer_id,
        name,
        version.version,
        version.spec,
        scale,
        split_graded(graded, scale),
        texts,
        contexts,
    )


async def write_guidelines(
    engine: Engine, plan: AlignPlan, *, profile: str | None = None
) -> tuple[list[str], float]:
    """Guidelines a judge model wrote from the tuning disagreements, and what they cost.
    ``profile`` names a saved judge profile to write them (default: the version's judge)."""
    with read_session(engine) as session:
        profiles = judge_profiles(session)
    judge = _writer_judge(plan.spec, profiles, profile)
    spec = {
        "id": "guidelines-writer",
        "description": "Writes guidelines from disagreements with people",
        "judge": judge,
        "cache_answers": False,
        "steps": [
            {
                "step": "analyze",
                "description": "Write guidelines",
                "template": "Examples where the judge and a person disagreed:\n\n{{ input }}",
                "output_schema": WRITER_SCHEMA,
            },
            {"step": "generate_score", "formula": "1"},
        ],
    }
    writer = compile_spec(spec, judge_profiles=profiles)
    check_judges(writer)
    request = guidelines_request(plan.split.tuning, plan.texts, plan.scale)
    with using_ledger(ledger_for(engine)):
        result = await writer.run(input=request, output="")
    return read_guidelines(result.analyze_step_result), float(result.cost or 0.0)


def _writer_judge(spec: ScorerSpec, profiles: Mapping[str, Any], profile: str | None) -> Any:
    """The judge settings that write guidelines: a saved profile, or the version's judge."""
    from scorer_runtime.trust.align_candidates import deciding_step

    if profile is not None:
        if profile not in profiles:
            saved = ", ".join(sorted(profiles)) or "none is saved"
            raise ValueError(f"there is no saved judge named {profile!r} ({saved})")
        base = profiles[profile]
    else:
        step = spec.steps[deciding_step(spec)]
        ref = getattr(step, "judge", None) or spec.judge
        base = profiles.get(ref) if isinstance(ref, str) else ref
        if base is None:
            raise ValueError("this scorer names no judge to write guidelines with")
        if ref is not spec.judge and spec.judge is not None:  # a step's own fields win
            scorer_judge = profiles.get(spec.judge) if isinstance(spec.judge, str) else spec.judge
            if scorer_judge is not None:
                merged = scorer_judge.model_dump(exclude_none=True)
                merged.update(base.model_dump(exclude_none=True))
                base = type(base).model_validate(merged)
    data = base.model_dump(exclude_none=True)
    data["instructions"] = WRITER_INSTRUCTIONS
    return data


def candidate_specs(
    engine: Engine, plan: AlignPlan, guidelines: Sequence[str]
) -> list[tuple[CandidateKind, ScorerSpec]]:
    """The candidates to try: worked examples, and with guidelines, guidelines and both."""
    with read_session(engine) as session:
        profiles = judge_profiles(session)
    shown = [
        worked_example(g, plan.texts[g.example_id], plan.scale)
        for g in chosen_examples(plan.split.tuning, plan.scale)
    ]
    found: list[tuple[CandidateKind, ScorerSpec]] = [
        ("worked_examples", with_worked_examples(plan.spec, shown))
    ]
    if any(line.strip() for line in guidelines):
        guided = with_guidelines(plan.spec, guidelines, profiles)
        found += [("guidelines", guided), ("both", with_worked_examples(guided, shown))]
    return found


async def estimate_candidates(
    engine: Engine, plan: AlignPlan, candidates: Sequence[tuple[CandidateKind, ScorerSpec]]
) -> CostEstimate | None:
    """What scoring every candidate on every graded example may cost (the judge answer cache
    counted), estimated on a sample; None with no candidate."""
    total: CostEstimate | None = None
    scorers = _compiled(engine, candidates)
    cache = StoreAnswerCache(engine, scorer_id=None)
    sample = [_sample(plan, g.example_id) for g in (*plan.split.tuning, *plan.split.holdout)]
    for scorer in scorers:
        found = await estimate_cost(scorer, sample, examples=len(sample), cache=cache)
        total = found if total is None else _added(total, found)
    return total


Progress = Callable[[str, int, int], None]
"""Told the candidate's kind, how many of its examples are scored, and how many in all."""


async def try_candidates(
    engine: Engine,
    plan: AlignPlan,
    candidates: Sequence[tuple[CandidateKind, ScorerSpec]],
    *,
    guidelines: Sequence[str] = (),
    max_cost: float | None = None,
    spent: float = 0.0,
    concurrency: int = 4,
    progress: Progress | None = None,
) -> AlignReport:
    """Score each candidate on the tuning part and the holdout and measure every version;
    the spend cap (``max_cost``, with ``spent`` already spent) stops a candidate before an
    example that could pass it."""
    scorers = _compiled(engine, candidates)
    ids = [g.example_id for g in (*plan.split.tuning, *plan.split.holdout)]
    cache = StoreAnswerCache(engine, scorer_id=None)
    await asyncio.to_thread(cache.preload)
    results: list[CandidateResult] = []
    budget = _Budget(max_cost, spent)
    with using_cache(cache), using_ledger(ledger_for(engine)):
        for (kind, spec), scorer in zip(candidates, scorers, strict=True):
            told = None if progress is None else _told(progress, kind, len(ids))
            scores, cost, stopped = await _score(
                scorer, plan, ids, budget, concurrency=concurrency, progress=told
            )
            results.append(_result(plan, kind, spec, scores, cost, stopped))
    current = {g.example_id: g.judge for g in (*plan.split.tuning, *plan.split.holdout)}
    return AlignReport(
        plan,
        _figures(plan.split.holdout, current, plan.scale),
        _figures(plan.split.tuning, current, plan.scale),
        tuple(results),
        tuple(guidelines),
        budget.spent - spent,
    )


def best_candidate(report: AlignReport) -> CandidateResult | None:
    """The candidate with the highest holdout kappa, measured in full, when it beats the
    current version's holdout kappa; None otherwise."""
    now = report.current_holdout.kappa
    measured = [c for c in report.candidates if c.stopped is None and c.holdout.kappa is not None]
    if not measured:
        return None
    best = max(measured, key=lambda c: (c.holdout.kappa or -2.0, -len(c.kind)))
    if now is not None and (best.holdout.kappa or -2.0) <= now:
        return None
    return best


def evidence_words(report: AlignReport, chosen: CandidateResult) -> str:
    """The saved version's note: what changed and the holdout figures it won on."""
    now, new = report.current_holdout, chosen.holdout
    p = "n/a" if chosen.mcnemar_p is None else f"{chosen.mcnemar_p:.3g}"
    return (
        f"Improved from version {report.plan.version} ({KIND_WORDS[chosen.kind].lower()}): "
        f"holdout kappa {_kappa(now)} → {_kappa(new)} on {new.n} examples it never saw, "
        f"McNemar p = {p}; tuning kappa {_kappa(chosen.tuning)}. Not approved."
    )


def save_best(engine: Engine, report: AlignReport) -> AlignReport:
    """Save the best candidate as a new version (never approved), its evidence as the note;
    the report with what was chosen and saved (nothing when no candidate beats the current)."""
    chosen = best_candidate(report)
    if chosen is None:
        return report
    with session_scope(engine) as session:
        saved = save_scorer_version(
            session,
            spec=chosen.spec,
            name=report.plan.scorer_name,
            note=evidence_words(report, chosen)[:500],
        )
    marked = tuple(_with_version(c, saved.version) if c is chosen else c for c in report.candidates)
    chosen = next(c for c in marked if c.version is not None)
    return AlignReport(
        report.plan,
        report.current_holdout,
        report.current_tuning,
        marked,
        report.guidelines,
        report.cost,
        chosen,
        saved.version,
        report.estimate,
    )


# -- scoring -------------------------------------------------------------------------------


@dataclass
class _Budget:
    cap: float | None
    spent: float

    def allows(self, worst: float) -> bool:
        return self.cap is None or self.spent + worst <= self.cap + 1e-12


def _compiled(
    engine: Engine, candidates: Sequence[tuple[CandidateKind, ScorerSpec]]
) -> list[Scorer[Any, Any]]:
    with read_session(engine) as session:
        profiles = judge_profiles(session)
    scorers = [compile_spec(spec, judge_profiles=profiles) for _, spec in candidates]
    for scorer in scorers:
        check_judges(scorer)
    return scorers


def _sample(plan: AlignPlan, example_id: int) -> SampleExample:
    text = plan.texts[example_id]
    return SampleExample(
        text.input, text.output, text.ground_truth, plan.request_contexts.get(example_id)
    )


async def _score(
    scorer: Scorer[Any, Any],
    plan: AlignPlan,
    ids: Sequence[int],
    budget: _Budget,
    *,
    concurrency: int,
    progress: Callable[[int], None] | None,
) -> tuple[dict[int, float], float, str | None]:
    """Each example's score (failed ones left out), what it cost, and why it stopped early."""
    worst = await _worst_example(scorer, plan, ids)
    gate = asyncio.Semaphore(concurrency)
    scores: dict[int, float] = {}
    cost = 0.0
    stopped: list[str] = []
    done = 0

    async def one(example_id: int) -> None:
        nonlocal cost, done
        async with gate:
            if stopped or not budget.allows(worst):
                if not stopped:
                    stopped.append("stopped at the spend cap before every example was scored")
                return
            budget.spent += worst  # set aside while it is scored
            try:
                sample = _sample(plan, example_id)
                result = await scorer.run(
                    input=sample.input,
                    output=sample.output,
                    ground_truth=sample.ground_truth,
                    request_context=sample.request_context,
                )
            except Exception:  # left out, as a failed run result is; what it called before
                return  # failing may have been paid: its worst case stays counted
            finally:
                done += 1
                if progress is not None:
                    progress(done)
            paid = float(result.cost or 0.0)
            budget.spent += paid - worst
            cost += paid
            if result.score is not None:
                scores[example_id] = float(result.score)

    await asyncio.gather(*(one(i) for i in ids))
    return scores, cost, stopped[0] if stopped else None


async def _worst_example(scorer: Scorer[Any, Any], plan: AlignPlan, ids: Sequence[int]) -> float:
    """The most one example may cost, from a rehearsal (0 for an unpriced model)."""
    sample = [_sample(plan, i) for i in ids]
    found = await estimate_cost(scorer, sample, examples=len(sample))
    return float(found.example_worst_cost or 0.0)


def _result(
    plan: AlignPlan,
    kind: CandidateKind,
    spec: ScorerSpec,
    scores: Mapping[int, float],
    cost: float,
    stopped: str | None,
) -> CandidateResult:
    holdout = _figures(plan.split.holdout, scores, plan.scale)
    tuning = _figures(plan.split.tuning, scores, plan.scale)
    both = [g for g in plan.split.holdout if g.example_id in scores]
    right_now = [not disagrees(g, plan.scale) for g in both]
    right_then = [
        not disagrees(Graded(g.example_id, g.human, scores[g.example_id]), plan.scale) for g in both
    ]
    test = mcnemar(right_then, right_now)
    return CandidateResult(kind, spec, holdout, tuning, test.p_value, cost, stopped)


def _figures(part: Sequence[Graded], scores: Mapping[int, float], scale: Scale) -> Figures:
    pairs = [(g.human, scores[g.example_id]) for g in part if g.example_id in scores]
    if not pairs:
        return Figures(0, None, None, None, 0)
    found = measure(pairs, scale)
    agreed = sum(scale.verdict(h) == scale.verdict(j) for h, j in pairs)
    return Figures(len(pairs), found.kappa.value, found.kappa.low, found.kappa.high, agreed)


def _kappa(figures: Figures) -> str:
    if figures.kappa is None:
        return "not measured"
    interval = ""
    if figures.ci_low is not None and figures.ci_high is not None:
        interval = f" (95 % interval {figures.ci_low:.2f} to {figures.ci_high:.2f})"
    return f"{figures.kappa:.2f}{interval}"


def _with_version(result: CandidateResult, version: int) -> CandidateResult:
    return CandidateResult(
        result.kind,
        result.spec,
        result.holdout,
        result.tuning,
        result.mcnemar_p,
        result.cost,
        result.stopped,
        version,
    )


def _told(progress: Progress, kind: CandidateKind, total: int) -> Callable[[int], None]:
    return lambda done: progress(kind, done, total)


def _added(a: CostEstimate, b: CostEstimate) -> CostEstimate:
    from dataclasses import replace

    def plus(x: float | None, y: float | None) -> float | None:
        return None if x is None or y is None else x + y

    return replace(
        a,
        examples=a.examples + b.examples,
        calls=a.calls + b.calls,
        worst_calls=a.worst_calls + b.worst_calls,
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
        typical_cost=plus(a.typical_cost, b.typical_cost),
        worst_cost=plus(a.worst_cost, b.worst_cost),
        example_worst_cost=max(a.example_worst_cost or 0.0, b.example_worst_cost or 0.0)
        if a.example_worst_cost is not None and b.example_worst_cost is not None
        else None,
        unpriced_models=tuple(sorted({*a.unpriced_models, *b.unpriced_models})),
        cached_calls=a.cached_calls + b.cached_calls,
        uncached_typical_cost=plus(a.uncached_typical_cost, b.uncached_typical_cost),
        uncached_worst_cost=plus(a.uncached_worst_cost, b.uncached_worst_cost),
    )
