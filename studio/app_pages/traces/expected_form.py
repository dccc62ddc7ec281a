"""Giving a trace its expected answer, in words: the tools the agent should call, in order,
or the answer it should give. Scorers that compare (such as "Tool-call accuracy") read it
as the trace's ground truth."""

from __future__ import annotations

from typing import Any

import streamlit as st

from scorer_runtime.traces import ExpectedKind, Trace, expected_kind, tools_called
from studio import state
from studio.app_pages.traces import data
from studio.app_pages.traces.logic import expected_words, short_id, tool_names
from studio.widgets.common import show_error

KIND_WORDS = {
    "tools": "The tools it should call, in order",
    "text": "The answer it should give",
    "none": "No expected answer",
}

EXPECTED_HELP = (
    "What the agent should have done in this trace. Scorers that compare the agent with an "
    "expected answer (such as “Tool-call accuracy”, which checks the order of the tool "
    "calls) read it; a trace without one cannot be scored by them. An import file can carry "
    "it too: the span or resource attribute `scorer_studio.expected_answer` in OpenTelemetry "
    "files, `metadata.expectedAnswer` of a span in Mastra files (a list of tool names, or a "
    "text)."
)


def render_expected_expander(trace: Trace, expected: Any) -> None:
    """The expected answer of the trace looked at, folded: its value in the title, the form
    inside."""
    title = f"Expected answer: {expected_words(expected, short=True)}"
    with st.expander(title, icon=":material/checklist:", expanded=expected is None):
        render_expected_form(trace, expected, place="view", wanted="tools")


def render_expected_form(
    trace: Trace, expected: Any, *, place: str, wanted: ExpectedKind | None = None
) -> None:
    """The form of one trace's expected answer (``place`` tells forms of the same trace on
    different parts of the page apart; ``wanted``: the kind the chosen scorer needs)."""
    key = state.TRACES_EXPECTED.child(f"{place}.{trace.trace_id}")
    kinds = list(KIND_WORDS)
    current = expected_kind(expected) or ("none" if expected is None else "text")
    start = wanted if expected is None and wanted else current
    called = tools_called(trace)
    with st.form(key.name, border=True):
        now = "none given yet" if expected is None else expected_words(expected)
        st.markdown(
            f"**Expected answer of {_name(trace)} ({short_id(trace.trace_id)})** · now: {now}",
            help=EXPECTED_HELP,
        )
        kind = st.radio(
            "What should the agent have done?",
            kinds,
            index=kinds.index(start or "none"),
            format_func=KIND_WORDS.__getitem__,
            key=key.child("kind").name,
            horizontal=True,
        )
        tools = st.text_input(
            "Tools, in order",
            value=", ".join(expected) if current == "tools" else "",
            key=key.child("tools").name,
            placeholder="e.g. " + (", ".join(called) or "lookup_order, issue_refund"),
            help="Tool names separated by commas. Leave it empty when the agent should call "
            "no tool at all.",
        )
        st.caption(
            "In this trace the agent called: " + (", ".join(called) if called else "no tool")
        )
        text = st.text_area(
            "The answer it should give",
            value=expected if current == "text" else "",
            key=key.child("text").name,
            placeholder="e.g. Order 4821 is cancelled and €59.90 is refunded to your card.",
            height=80,
        )
        if st.form_submit_button("Save the expected answer", icon=":material/save:"):
            _save(trace.trace_id, _value(kind, tools, text))


def _name(trace: Trace) -> str:
    """What the trace is, as the list says it: its first agent span's name, else its first
    root span's."""
    return (trace.of_type("agent_run") or list(trace.roots) or list(trace.spans))[0].name


def _value(kind: str, tools: str, text: str) -> Any:
    if kind == "tools":
        return tool_names(tools)
    if kind == "text":
        return text.strip() or None
    return None


def _save(trace_id: str, expected: Any) -> None:
    try:
        data.set_expected(trace_id, expected)
    except Exception as error:  # shown in plain words; nothing was saved
        show_error(error)
        return
    words = expected_words(expected)
    said = "removed" if expected is None else f"saved: {words}"
    state.flash(f"Expected answer of trace {short_id(trace_id)} {said}.")
    st.rerun()
