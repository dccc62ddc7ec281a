"""The stored scores of the listed traces and the drill-down into one of them."""

from __future__ import annotations

from collections import Counter

import streamlit as st

from scorer_runtime.store.views import TraceScoreLine
from studio import state
from studio.app_pages.traces import data
from studio.app_pages.traces.logic import TracePage, short_id
from studio.widgets.common import format_score
from studio.widgets.score_detail import render_score_detail
from studio.words import outcome_label, outcome_mix_words, plural


def _names() -> dict[str, str]:
    """Scorer ids and the names people read ("tool-call-accuracy" → "Tool-call accuracy")."""
    return {o.name: o.title or o.name for o in data.scorer_options()}


def render_scores(page: TracePage) -> None:
    """The stored scores of the traces on this page, and one score opened in full."""
    ids = tuple(line.trace_id for line in page.lines)
    lines = data.scores(ids)
    names = _names()
    if not lines:
        st.caption("No score is stored for the traces on this page yet. Score them above.")
        return
    st.markdown(_summary(lines))
    st.dataframe(
        [
            {
                "Trace": short_id(line.trace_id),
                "Span": line.span_id or "—",
                "Scorer": _scorer_words(line, names),
                "Score": _score_words(line),
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
        format_func=lambda s: _score_label(by_id[s], names),
        key=state.TRACES_DETAIL.name,
        placeholder="Choose a score to see what the scorer saw, each step, the judge's answer",
        help="Shows the agent run the scorer read, each step's result, the exact prompt the "
        "judge got and its answer.",
    )
    if score_id is not None:
        render_detail(by_id[score_id])


def _scorer_words(line: TraceScoreLine, names: dict[str, str]) -> str:
    """ "Politeness · version 2"; another tool's scorer by its name alone ("ragas (external)"),
    since it has no versions here."""
    name = names.get(line.scorer, line.scorer)
    return name if line.external else f"{name} · version {line.version}"


def _score_words(line: TraceScoreLine) -> str:
    """The score, with another tool's label beside it, or the label alone (no number)."""
    number = format_score(line.score) if line.score is not None else None
    return " · ".join(part for part in (number, line.label) if part) or format_score(None)


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


def _score_label(line: TraceScoreLine, names: dict[str, str]) -> str:
    outcome = outcome_label(line.outcome)
    return (
        f"{short_id(line.trace_id)} · {_scorer_words(line, names)} · "
        f"{_score_words(line)} ({outcome}) · {line.created_at:%d %b %H:%M:%S}"
    )


def render_detail(line: TraceScoreLine) -> None:
    """One stored score in full, with what the scorer saw of the stored trace."""
    detail = data.score_data(line.score_id)
    with st.container(border=True):
        render_score_detail(detail, key=state.TRACES_SCORE_DETAIL.child(line.score_id))
