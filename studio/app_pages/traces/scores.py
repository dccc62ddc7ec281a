"""Scoring stored traces with a saved agent scorer; the stored scores of the listed traces
and the drill-down into one of them."""

from __future__ import annotations

from collections import Counter

import streamlit as st

from scorer_runtime.judge.config import JudgeConfigError
from scorer_runtime.store import database_url, get_version_by_id, scored_trace_ids
from scorer_runtime.store.views import TraceScoreLine, trace_scores
from scorer_runtime.traces import TraceScoreOutcome
from studio import services, state
from studio.app_pages.traces.logic import TracePage, short_id, trace_label
from studio.app_pages.traces.scoring import (
    AgentScorerOption,
    agent_scorer_options,
    missing_keys,
    not_yet_scored,
    outcome_words,
    ready_first,
    rescore_words,
    trace_score_data,
    trace_scoring_cost_note,
)
from studio.widgets.common import format_score, show_error
from studio.widgets.score_detail import render_score_detail
from studio.words import outcome_label, outcome_mix_words, plural


@st.cache_data(show_spinner=False, ttl=30)
def cached_options(db: str) -> list[AgentScorerOption]:
    """Versions of live agent scorers (``db`` keys the cache per database)."""
    with services.reading() as session:
        return agent_scorer_options(session)


@st.cache_data(show_spinner=False, ttl=30)
def cached_scored(db: str, version_id: int, trace_ids: tuple[str, ...]) -> frozenset[str]:
    """Which of these traces this scorer version already has a stored result for."""
    with services.reading() as session:
        done = scored_trace_ids(session, scorer_version_id=version_id)
    return frozenset(t for t in trace_ids if t in done)


@st.cache_data(show_spinner=False, ttl=30)
def cached_scores(db: str, trace_ids: tuple[str, ...]) -> list[TraceScoreLine]:
    """The stored scores of these traces, newest first."""
    with services.reading() as session:
        return trace_scores(session, trace_ids=trace_ids)


def render_scoring(page: TracePage) -> None:
    """Pick an agent scorer version and the traces (those it has not scored yet, by
    default); say what it costs and what is scored again; score and store."""
    options = cached_options(database_url())
    if not options:
        _no_agent_scorer()
        return
    by_id = {o.version_id: o for o in options}
    version_id = st.selectbox(
        "Agent scorer",
        list(by_id),
        index=ready_first(options, services.env_is_set),
        format_func=lambda v: by_id[v].label(),
        key=state.TRACES_SCORER.name,
        help="Only scorers of the agent kind are listed: they read messages and tool calls.",
    )
    if version_id is None:
        return
    option = by_id[version_id]
    chosen, scored = _choose(page, option)
    st.caption(rescore_words(chosen, scored, listed=len(page.lines)))
    st.caption(trace_scoring_cost_note(option, len(chosen)))
    missing = missing_keys(option, services.env_is_set)
    if missing:
        st.warning(
            f"Its judge needs the key variable {', '.join(missing)}, which is not set on this "
            "machine: set it and restart the studio, or choose a scorer whose judge is ready.",
            icon=":material/key_off:",
        )
    if st.button(
        f"Score {plural(len(chosen), 'trace')}",
        key=state.TRACES_SCORE.name,
        type="primary",
        disabled=not chosen,
        icon=":material/play_arrow:",
    ):
        _score(option, chosen)


def _no_agent_scorer() -> None:
    """The empty state: what an agent scorer is, and where to get one."""
    st.info(
        "There is no agent scorer yet. An *agent scorer* reads what an agent did — the "
        "user's messages, its answers and the tools it called — which is what a trace "
        "holds. Build one and choose “agent” as its kind, or load the demo scorers "
        "(“tool-call-accuracy” is one).",
        icon=":material/smart_toy:",
    )
    st.page_link(
        "app_pages/builder/page.py", label="Build an agent scorer", icon=":material/build:"
    )


def _choose(page: TracePage, option: AgentScorerOption) -> tuple[list[str], frozenset[str]]:
    """The traces to score, chosen among this page's; returns them and those already scored."""
    lines = {line.trace_id: line for line in page.lines}
    ids = tuple(lines)
    scored = cached_scored(database_url(), option.version_id, ids)
    default = not_yet_scored(ids, scored)
    # Another scorer, page or set of scored traces: start again from the new default.
    basis = (option.version_id, ids, tuple(default))
    if state.get(state.TRACES_SELECTION_FOR) != basis:
        state.forget(state.TRACES_SELECTED)
        state.put(state.TRACES_SELECTION_FOR, basis)
    chosen = st.multiselect(
        "Traces to score",
        list(ids),
        default=default,
        format_func=lambda t: trace_label(lines[t]) + (" · scored" if t in scored else ""),
        key=state.TRACES_SELECTED.name,
        placeholder="Choose traces on this page",
        help=(
            "The traces on this page of the list; those this scorer version has not scored "
            "yet are chosen. Each trace is scored at its agent's run (its root agent span)."
        ),
    )
    return chosen, scored


