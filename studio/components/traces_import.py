"""Bringing a trace file in: the upload, what was left out and why, and the list of traces."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.components.common import empty_state
from studio.traces_logic import (
    ACCEPTED_SUFFIXES,
    LoadedTraces,
    format_duration,
    read_upload,
    trace_rows,
)

_WIDGETS_OF_A_FILE = ("traces.view", "traces.selected", "traces.detail")
"""Choices that name traces or scores of one file, forgotten when another file is read."""


def render_upload() -> LoadedTraces | None:
    """The uploader; a new file replaces the traces shown (the scores stay in the database)."""
    upload = st.file_uploader(
        "Trace file",
        type=list(ACCEPTED_SUFFIXES),
        key=f"traces.upload.{state.get(state.TRACES_UPLOADER)}",
        help=(
            "OpenTelemetry traces as OTLP JSON (what a collector's file exporter writes: one "
            "document, or one per line), or Mastra span records (a list, or an object with "
            "a spans list)."
        ),
    )
    loaded: LoadedTraces | None = state.get(state.TRACES_LOADED)
    if upload is not None and (loaded is None or loaded.upload_id != upload.file_id):
        loaded = read_upload(upload.getvalue(), upload.name, upload_id=upload.file_id)
        state.put(state.TRACES_LOADED, loaded)
        for key in _WIDGETS_OF_A_FILE:
            st.session_state.pop(key, None)
    return loaded


def forget_traces() -> None:
    """Remove the loaded traces and empty the uploader (the stored scores stay)."""
    state.reset(state.TRACES_LOADED)
    state.put(state.TRACES_UPLOADER, state.get(state.TRACES_UPLOADER) + 1)
    for key in _WIDGETS_OF_A_FILE:
        st.session_state.pop(key, None)


def render_empty() -> None:
    """What a trace is and where to get one."""
    empty_state(
        "**No traces loaded.** A *trace* records one turn of your agent: what the user "
        "asked, each call to the model, each tool it used and what came back. Scoring traces "
        "tells you how your agent does on real traffic, not only on saved examples.\n\n"
        "Export traces from your OpenTelemetry collector (its file exporter writes OTLP JSON) "
        "or from Mastra's storage, and upload the file above. Only the scores are saved in "
        "the studio; upload the file again to look at the traces later."
    )


def render_problems(loaded: LoadedTraces) -> None:
    """Everything left out of the file, each with its line, span and place, and what to do."""
    if not loaded.problems:
        return
    count = len(loaded.problems)
    head = f"**{count} problem{'s' if count != 1 else ''} in {loaded.file_name}**" + (
        ": nothing could be imported." if not loaded.traces else "."
    )
    with st.container(border=True):
        st.warning(head, icon=":material/warning:")
        for problem in loaded.problems:
            place = f"  \n  :gray[in the file at `{problem.path}`]" if problem.path else ""
            st.markdown(f"- **{problem.where}**: {problem.message}{place}")
        st.caption(f":material/lightbulb: {loaded.what_to_do()}")


def render_trace_list(loaded: LoadedTraces, score_counts: dict[str, int]) -> None:
    """One row per trace: what it is, when, how long, and what it holds."""
    rows = trace_rows(loaded.traces)
    spans = sum(r.spans for r in rows)
    st.markdown(
        f"**{len(rows)} trace{'s' if len(rows) != 1 else ''}** with {spans} spans from "
        f"*{loaded.file_name}*."
    )
    st.dataframe(
        [
            {
                "Trace": row.trace_id,
                "What": row.root_name,
                "Agent": row.agent or "—",
                "Started (UTC)": f"{row.start:%Y-%m-%d %H:%M:%S}",
                "Took": format_duration(row.duration_ms),
                "Spans": row.spans,
                "Model calls": row.model_calls,
                "Tool calls": row.tool_calls,
                "Failed spans": row.errors,
                "Stored scores": score_counts.get(row.trace_id, 0),
            }
            for row in rows
        ],
        hide_index=True,
        column_config={"Trace": st.column_config.TextColumn(help="The trace id")},
    )
