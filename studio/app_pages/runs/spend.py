"""What a run will cost, shown before Start and Resume, and the "Stop at $" box beside them."""

from __future__ import annotations

from concurrent.futures import Future

import streamlit as st

from scorer_runtime.costs import CostEstimate
from studio import state
from studio.app_pages.runs import data
from studio.app_pages.runs.logic import RunPlan
from studio.app_pages.runs.logic.cost import CapChoice, choose_cap, cost_text


def render_cost(
    plan: RunPlan, *, run_id: int | None = None, use_cache: bool = True
) -> CostEstimate | None:
    """The estimated cost of the run (of what ``run_id`` has left, on resume), net of the
    judge answers the cache already holds when the run takes them from it; None while it
    is being made (the page shows it as soon as it is ready) or when it cannot be made."""
    made = data.cost(plan, run_id, use_cache=use_cache)
    if made is None:
        return None
    if not made.done():
        st.caption(":material/hourglass_top: Estimating the cost of the run…")
        _show_when_ready(made)
        return None
    try:
        estimate = made.result()
    except Exception as error:  # the estimate is a help: say why it is missing, go on
        st.caption(f":material/payments: The cost could not be estimated: {error}")
        return None
    if estimate.calls:
        st.markdown(f":material/payments: {cost_text(estimate)}")
    return estimate


@st.fragment(run_every=1.0)
def _show_when_ready(made: Future[CostEstimate]) -> None:
    if made.done():
        st.rerun()


def render_cap(
    estimate: CostEstimate | None,
    *,
    key: state.Key,
    spent: float = 0.0,
    default: float | None = None,
) -> CapChoice:
    """The "Stop at $" box (empty: no cap), first filled with the judge's ``default`` cap,
    read against the estimate (see :func:`render_cap_problem` for a cap the run could not
    keep)."""
    typed = st.text_input(
        "Stop at $",
        value="" if default is None else f"{default:g}",  # the box's start: kept once typed in
        key=key.name,
        placeholder="No cap",
        help="The run stops before its judge calls could cost more than this many dollars "
        "(it then says 'stopped: budget reached', and you can resume it with a higher cap). "
        "Leave it empty for no cap."
        + (" It starts with the default cap of the scorer's judge." if default else ""),
    )
    if not typed.strip():
        return CapChoice(None)
    if estimate is None:
        return CapChoice(None, problem="Wait for the cost estimate: the cap is checked against it.")
    allow = False
    if not estimate.priced:
        allow = st.checkbox(
            "Run without a price (the cap cannot be checked)",
            key=state.RUNS_ALLOW_UNPRICED.child(key.name).name,
            help="The judge model has no known price, so the spend cannot be counted.",
        )
    return choose_cap(typed, estimate, allow_unpriced=allow, spent=spent)


def render_spend(
    plan: RunPlan,
    *,
    box: state.Key,
    default: float | None,
    run_id: int | None = None,
    use_cache: bool = True,
    spent: float = 0.0,
    estimate: bool = True,
) -> CapChoice:
    """The cost estimate (unless ``estimate`` is off) and the "Stop at $" box ``box`` of a
    run of ``plan`` (of what run ``run_id`` has left), read together; nothing for a scorer
    that never asks a judge, which costs nothing."""
    if not plan.prompt_steps:
        return CapChoice(None)
    made = render_cost(plan, run_id=run_id, use_cache=use_cache) if estimate else None
    cap_column, _ = st.columns([1, 3])
    with cap_column:
        cap = render_cap(made, key=box, spent=spent, default=default)
    render_cap_problem(cap)
    return cap


def render_cap_problem(choice: CapChoice) -> None:
    """Why the run cannot start under the cap typed, across the form (nothing when it can)."""
    if choice.problem:
        st.error(choice.problem, icon=":material/block:")
    elif choice.warning:
        st.warning(choice.warning, icon=":material/savings:")
