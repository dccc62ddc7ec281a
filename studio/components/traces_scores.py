"""Scoring the loaded traces with a saved agent scorer; their stored scores and drill-down."""

from __future__ import annotations

from collections import Counter

import streamlit as st

from scorer_runtime.judge.config import JudgeConfigError
from scorer_runtime.store import database_url
from studio import services, state
from studio.components.common import OUTCOME_LABELS, format_score, show_error
from studio.components.score_detail import render_score_detail
from studio.home_logic import outcome_mix
from studio.traces_logic import LoadedTraces, short_id, trace_label, trace_rows
from studio.traces_scoring import (
    AgentScorerOption,
    TraceScoreLine,
    agent_scorer_options,
    score_traces_with,
    store_outcomes,
    trace_score_data,
    trace_scores,
)


@st.cache_data(show_spinner=False, ttl=30)
def cached_options(db: str) -> list[AgentScorerOption]:
    """Versions of live agent scorers (``db`` keys the cache per database)."""
    with services.reading() as session:
        return agent_scorer_options(session)


@st.cache_data(show_spinner=False, ttl=30)
def cached_scores(db: str, trace_ids: tuple[str, ...]) -> list[TraceScoreLine]:
    """The stored scores of these traces, newest first."""
    with services.reading() as session:
        return trace_scores(session, trace_ids)


def score_counts(loaded: LoadedTraces) -> dict[str, int]:
    """How many stored scores each loaded trace has."""
    ids = tuple(t.trace_id for t in loaded.traces)
    return dict(Counter(line.trace_id for line in cached_scores(database_url(), ids)))


def render_scoring(loaded: LoadedTraces) -> None:
    """Pick an agent scorer version and the traces; say what it costs; score and store."""
    options = cached_options(database_url())
    if not options:
        st.info(
            "There is no agent scorer yet. An *agent scorer* reads what an agent did — the "
            "user's messages, its answers and the tools it called — which is what a trace "
            "holds. Build one and choose “agent” as its kind, or load the demo scorers "
            "(“tool-call-accuracy” is one).",
            icon=":material/smart_toy:",
        )
        st.page_link("app_pages/builder.py", label="Build an agent scorer", icon=":material/build:")
        return
    by_id = {o.version_id: o for o in options}
    version_id = st.selectbox(
        "Agent scorer",
        list(by_id),
        format_func=lambda v: by_id[v].label(),
        key="traces.scorer",
        help="Only scorers of the agent kind are listed: they read messages and tool calls.",
    )
    rows = {row.trace_id: row for row in trace_rows(loaded.traces)}
    chosen = st.multiselect(
        "Traces to score",
        list(rows),
        default=list(rows),
        format_func=lambda t: trace_label(rows[t]),
        key="traces.selected",
        help="Each trace is scored at its agent's run (its root agent span).",
    )
    if version_id is None:
        return
    option = by_id[version_id]
    st.caption(_cost_words(option, len(chosen)))
    if st.button(
        f"Score {len(chosen)} trace{'s' if len(chosen) != 1 else ''}",
        key="traces.score",
        type="primary",
        disabled=not chosen,
        icon=":material/play_arrow:",
    ):
        _score(loaded, option, chosen)


def _cost_words(option: AgentScorerOption, traces: int) -> str:
    if option.judge_steps == 0:
        return "This scorer never calls a judge: scoring costs nothing."
    calls = option.judge_steps * traces
    return (
        f"This asks the judge up to {calls} time{'s' if calls != 1 else ''} "
        f"({option.judge_steps} per trace), more if a request is retried."
    )


def _score(loaded: LoadedTraces, option: AgentScorerOption, chosen: list[str]) -> None:
    traces = [t for t in loaded.traces if t.trace_id in set(chosen)]
    bar = st.progress(0.0, text="Scoring…")
    done: list[int] = []

    def progress(_: object) -> None:
        done.append(1)
        bar.progress(len(done) / len(traces), text=f"Scored {len(done)} of {len(traces)}")

    try:
        with services.reading() as session:
            outcomes = score_traces_with(session, option, traces, on_outcome=progress)
        with services.writing() as session:
            stored = store_outcomes(session, outcomes, option)
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
    counts = Counter(o.status for o in outcomes)
    words = ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in sorted(counts.items()))
    state.flash(
        f"Scored {stored} trace{'s' if stored != 1 else ''} with {option.label()}: {words}."
    )
    st.rerun()


def render_scores(loaded: LoadedTraces) -> None:
    """The stored scores of the loaded traces, and one score opened in full."""
    ids = tuple(t.trace_id for t in loaded.traces)
    lines = cached_scores(database_url(), ids)
    if not lines:
        st.caption("No score is stored for these traces yet. Score them above.")
        return
    st.markdown(_summary(lines))
    st.dataframe(
        [
            {
                "Trace": short_id(line.trace_id),
                "Span": line.span_id or "—",
                "Scorer": f"{line.scorer} v{line.version}",
                "Score": format_score(line.score),
                "Outcome": OUTCOME_LABELS.get(line.outcome, line.outcome),
                "Why": line.reason or line.error or "",
                "When (UTC)": f"{line.created_at:%Y-%m-%d %H:%M:%S}",
            }
            for line in lines
        ],
        hide_index=True,
    )
    by_id = {line.score_id: line for line in lines}
    score_id = st.selectbox(
        "Open a score",
        list(by_id),
        index=None,
        format_func=lambda s: _score_label(by_id[s]),
        key="traces.detail",
        placeholder="Choose a score to see each step, the judge's prompt and answer",
        help="Shows each step's result, the exact prompt the judge got and its answer.",
    )
    if score_id is not None:
        render_detail(loaded, by_id[score_id])


def _summary(lines: list[TraceScoreLine]) -> str:
    """The scores in numbers with their context: how many, the mean, the spread, the mix."""
    scores = [line.score for line in lines if line.outcome == "scored" and line.score is not None]
    counts = Counter(line.outcome for line in lines)
    mix = outcome_mix(counts, OUTCOME_LABELS)
    if not scores:
        return f"**{len(lines)} stored score{'s' if len(lines) != 1 else ''}**: {mix}."
    mean = sum(scores) / len(scores)
    spread = f"from {format_score(min(scores))} to {format_score(max(scores))}"
    return (
        f"**{len(lines)} stored score{'s' if len(lines) != 1 else ''}**: mean "
        f"**{format_score(mean)}** over {len(scores)} scored ({spread}); {mix}."
    )


def _score_label(line: TraceScoreLine) -> str:
    outcome = OUTCOME_LABELS.get(line.outcome, line.outcome)
    return (
        f"{short_id(line.trace_id)} · {line.scorer} v{line.version} · "
        f"{format_score(line.score)} ({outcome}) · {line.created_at:%d %b %H:%M:%S}"
    )


def render_detail(loaded: LoadedTraces, line: TraceScoreLine) -> None:
    """One stored score in full, with what the scorer saw when that trace is loaded."""
    with services.reading() as session:
        data = trace_score_data(session, score_id=line.score_id, trace=loaded.get(line.trace_id))
    with st.container(border=True):
        render_score_detail(data, key=f"traces.score.{line.score_id}")
