"""One trace's span tree: indented spans with their type and duration, details on demand."""

from __future__ import annotations

from typing import Any

import streamlit as st

from studio.traces_logic import LoadedTraces, SpanLine, span_lines, trace_label, trace_rows

_MAX_SPANS = 300
"""Spans drawn at most (each is an expander); a longer trace shows its first spans."""


def render_tree(loaded: LoadedTraces) -> None:
    """Pick a trace; show its spans depth first, each with its input and output."""
    rows = {row.trace_id: row for row in trace_rows(loaded.traces)}
    trace_id = st.selectbox(
        "Trace to look at",
        list(rows),
        format_func=lambda t: trace_label(rows[t]),
        key="traces.view",
        help="Its spans are shown below, children indented under their parent.",
    )
    trace = loaded.get(trace_id) if trace_id is not None else None
    if trace is None:
        return
    lines = span_lines(trace)
    st.caption(
        "Each line is a span: what the agent did, how long it took. Open one to see what it "
        "received and returned."
    )
    for line in lines[:_MAX_SPANS]:
        render_span(line)
    if len(lines) > _MAX_SPANS:
        st.caption(f"… and {len(lines) - _MAX_SPANS} more spans, not shown.")


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
