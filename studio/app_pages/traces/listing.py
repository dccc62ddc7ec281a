"""The stored traces: a search, one page of the list read from the database, the pager, and
deleting chosen traces after asking first."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.traces import data
from studio.app_pages.traces.file_import import render_empty
from studio.app_pages.traces.logic import (
    TracePage,
    delete_question,
    list_row,
    trace_label,
)
from studio.app_pages.traces.selection import chosen, drop, start_with
from studio.widgets.common import show_error
from studio.words import noun, plural


def _new_search() -> None:
    state.reset(state.TRACES_PAGE)


def render_list() -> TracePage | None:
    """Search, then the page of stored traces with its pager and the delete action; None
    (after saying why) when no stored trace matches."""
    search = st.text_input(
        "Search traces",
        key=state.TRACES_SEARCH.name,
        placeholder="Search by trace id, agent or file, e.g. support-agent",
        help=(
            "Shows the traces whose id, name (usually the agent's) or file name contain what "
            "you type; upper and lower case are the same."
        ),
        on_change=_new_search,
    ).strip()
    page = data.page(search, state.get(state.TRACES_PAGE))
    state.put(state.TRACES_PAGE, page.page)  # past the end after a delete: the last page
    if not page.lines:
        if search:
            st.info(
                f"No stored trace matches “{search}”. Try a shorter part of the id, agent or "
                "file name, or clear the search.",
                icon=":material/search_off:",
            )
        else:
            render_empty()
        return None
    ids = tuple(line.trace_id for line in page.lines)
    counts = data.score_counts(ids)
    start_with(page)
    picked = set(chosen())
    st.markdown(page.showing(search) + f" {_chosen_words(len(picked))}")
    st.dataframe(
        [
            list_row(line, counts.get(line.trace_id, 0), chosen=line.trace_id in picked)
            for line in page.lines
        ],
        hide_index=True,
        column_config={
            "Chosen": st.column_config.CheckboxColumn(
                help="Chosen for scoring: change the choice under “Score traces” below"
            ),
            "Expected answer": st.column_config.TextColumn(
                help="What the agent should have done (the tools it should call, in order, "
                "or the answer it should give). Give it under “Look inside a trace”."
            ),
            "Trace": st.column_config.TextColumn(help="The trace id"),
            "File": st.column_config.TextColumn(help="The file it was imported from (last)"),
            "Stored scores": st.column_config.NumberColumn(
                help="Scores of this trace kept in the studio, by any scorer"
            ),
        },
    )
    render_pager(page)
    render_delete(page)
    return page


def _chosen_words(count: int) -> str:
    if count == 0:
        return "None is chosen for scoring."
    return f"{plural(count, 'trace')} chosen for scoring."


def _go_to(page: int) -> None:
    state.put(state.TRACES_PAGE, page)


def render_pager(page: TracePage) -> None:
    """Previous / next, and where we are."""
    if page.pages <= 1:
        return
    back, where, forward = st.columns([1, 2, 1], vertical_alignment="center")
    back.button(
        "Previous",
        key=state.TRACES_PREV.name,
        icon=":material/chevron_left:",
        disabled=page.page == 0,
        on_click=_go_to,
        args=(page.page - 1,),
    )
    where.caption(f"Page {page.page + 1} of {page.pages}")
    forward.button(
        "Next",
        key=state.TRACES_NEXT.name,
        icon=":material/chevron_right:",
        disabled=page.page + 1 >= page.pages,
        on_click=_go_to,
        args=(page.page + 1,),
    )


def _ask(chosen: tuple[str, ...]) -> None:
    state.put(state.TRACES_CONFIRM_DELETE, chosen)


def _cancel() -> None:
    state.reset(state.TRACES_CONFIRM_DELETE)


def render_delete(page: TracePage) -> None:
    """Choose traces on this page to delete; the question comes before anything goes."""
    pending: tuple[str, ...] | None = state.get(state.TRACES_CONFIRM_DELETE)
    lines = {line.trace_id: line for line in page.lines}
    with st.expander("Delete traces", icon=":material/delete:", expanded=pending is not None):
        chosen = st.multiselect(
            "Traces to delete",
            list(lines),
            format_func=lambda t: trace_label(lines[t]),
            key=state.TRACES_DELETE_CHOICE.name,
            placeholder="Choose traces on this page",
            help=(
                "Deleting removes the trace and its spans from the studio. Scores already "
                "stored for it stay in the history (results and exports keep them)."
            ),
        )
        st.button(
            "Delete chosen traces…",
            key=state.TRACES_DELETE.name,
            icon=":material/delete:",
            disabled=not chosen,
            on_click=_ask,
            args=(tuple(chosen),),
        )
        if pending:
            _confirm(pending)


def _confirm(pending: tuple[str, ...]) -> None:
    scores = sum(data.score_counts(pending).values())
    with st.container(border=True):
        st.warning(delete_question(len(pending), scores), icon=":material/warning:")
        yes, no = st.columns(2)
        confirmed = yes.button(
            f"Yes, delete {plural(len(pending), 'trace')}",
            key=state.TRACES_DELETE_YES.name,
            type="primary",
            icon=":material/delete_forever:",
            width="stretch",
        )
        no.button("Cancel", key=state.TRACES_DELETE_NO.name, on_click=_cancel, width="stretch")
    if not confirmed:
        return
    try:
        deleted = data.delete(list(pending))
    except Exception as error:  # shown in plain words; nothing was deleted
        show_error(error)
        return
    state.reset(state.TRACES_CONFIRM_DELETE)
    state.forget(state.TRACES_DELETE_CHOICE)
    drop(pending)
    owner = noun(deleted, "Its", "Their")
    kept = f" {owner} stored scores stay in the history." if scores else ""
    state.flash(f"Deleted {plural(deleted, 'trace')}.{kept}")
    st.rerun()
