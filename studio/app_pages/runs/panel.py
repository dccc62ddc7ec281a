"""One run, opened: live progress while it goes, then its summary — mean, median, pass rate,
outcome mix, cost and time, with the verdict at a pass mark — and Resume / See results."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.batch import BatchSummary
from scorer_runtime.costs.cap import BUDGET_REACHED, lost_words
from scorer_runtime.store.views import RunLine
from studio import state
from studio.app_pages.runs import data
from studio.app_pages.runs.live import live_progress
from studio.app_pages.runs.logic import (
    ACTIVE_PHASES,
    PHASE_LABELS,
    RESUMABLE_PHASES,
    RunPhase,
    format_when,
    run_mark,
    run_phase,
)
from studio.app_pages.runs.logic.cost import CapChoice
from studio.app_pages.runs.spend import render_spend
from studio.app_pages.runs.start import render_plan
from studio.widgets.charts import outcome_chart, outcome_shares
from studio.widgets.common import format_score, show_error
from studio.widgets.current_scorer import work_on
from studio.widgets.results_links import open_results
from studio.widgets.runner_notice import runner_alive
from studio.words import (
    OUTCOME_LABELS,
    cost_caption,
    cost_help,
    cost_value,
    format_duration,
    outcome_mix_words,
)


def render_run(line: RunLine) -> None:
    """The run's header, then its live progress or its summary."""
    run_id = line.run_id
    phase = run_phase(line, runner_alive=runner_alive())
    with st.container(border=True):
        scorer = data.title(line.scorer_id, line.scorer)
        st.subheader(f"Run #{line.run_id}: {scorer}, version {line.version}")
        st.caption(
            f"On the dataset **{line.dataset}** · {line.concurrency} at once · started "
            f"{format_when(line.started_at or line.created_at)}"
        )
        if phase in ACTIVE_PHASES:
            live_progress(run_id)
            return
        _render_ending(line, phase)
        _render_lost(line)
        if line.done:
            _render_summary(line)
        _render_actions(line, phase)


def _render_ending(line: RunLine, phase: RunPhase) -> None:
    """How the run ended, in words, with what to do when it did not finish."""
    left = f"{line.remaining:,} of {line.total:,} examples have no result yet"
    if phase == "done" and line.failed:
        st.warning(
            f"**{run_mark(line, phase).label}.** Every example was tried, but "
            f"{line.failed:,} of {line.total:,} could not be scored. See each result to "
            "read why it failed.",
            icon=":material/warning:",
        )
    elif phase == "done":
        st.success(
            f"**{PHASE_LABELS[phase]}.** Every example of the dataset has a result.",
            icon=":material/check_circle:",
        )
    elif phase == "stopped":
        error = line.error or ""
        st.warning(
            f"**{PHASE_LABELS[phase]}.** {error.removeprefix(BUDGET_REACHED).lstrip(': ')} "
            f"What finished is saved; {left}.",
            icon=":material/savings:",
        )
    elif phase == "cancelled":
        st.info(
            f"**Cancelled.** What finished is saved; {left}. Resume to score them.",
            icon=":material/stop_circle:",
        )
    elif phase == "stalled":
        st.warning(
            "**Stopped unexpectedly.** The runner scoring this run ended without finishing "
            f"(the computer restarted, or the runner was stopped). What finished is saved; "
            f"{left}. A runner takes it over by itself within a minute, or resume it now.",
            icon=":material/warning:",
        )
    else:
        st.error(
            f"**The run stopped because of an error.** {line.error or 'No message was kept.'}",
            icon=":material/error:",
        )
        st.info(
            f"What finished is saved; {left}. If the message names the database, check it "
            "is reachable; then resume the run.",
            icon=":material/lightbulb:",
        )


def _render_lost(line: RunLine) -> None:
    """What a stopped run counts as spent for judge answers lost when its runner stopped."""
    if line.set_aside:
        st.info(
            f"**Counted as spent:** {lost_words(line.set_aside, line.set_aside_cost)}. "
            "They count against the run's cap when it resumes.",
            icon=":material/savings:",
        )


def _threshold(line: RunLine) -> float:
    """The pass mark this run is shown at: the stored one (the scorer's saved policy, else
    its scale's), or what the person typed here for this run — kept for this run only and
    forgotten when the page is left, never read from or written to another page."""
    saved = data.saved_pass_mark(line.version_id)
    value = st.number_input(
        "Pass mark",
        # The box's start, as its default rather than a value put in the session first: a
        # preset value reaches the browser only with the run that set it, and when a rerun
        # (a live part's timer) replaced that run, the browser showed 0 and sent it back.
        value=saved,
        step=0.05,
        key=state.RUNS_THRESHOLD_SLIDER.child(line.run_id).name,
        help=f"The run passes when its mean score is at least this; an example passes when its "
        f"score is. The scorer's saved pass mark is {saved:g} (set it in its trust policy on "
        "the Trust page); a value typed here changes nothing that is stored.",
    )
    return float(value)


