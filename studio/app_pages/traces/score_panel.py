"""Scoring the chosen traces with a saved agent scorer: the scorer, the choice, what can be
scored and why not, what it costs, a key that is missing, and the Score button, all read
from one plan (:class:`ScoringPlan`) so the words and the numbers agree."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.judge.config import JudgeConfigError
from scorer_runtime.store import TraceSummary
from scorer_runtime.traces import TraceScoreOutcome
from studio import services, state
from studio.app_pages.traces import data
from studio.app_pages.traces.expected_form import render_expected_form
from studio.app_pages.traces.logic import TracePage, trace_label
from studio.app_pages.traces.scoring import (
    AgentScorerOption,
    ScoringPlan,
    button_label,
    chosen_words,
    first_option,
    lacking_words,
    missing_keys,
    no_run_words,
    outcome_words,
    plan_scoring,
    rescore_words,
    trace_scoring_cost_note,
)
from studio.app_pages.traces.selection import render_choice, stored_choice
from studio.widgets.common import show_error
from studio.widgets.judge_fix import fix_judge_link
from studio.words import plural

JUDGES_PAGE = "app_pages/judges/page.py"
_FORMS_SHOWN = 10
"""Expected-answer forms shown at most under the Score button (the others: in the tree)."""


def render_scoring(page: TracePage) -> None:
    """Pick an agent scorer version, see and change the chosen traces, read what scoring
    them does, and score."""
    options = data.scorer_options()
    if not options:
        _no_agent_scorer()
        return
    option = _pick_scorer(options)
    scored = data.scored(option.version_id)
    lines = stored_choice()
    render_choice(page, lines, scored)
    expected = {t: line.expected for t, line in lines.items()}
    no_run = {t for t, line in lines.items() if not (line.agent_runs or line.model_calls)}
    plan = plan_scoring(list(lines), expected, option.need, scored, no_run=no_run)
    missing = missing_keys(option, services.env_is_set)
    _explain(plan, option, missing, {t: trace_label(line) for t, line in lines.items()})
    if st.button(
        button_label(plan),
        key=state.TRACES_SCORE.name,
        type="primary",
        disabled=not plan.to_score or bool(missing),
        icon=":material/play_arrow:",
    ):
        _score(option, list(plan.to_score))
    if plan.lacking:
        _lacking_forms(plan, lines, option)


def _pick_scorer(options: list[AgentScorerOption]) -> AgentScorerOption:
    by_id = {o.version_id: o for o in options}
    current = state.peek(state.CURRENT_SCORER_ID)
    version_id = st.selectbox(
        "Agent scorer",
        list(by_id),
        index=first_option(options, services.env_is_set, current),
        format_func=lambda v: by_id[v].label(),
        key=state.TRACES_SCORER.name,
        help="Only scorers of the agent kind are listed: they read messages and tool calls.",
    )
    return by_id[version_id] if version_id in by_id else options[0]


def _explain(
    plan: ScoringPlan, option: AgentScorerOption, missing: list[str], names: dict[str, str]
) -> None:
    """The counts and what they mean: chosen, cannot be scored yet, scored again, cost."""
    words = [chosen_words(plan)]
    lacking = lacking_words(plan, option, names)
    if not plan.chosen:
        words.append("Choose the traces to score in the box above.")
    elif not lacking and not plan.no_run:
        words.append(
            f"{option.title or option.name} can score "
            + ("it." if len(plan.chosen) == 1 else f"all {len(plan.chosen)}.")
        )
    st.markdown(" ".join(words))
    for note in (no_run_words(plan), lacking):
        if note:
            st.info(note, icon=":material/assignment_late:")
    for note in (rescore_words(plan), trace_scoring_cost_note(option, len(plan.to_score))):
        if note:
            st.caption(note)
    if missing:
        _missing_key(missing, option)


def _missing_key(missing: list[str], option: AgentScorerOption) -> None:
    names = ", ".join(missing)
    st.warning(
        f"Its judge needs an API key in {names}, which is not set yet. Add the key, or let "
        "the scorer use one of your saved judges, then come back here and score.",
        icon=":material/key_off:",
    )
    fix_judge_link(option.scorer_id, version_id=option.version_id, key=state.TRACES_FIX_JUDGE)


def _lacking_forms(
    plan: ScoringPlan, lines: dict[str, TraceSummary], option: AgentScorerOption
) -> None:
    """A form per chosen trace that lacks its expected answer (the first few)."""
    lacking = list(plan.lacking)
    title = f"Give {plural(len(lacking), 'chosen trace')} an expected answer"
    with st.expander(title, icon=":material/edit_note:", expanded=not plan.to_score):
        for trace_id in lacking[:_FORMS_SHOWN]:
            trace = data.trace(trace_id)
            if trace is not None:
                render_expected_form(
                    trace, lines[trace_id].expected, place="score", wanted=option.need.kind
                )
        if len(lacking) > _FORMS_SHOWN:
            st.caption(
                f"… and {len(lacking) - _FORMS_SHOWN} more: open each under “Look inside a "
                "trace” to give it one."
            )


def _no_agent_scorer() -> None:
    """The empty state: what an agent scorer is, and where to get one."""
    st.info(
        "There is no agent scorer yet. An *agent scorer* reads what an agent did — the "
        "user's messages, its answers and the tools it called — which is what a trace "
        "holds. Build one and choose “agent” as its kind, or load the demo scorers "
        "(“Tool-call accuracy” is one).",
        icon=":material/smart_toy:",
    )
    st.page_link(
        "app_pages/builder/page.py", label="Build an agent scorer", icon=":material/build:"
    )


def _score(option: AgentScorerOption, chosen: list[str]) -> None:
    bar = st.progress(0.0, text="Scoring…")
    done: list[TraceScoreOutcome] = []

    def progress(outcome: TraceScoreOutcome) -> None:
        done.append(outcome)
        bar.progress(len(done) / len(chosen), text=f"Scored {len(done)} of {len(chosen)}")

    from scorer_runtime.batch import score_stored_traces

    try:
        version = data.version(option.version_id)
        outcomes = score_stored_traces(services.engine(), version, chosen, on_outcome=progress)
    except JudgeConfigError as error:  # e.g. the key's variable is not set: nothing was called
        bar.empty()
        st.error(f"**The judge cannot be called.** {error}", icon=":material/key_off:")
        st.info(
            "Nothing was scored and nothing was stored. Add the judge's key on the Judges "
            "page, or choose a scorer whose judge is ready.",
            icon=":material/lightbulb:",
        )
        st.page_link(JUDGES_PAGE, label="Add it on the Judges page", icon=":material/key:")
        return
    except Exception as error:  # the scorer cannot run at all; shown in plain words
        bar.empty()
        show_error(error)
        return
    finally:
        services.changed()  # scores were stored as they completed, even on an error
    state.flash(outcome_words(option, outcomes))
    st.rerun()
