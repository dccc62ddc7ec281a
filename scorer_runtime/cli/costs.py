"""The cost side of the command line: ``run --estimate``, and the ``--max-cost`` checks of
``run``, ``stability`` and ``compare-versions`` (checked by :mod:`scorer_runtime.runs`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from scorer_runtime.batch import BatchSummary
    from scorer_runtime.costs import CostEstimate
    from scorer_runtime.costs.cap import JudgeCap
    from scorer_runtime.runs import StartPlan
    from scorer_runtime.scorer import Scorer


def estimate_for(
    made: Engine,
    scorer: Scorer[Any, Any],
    *,
    dataset_id: int,
    run_id: int | None,
    use_cache: bool = False,
) -> CostEstimate:
    """The estimate of what the run (or what a resumed run has left) will cost; with
    ``use_cache``, net of the answers the judge answer cache already holds."""
    from scorer_runtime.costs import estimate_dataset

    found = estimate_dataset(
        made, scorer, dataset_id=dataset_id, run_id=run_id, use_cache=use_cache
    )
    return asyncio.run(found)


def end_if_stopped(summary: BatchSummary, *, resume: str) -> None:
    """When the run's spend cap stopped it: say so, how to resume it (``resume``: what to
    type, or where), and exit with :data:`~scorer_runtime.cli.support.BUDGET_EXIT`."""
    if summary.status != "stopped":
        return
    import typer

    from scorer_runtime.cli.support import BUDGET_EXIT, console

    console(stderr=True).print(
        f"Run {summary.run_id} stopped: budget reached; what finished is saved. "
        f"Resume it with a higher cap: {resume}"
    )
    raise typer.Exit(BUDGET_EXIT)


def say_default_cap(plan: StartPlan) -> None:
    """When a run stops at its judge's default cap (no ``--max-cost``), say so on the
    terminal, with how to choose another."""
    from scorer_runtime.cli.support import console
    from scorer_runtime.money import format_dollars

    if not plan.default_cap or plan.cap is None:
        return
    console().print(
        f"Stop at {format_dollars(plan.cap)}: the default cap of the judge for a run "
        "(--max-cost sets another; --max-cost none runs without a cap)."
    )


def say_lost(made: Engine, run_id: int) -> None:
    """When a resumed run counts answers an earlier runner of it lost (killed with answers
    on their way), say so on the terminal: they count against its cap."""
    from scorer_runtime.cli.support import console
    from scorer_runtime.costs.cap import lost_words
    from scorer_runtime.store import read_session
    from scorer_runtime.store.reservations import held_spend

    with read_session(made) as session:
        held = held_spend(session, run_id=run_id)
    if held.answers:
        console().print(f"Counted as spent: {lost_words(held.answers, held.cost)}.")


@dataclass(frozen=True, slots=True)
class CapOption:
    """``--max-cost`` and ``--allow-unpriced`` of a trust check as typed: the cap each run
    it scores stops at (:data:`~scorer_runtime.costs.cap.JUDGE_CAP` when none was typed),
    and whether a model without a price may run under it."""

    max_cost: float | JudgeCap | None
    allow_unpriced: bool

    @classmethod
    def read(cls, typed: str | None, allow_unpriced: bool) -> CapOption:
        """CapError (in words) for a cap that is not an amount above $0."""
        from scorer_runtime.costs.cap import JUDGE_CAP, read_cap

        if typed is None:  # the judge's default cap, which a model without a price runs past
            return cls(JUDGE_CAP, True)
        return cls(read_cap(typed), allow_unpriced)

    def words(self, scorer: Scorer[Any, Any], who: str) -> str:
        """What stops ``who`` (e.g. "Each repeat"), or nothing without a cap."""
        from scorer_runtime.costs.cap import chosen_cap
        from scorer_runtime.money import format_dollars

        cap = chosen_cap(self.max_cost, scorer)
        if cap is None:
            return ""
        whose = "the judge's default spend cap" if isinstance(self.max_cost, str) else "--max-cost"
        return f" {who} stops at {format_dollars(cap)} ({whose})."
