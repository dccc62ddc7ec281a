"""The summary of a batch run: numbers from SQL aggregates, and a verdict against a threshold.

Also the one way of saying a cost total (:func:`cost_words`, :func:`describe_cost`): the CLI
and the studio both use it, so a total with unpriced results never reads as a plain "$0".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from sqlmodel import Session

from scorer_runtime.store.aggregates import score_stats
from scorer_runtime.store.runs import get_run
from scorer_runtime.store.scores import ScoreFilter

Verdict = Literal["pass", "fail"]
CostKind = Literal["priced", "partial", "unknown", "nothing"]
"""How much of a cost total is known: all of it, part, none; or nothing was spent (no judge
call, or a model priced at nothing)."""


def format_dollars(cost: float) -> str:
    """``$0.0123``; a smaller amount keeps two significant digits (``$0.000023``), so a
    cheap run of a priced model never reads as ``$0.0000``."""
    if cost == 0:
        return "$0"
    if abs(cost) >= 0.001:
        return f"${cost:,.4f}"
    digits = min(10, 1 - math.floor(math.log10(abs(cost))))
    return f"${cost:,.{digits}f}"


@dataclass(frozen=True, slots=True)
class CostWords:
    """A cost total in words: the amount, and what it covers when that is not everything."""

    kind: CostKind
    amount: str
    """``$0.0123``, ``unknown`` (no result was priced) or ``$0`` (nothing was spent)."""
    note: str = ""
    """Empty when every judge call was priced; else what the amount covers."""

    @property
    def complete(self) -> bool:
        """Whether the amount covers every judge call (no result is unpriced)."""
        return self.kind in ("priced", "nothing")

    def __str__(self) -> str:
        return f"{self.amount} ({self.note})" if self.note else self.amount


def _results(n: int) -> str:
    return f"{n:,} result" if n == 1 else f"{n:,} results"


def cost_words(cost: float, priced: int, unpriced: int) -> CostWords:
    """How to say a cost total of results of which ``priced`` have a cost and ``unpriced``
    called the judge without a known price (litellm has no price for the model).

    Results that spent nothing (no judge call) are in neither count.
    """
    if unpriced == 0:
        return CostWords("nothing" if cost == 0 else "priced", format_dollars(cost))
    if priced == 0:
        return CostWords("unknown", "unknown", f"{_results(unpriced)} on an unpriced model")
    called = priced + unpriced
    note = f"{priced:,} of {called:,} results priced; the rest are unknown"
    return CostWords("partial", format_dollars(cost), note)


def describe_cost(cost: float, priced: int, unpriced: int) -> str:
    """A cost total in one line: ``$0.0123``, ``$0.0123 (38 of 40 results priced; the rest
    are unknown)``, ``unknown (40 results on an unpriced model)`` or ``$0``."""
    return str(cost_words(cost, priced, unpriced))


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
    outcome_counts: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    priced: int = 0
    """Results with a positive cost."""
    unpriced: int = 0
    """Results that called the judge without a known price (litellm has no price for it)."""

    @property
    def cost_words(self) -> CostWords:
        """The cost in words, saying how much of it is known."""
        return cost_words(self.cost, self.priced, self.unpriced)

    @property
    def failures(self) -> int:
        """Examples whose outcome is an error."""
        return sum(n for o, n in self.outcome_counts.items() if o not in ("scored", "not_scorable"))


def summarize_run(session: Session, *, run_id: int, threshold: float | None = None) -> BatchSummary:
    """The summary of a stored run; wall time is from its start to its end (or now)."""
    run = get_run(session, run_id=run_id)
    stats = score_stats(session, filter=ScoreFilter(run_id=run_id), threshold=threshold)
    verdict: Verdict | None = None
    if threshold is not None:
        verdict = "pass" if stats.mean is not None and stats.mean >= threshold else "fail"
    wall = None
    if run.started_at is not None and run.finished_at is not None:
        wall = (run.finished_at - run.started_at).total_seconds()
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
    )
