"""The Results table: 50 rows a page read by keyset from the database, previous/next, a CSV
download of every filtered row, and the drill-down into the result picked — by ticking its
row in the table, or in the "Open one result" list (both show, and change, the same choice)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import streamlit as st

from scorer_runtime.store import ScorePage, ScoreStats
from studio import services, state
from studio.app_pages.results import data
from studio.app_pages.results.logic import PAGE_SIZE, row_label, table_rows
from studio.widgets.csv_export import cap_note, scores_csv_file
from studio.widgets.results_filter import ResultsFilter
from studio.widgets.score_detail import render_score_detail
from studio.words import OUTCOME_LABELS


def _next(cursor: tuple[datetime, int]) -> None:
    state.get(state.RESULTS_CURSOR).append(cursor)


def _previous() -> None:
    cursors = state.get(state.RESULTS_CURSOR)
    if cursors:
        cursors.pop()


def _open_changed() -> None:
    state.put(state.SELECTED_SCORE_ID, state.peek(state.RESULTS_OPEN))


def _row_clicked(ids: Sequence[int]) -> None:
    """A row's box was ticked: open its result (unticked: close it). ``ids``: the results of
    the rows the person saw, in their order."""
    table = state.peek(state.RESULTS_TABLE)
    rows = [row for row in (table["selection"]["rows"] if table else []) if 0 <= row < len(ids)]
    state.put(state.SELECTED_SCORE_ID, ids[rows[0]] if rows else None)


def _show_open_row(ids: Sequence[int]) -> None:
    """Before the table is drawn: tick the row of the result open now (none when it is not on
    this page) and nothing else, so the table and the list below never disagree."""
    open_now = state.get(state.SELECTED_SCORE_ID)
    wanted = [list(ids).index(open_now)] if open_now in ids else []
    table = state.peek(state.RESULTS_TABLE)
    if table is None and not wanted:
        return
    if table is None or list(table["selection"]["rows"]) != wanted:
        state.put(state.RESULTS_TABLE, {"selection": {"rows": wanted, "columns": []}})


def render_table(filter: ResultsFilter, stats: ScoreStats) -> None:
    """The current page of results, its navigation, the download and the drill-down."""
    cursors = state.get(state.RESULTS_CURSOR)
    page = data.page(filter, cursors[-1] if cursors else None)
    if not page.rows and cursors:  # rows were deleted under us: start again
        state.reset(state.RESULTS_CURSOR)
        page, cursors = data.page(filter, None), []
    inputs = data.inputs(tuple(r.example_id for r in page.rows if r.example_id is not None))
    ids = tuple(row.id for row in page.rows)
    _show_open_row(ids)
    st.caption(
        "Tick the box at the start of a row to open that result below: each step, what the "
        "judge was asked and answered, and the reason."
    )
    st.dataframe(
        table_rows(page.rows, data.names(), OUTCOME_LABELS, inputs=inputs, titles=data.titles()),
        hide_index=True,
        key=state.RESULTS_TABLE.name,
        on_select=lambda: _row_clicked(ids),
        selection_mode="single-row",
        column_config={
            "Input": st.column_config.TextColumn(width="large"),
            "Reason or problem": st.column_config.TextColumn(width="large"),
        },
    )
    _pager(page, len(cursors), stats.total)
    _download(filter, stats)
    _picker(page, inputs)


def _pager(page: ScorePage, index: int, total: int) -> None:
    pages = max(1, -(-total // PAGE_SIZE))
    first = index * PAGE_SIZE + 1 if page.rows else 0
    last = index * PAGE_SIZE + len(page.rows)
    left, middle, right = st.columns([1, 3, 1])
    left.button(
        "Previous",
        key=state.RESULTS_PREVIOUS.name,
        on_click=_previous,
        disabled=index == 0,
        icon=":material/chevron_left:",
    )
    middle.caption(f"Page {index + 1} of {pages} · results {first:,}–{last:,} of {total:,}")
    if page.next_cursor is not None:
        right.button(
            "Next",
            key=state.RESULTS_NEXT.name,
            on_click=_next,
            args=(page.next_cursor,),
            icon=":material/chevron_right:",
        )
    else:
        right.button(
            "Next", key=state.RESULTS_NEXT.name, disabled=True, icon=":material/chevron_right:"
        )


def _download(filter: ResultsFilter, stats: ScoreStats) -> None:
    engine = services.engine()
    names = data.names()
    sf = filter.score_filter()
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M")
    st.download_button(
        "Download these results (CSV)",
        # Called only when clicked, on another thread: it reads the rows in pages itself.
        data=lambda: scores_csv_file(engine, filter=sf, names=names),
        file_name=f"results-{stamp}.csv",
        mime="text/csv",
        key=state.RESULTS_DOWNLOAD.name,
        on_click="ignore",
        icon=":material/download:",
        help="Every result matching the filters, newest first, one row each.",
    )
    note = cap_note(stats.total)
    if note:
        st.caption(note)


def _picker(page: ScorePage, inputs: dict[int, str]) -> None:
    labels = {row.id: row_label(row, OUTCOME_LABELS, inputs) for row in page.rows}
    selected = state.get(state.SELECTED_SCORE_ID)
    options: list[int | None] = [None, *labels]
    if selected is not None and selected not in labels:
        options.append(selected)  # opened from elsewhere (another page, an earlier page)
    state.put(state.RESULTS_OPEN, selected)
    st.selectbox(
        "Open one result",
        options,
        key=state.RESULTS_OPEN.name,
        on_change=_open_changed,
        placeholder="Pick a result to see how it was scored",
        format_func=lambda i: (
            "Pick a result to see how it was scored" if i is None else labels.get(i, f"Result {i}")
        ),
        help="Shows each step's result, the exact prompts the judge got, its raw answer, "
        "retries, time, tokens and cost.",
    )
    if selected is None:
        return
    found = data.score(selected)
    with st.container(border=True):
        head, close = st.columns([5, 1])
        head.subheader(f"Result {selected}")
        close.button(
            "Close",
            key=state.RESULTS_CLOSE.name,
            on_click=state.reset,
            args=(state.SELECTED_SCORE_ID,),
        )
        if found is None:
            st.warning(f"Result {selected} no longer exists. Pick another one.")
        else:
            _asked(found)
            render_score_detail(found, key=state.RESULTS_DETAIL)


def _asked(found: dict[str, Any]) -> None:
    """What was asked and answered, first: the example's input and output."""
    for field, label in (("input", "Input"), ("output", "Answer that was scored")):
        value = found.get(field)
        if value is None or value == "":
            continue
        st.markdown(f"**{label}**")
        if isinstance(value, str):
            st.text(value)
        else:
            st.json(value, expanded=1)
