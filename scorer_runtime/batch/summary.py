"""The summary of a batch run: numbers from SQL aggregates, and a verdict against a threshold.

Its cost is said in words by :mod:`scorer_runtime.money`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from sqlmodel import Session

from scorer_runtime.money import CostWords, cache_words, cost_words
from scorer_runtime.store.aggregates import score_stats
from scorer_runtime.store.runs import get_run, time_running
from scorer_runtime.store.scores import ScoreFilter

Verdict = Literal["pass", "fail"]


@dataclass(frozen=True, slots=True)
class BatchSummary:
    """What a run produced.

    Mean, median and pass rate cover scored examples only: not-scorable examples and
    errors are left out of the averages (as in Mastra's runEvals) and counted in
    ``outcome_counts``. The verdict is "pass" when the mean is at least the threshold; a run
    with no score at all fails any threshold.
    """

    run_id: int
    status: str
    total: int
    done: int
    scored: int
    mean: float | None
    median: float | None
    pass_rate: float | None
    threshold: float | None
    verdict: Verdict | None
    cost: float
    """The sum of the known costs: see ``priced``, ``unpriced`` and :attr:`cost_words`."""
    wall_time_s: float | None
    """Seconds the run spent running (pauses before a resume left out); None until it ended."""
    outcome_counts: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    priced: int = 0
    """Results with a positive cost."""
    unpriced: int = 0
    """Results that called the judge without a known price (litellm has no price for it)."""
    judge_answers: int = 0
    """Judge answers in the stored results (asked, or from the judge answer cache)."""
    cached_answers: int = 0
    """Of those, the ones from the judge answer cache (no provider call, nothing spent)."""
    saved_cost: float = 0.0
    """What the cached answers cost when first asked."""

    @property
    def cache_words(self) -> str | None:
        """``N of M judge answers from the cache, $X saved`` (None: no judge answer)."""
        return cache_words(self.cached_answers, self.judge_answers, self.saved_cost)

    @property
    def cost_words(self) -> CostWords:
        """The cost in words, saying how much of it is known."""
        return cost_words(self.cost, self.priced, self.unpriced)

    @property
    def failures(self) -> int:
        """Examples whose outcome is an error."""
        return sum(n for o, n in self.outcome_counts.items() if o not in ("scored", "not_scorable"))


def summarize_run(session: Session, *, run_id: int, threshold: float | None = None) -> BatchSummary:
    """The summary of a stored run; its wall time is the time it spent running (a pause
    between a stop and a resume is not in it), once it ended."""
    run = get_run(session, run_id=run_id)
    stats = score_stats(session, filter=ScoreFilter(run_id=run_id), threshold=threshold)
    verdict: Verdict | None = None
    if threshold is not None:
        verdict = "pass" if stats.mean is not None and stats.mean >= threshold else "fail"
    wall = None
    if run.started_at is not None and run.finished_at is not None:
        wall = time_running(run)
    return BatchSummary(
        run_id=run_id,
        status=run.status,
        total=run.total,
        done=stats.total,
        scored=stats.count,
        mean=stats.mean,
        median=stats.median,
        pass_rate=stats.pass_rate,
        threshold=threshold,
        verdict=verdict,
        cost=stats.cost,
        wall_time_s=wall,
        outcome_counts=stats.outcome_counts,
        error=run.error,
        priced=stats.priced,
        unpriced=stats.unpriced,
        judge_answers=run.judge_answers,
        cached_answers=run.cached_answers,
        saved_cost=run.saved_cost,
    )