def _score(option: AgentScorerOption, chosen: list[str]) -> None:
    bar = st.progress(0.0, text="Scoring…")
    done: list[TraceScoreOutcome] = []

    def progress(outcome: TraceScoreOutcome) -> None:
        done.append(outcome)
        bar.progress(len(done) / len(chosen), text=f"Scored {len(done)} of {len(chosen)}")

    from scorer_runtime.batch import score_stored_traces

    try:
        with services.reading() as session:
            version = get_version_by_id(session, version_id=option.version_id)
        outcomes = score_stored_traces(services.engine(), version, chosen, on_outcome=progress)
    except JudgeConfigError as error:  # e.g. the key's variable is not set: nothing was called
        bar.empty()
        st.error(f"**The judge cannot be called.** {error}", icon=":material/key_off:")
        st.info(
            "Nothing was scored and nothing was stored. Set what is named above (the Home page "
            "shows which key variables are set), or choose a scorer whose judge is ready.",
            icon=":material/lightbulb:",
        )
        return
    except Exception as error:  # the scorer cannot run at all; shown in plain words
        bar.empty()
        show_error(error)
        return
    finally:
        services.changed()  # scores were stored as they completed, even on an error
    state.flash(outcome_words(option, outcomes))
    st.rerun()


def render_scores(page: TracePage) -> None:
    """The stored scores of the traces on this page, and one score opened in full."""
    ids = tuple(line.trace_id for line in page.lines)
    lines = cached_scores(database_url(), ids)
    if not lines:
        st.caption("No score is stored for the traces on this page yet. Score them above.")
        return
    st.markdown(_summary(lines))
    st.dataframe(
        [
            {
                "Trace": short_id(line.trace_id),
                "Span": line.span_id or "—",
                "Scorer": f"{line.scorer} v{line.version}",
                "Score": format_score(line.score),
                "Outcome": outcome_label(line.outcome),
                "Why": line.reason or line.error or "",
                "When (UTC)": f"{line.created_at:%Y-%m-%d %H:%M:%S}",
            }
            for line in lines
        ],
        hide_index=True,
    )
    by_id = {line.score_id: line for line in lines}
    if state.peek(state.TRACES_DETAIL) not in (None, *by_id):
        state.forget(state.TRACES_DETAIL)  # that score's trace left the page
    score_id = st.selectbox(
        "Open a score",
        list(by_id),
        index=None,
        format_func=lambda s: _score_label(by_id[s]),
        key=state.TRACES_DETAIL.name,
        placeholder="Choose a score to see what the scorer saw, each step, the judge's answer",
        help="Shows the agent run the scorer read, each step's result, the exact prompt the "
        "judge got and its answer.",
    )
    if score_id is not None:
        render_detail(by_id[score_id])


def _summary(lines: list[TraceScoreLine]) -> str:
    """The scores in numbers with their context: how many, the mean, the spread, the mix."""
    scores = [line.score for line in lines if line.outcome == "scored" and line.score is not None]
    counts: Counter[str] = Counter(line.outcome for line in lines)
    mix = outcome_mix_words(counts)
    if not scores:
        return f"**{plural(len(lines), 'stored score')}**: {mix}."
    mean = sum(scores) / len(scores)
    spread = f"from {format_score(min(scores))} to {format_score(max(scores))}"
    return (
        f"**{plural(len(lines), 'stored score')}**: mean "
        f"**{format_score(mean)}** over {len(scores)} scored ({spread}); {mix}."
    )


def _score_label(line: TraceScoreLine) -> str:
    outcome = outcome_label(line.outcome)
    return (
        f"{short_id(line.trace_id)} · {line.scorer} v{line.version} · "
        f"{format_score(line.score)} ({outcome}) · {line.created_at:%d %b %H:%M:%S}"
    )


def render_detail(line: TraceScoreLine) -> None:
    """One stored score in full, with what the scorer saw of the stored trace."""
    with services.reading() as session:
        data = trace_score_data(session, score_id=line.score_id)
    with st.container(border=True):
        render_score_detail(data, key=state.TRACES_SCORE_DETAIL.child(line.score_id))
