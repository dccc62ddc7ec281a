"""One stored trace's span tree: indented spans with their type and duration, details on
demand."""

from __future__ import annotations

from typing import Any

import streamlit as st

from scorer_runtime.traces import count_tool_calls
from studio import state
from studio.app_pages.traces import data
from studio.app_pages.traces.expected_form import render_expected_expander
from studio.app_pages.traces.logic import (
    SpanLine,
    TracePage,
    span_lines,
    tool_calls_words,
    trace_label,
)

_MAX_SPANS = 300
"""Spans drawn at most (each is an expander); a longer trace shows its first spans."""


def render_tree(page: TracePage) -> None:
    """Pick a trace of the list's page; show its spans depth first, each with its input and
    output."""
    lines = {line.trace_id: line for line in page.lines}
    if state.peek(state.TRACES_VIEW) not in lines:
        state.forget(state.TRACES_VIEW)  # the trace left the page: start at its first
    trace_id = st.selectbox(
        "Trace to look at",
        list(lines),
        format_func=lambda t: trace_label(lines[t]),
        key=state.TRACES_VIEW.name,
        help="The traces on this page of the list. Its spans are shown below, children "
        "indented under their parent.",
    )
    trace = data.trace(trace_id) if trace_id is not None else None
    if trace is None:
        return
    render_expected_expander(trace, lines[trace.trace_id].expected)
    spans = span_lines(trace)
    st.caption(
        "Each line is a span: what the agent did, how long it took. Open one to see what it "
        "received and returned."
    )
    st.caption(tool_calls_words(count_tool_calls(trace)))
    for line in spans[:_MAX_SPANS]:
        render_span(line)
    if len(spans) > _MAX_SPANS:
        st.caption(f"… and {len(spans) - _MAX_SPANS} more spans, not shown.")


def render_span(line: SpanLine) -> None:
    """One span as an expander: facts, input, output, and the raw attributes."""
    span = line.span
    with st.expander(line.label(), icon=line.icon):
        facts = line.facts()
        st.markdown("  \n".join(f"**{name}:** {value}" for name, value in facts.items()))
        _value("Input", span.input)
        _value("Output", span.output)
        if span.attributes:
            st.markdown("**Attributes** (as recorded)")
            st.json(dict(span.attributes), expanded=False)


def _value(title: str, value: Any) -> None:
    if value is None:
        st.caption(f"{title}: nothing recorded.")
        return
    st.markdown(f"**{title}**")
    if isinstance(value, str):
        st.text(value)
    else:
        st.json(value, expanded=1)