def _render_verdict(summary: BatchSummary, threshold: float) -> None:
    if summary.mean is None:
        st.warning(
            "**No verdict.** No example got a score (they all failed or could not be scored), "
            "so the run cannot pass.",
            icon=":material/help:",
        )
    elif summary.verdict == "pass":
        st.success(
            f"**Passes at {threshold:g}:** the mean score {format_score(summary.mean)} is at "
            "or above the pass mark.",
            icon=":material/thumb_up:",
        )
    else:
        st.error(
            f"**Below the pass mark {threshold:g}:** the mean score "
            f"{format_score(summary.mean)} is lower.",
            icon=":material/thumb_down:",
        )


def _render_summary(line: RunLine) -> None:
    """The numbers of the results so far, each with what it covers."""
    left, _ = st.columns([1, 4])
    with left:
        threshold = _threshold(line)
    summary = data.summary(line.run_id, threshold)
    _render_verdict(summary, threshold)
    passed = round((summary.pass_rate or 0) * summary.scored)
    cols = st.columns(5)
    cols[0].metric(
        "Mean score",
        format_score(summary.mean),
        help=f"The average of the {summary.scored:,} scored examples. Examples that could not "
        "be scored or failed are left out of the mean, median and pass rate.",
    )
    cols[1].metric("Median score", format_score(summary.median), help="Half score lower.")
    cols[2].metric(
        "Pass rate",
        "—" if summary.pass_rate is None else f"{summary.pass_rate:.0%}",
        help=f"{passed:,} of {summary.scored:,} scored examples at or above {threshold:g}.",
    )
    cost = summary.cost_words
    cols[3].metric("Judge cost", cost_value(cost), help=cost_help(cost))
    cols[4].metric(
        "Time",
        format_duration(summary.wall_time_s),
        help="The time the run spent scoring. A run stopped and resumed later counts only the "
        "time it ran, not the pause between.",
    )
    if (unknown := cost_caption(cost)) is not None:
        st.caption(unknown)
    if (cached := summary.cache_words) is not None:
        st.caption(f":material/cached: {cached[0].upper()}{cached[1:]}.")
    words = outcome_mix_words(summary.outcome_counts)
    st.markdown(f"**How the {summary.done:,} results ended:** {words}.")
    shares = outcome_shares(summary.outcome_counts)
    if shares:
        st.altair_chart(
            outcome_chart(shares, OUTCOME_LABELS),
            width="stretch",
            key=state.RUNS_CHART_OUTCOMES.name,
        )


def _render_actions(line: RunLine, phase: RunPhase) -> None:
    """See the results; resume a run that did not finish (after saying what it will cost)."""
    resumable = phase in RESUMABLE_PHASES and line.remaining > 0
    problems = []
    cap = CapChoice(None)
    chosen = data.plan(line.version_id, line.dataset_id)
    if resumable:
        st.markdown("**Resume** scores only the examples that have no result yet.")
        problems = render_plan(chosen, remaining=line.remaining, key=state.RUNS_RESUME_PLAN)
        cap = render_spend(
            chosen,
            box=state.RUNS_CAP.child("resume"),
            # A run its cap stopped needs a higher one typed; others start from the judge's.
            default=None if phase == "stopped" else chosen.default_cap,
            run_id=line.run_id,
            spent=line.spent,
            estimate=not problems,
        )
    see = line.done > 0
    cols = iter(st.columns([1, 1, 3]))
    if see and next(cols).button(
        "See each result", key=state.RUNS_RESULTS.name, icon=":material/insights:", type="primary"
    ):
        work_on(line.scorer_id, state.RUNS_FOLLOWED)
        open_results(run_id=line.run_id)
    if resumable and next(cols).button(
        "Resume the run",
        key=state.RUNS_RESUME.name,
        icon=":material/play_arrow:",
        type="secondary" if see else "primary",
        disabled=bool(problems) or bool(cap.problem),
        help="Queues the run again: the runner scores the examples without a result.",
    ):
        try:
            data.resume(line, chosen, cap.cap, cap.allow_unpriced)
        except Exception as error:  # shown in plain words
            show_error(error)
            return
        state.flash(f"Run #{line.run_id} resumed: {line.remaining:,} examples to go.")
        st.rerun()
