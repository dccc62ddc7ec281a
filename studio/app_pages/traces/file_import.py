"""Bringing a trace file in: the upload, saving its traces in the studio's database, what
the import did, what was left out and why, and what the page says before any trace is stored."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.traces import data
from studio.app_pages.traces.logic import ACCEPTED_SUFFIXES, ImportReport, read_upload
from studio.app_pages.traces.selection import add
from studio.widgets.common import empty_state, show_error
from studio.words import plural

_CHOICES_OF_A_PAGE = (
    state.TRACES_VIEW,
    state.TRACES_DETAIL,
    state.TRACES_DELETE_CHOICE,
)
"""Choices that name stored traces or scores, started again after an import (the traces
chosen for scoring are not: the import adds its traces to them)."""


def render_upload() -> None:
    """The uploader; a new file is read and its traces saved once, then what happened is
    shown for as long as the file stays in the uploader."""
    upload = st.file_uploader(
        "Import a trace file",
        type=list(ACCEPTED_SUFFIXES),
        key=state.TRACES_UPLOAD.name,
        help=(
            "OpenTelemetry traces as OTLP JSON (what a collector's file exporter writes: one "
            "document, or one per line), or Mastra span records (a list, or an object with "
            "a spans list). The traces are kept in the studio's database; importing a file "
            "again only adds the spans that are new. Imported traces are added to the "
            "traces chosen for scoring.\n\n"
            "**Expected answers** (what the agent should have done, for scorers that "
            "compare) can come in the file: the attribute `scorer_studio.expected_answer` "
            "on a span or on the resource in OpenTelemetry files, `metadata.expectedAnswer` "
            "of a span in Mastra files; a list of tool names in order, or a text."
        ),
    )
    if upload is None:
        state.reset(state.TRACES_IMPORT)
        return
    report: ImportReport | None = state.get(state.TRACES_IMPORT)
    if report is None or report.upload_id != upload.file_id:
        report = import_file(upload.getvalue(), upload.name, upload_id=upload.file_id)
        state.put(state.TRACES_IMPORT, report)
    render_report(report)


def import_file(content: bytes, file_name: str, *, upload_id: str) -> ImportReport:
    """Read a file and save its good traces (through :func:`data.save`, which clears
    the cached lists); the list then starts again at its first page."""
    loaded = read_upload(content, file_name)
    report = ImportReport(file_name, upload_id, loaded.problems, read=len(loaded.traces))
    if not loaded.traces:
        return report
    try:
        summary = data.save(loaded.traces, file_name, loaded.evaluations)
    except Exception as error:  # shown in plain words; nothing was saved
        return ImportReport(
            file_name, upload_id, loaded.problems, read=len(loaded.traces), error=error
        )
    state.reset(state.TRACES_PAGE)
    for key in _CHOICES_OF_A_PAGE:
        state.forget(key)
    add(summary.added + summary.updated + summary.unchanged)
    return ImportReport(
        file_name, upload_id, loaded.problems, read=len(loaded.traces), summary=summary
    )


def render_report(report: ImportReport) -> None:
    """What the import did, then everything left out of the file (line, span, place) and
    what to do about it."""
    if report.error is not None:
        show_error(report.error)
    words = report.words()
    if words is not None and report.summary is not None:
        if report.summary.saved:
            st.success(words, icon=":material/download_done:")
        else:
            st.info(f"{words} Nothing changed.", icon=":material/info:")
    if not report.problems:
        return
    count = len(report.problems)
    head = f"**{plural(count, 'problem')} in {report.file_name}**" + (
        ": nothing could be imported." if not report.read else "."
    )
    with st.container(border=True):
        st.warning(head, icon=":material/warning:")
        for problem in report.problems:
            place = f"  \n  :gray[in the file at `{problem.path}`]" if problem.path else ""
            st.markdown(f"- **{problem.where}**: {problem.message}{place}")
        st.caption(f":material/lightbulb: {report.what_to_do()}")


def render_empty() -> None:
    """What a trace is, where to get one, and that the studio keeps what is imported."""
    empty_state(
        "**No traces yet.** A *trace* records one turn of your agent: what the user asked, "
        "each call to the model, each tool it used and what came back. Scoring traces tells "
        "you how your agent does on real traffic, not only on saved examples.\n\n"
        "**Where to get them:** an OpenTelemetry collector with the *file exporter* writes "
        "traces as OTLP JSON (one document per line is fine); Mastra can export the spans it "
        "stores as JSON. Upload such a file above.\n\n"
        "Imported traces are kept in the studio's database: they are here the next time you "
        "open the page, you can score them with an agent scorer, and their scores are kept "
        "linked to each trace and step."
    )
