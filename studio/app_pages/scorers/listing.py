"""The scorers list: search, one card per scorer with its numbers, pages from the database."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.store.views import ScorerLine, ScorerPage
from studio import state
from studio.app_pages.scorers import data
from studio.app_pages.scorers.actions import render_actions, render_pending
from studio.app_pages.scorers.versions import render_versions
from studio.widgets.common import empty_state, format_score, show_error
from studio.widgets.trust_badge import scorer_badges
from studio.words import noun, plural, run_status_label


def _new_search() -> None:
    state.put(state.SCORERS_PAGE, 0)


def render_search() -> tuple[str, bool]:
    """The search box and the archived switch; a new search starts at page one."""
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    search = left.text_input(
        "Search scorers",
        key=state.SCORERS_SEARCH.name,
        placeholder="A word from the name or description, e.g. polite",
        help="Shows the scorers whose name or description contain every word you type.",
        on_change=_new_search,
    )
    archived = right.checkbox(
        "Show archived scorers",
        key=state.SCORERS_SHOW_ARCHIVED.name,
        help="Archived scorers are hidden from lists; their versions and scores are kept.",
        on_change=_new_search,
    )
    return search.strip(), archived


def load_demo() -> None:
    """Save the demo scorers whose names are free, and say how many."""
    try:
        saved = data.load_demo_scorers()
    except Exception as error:  # shown in plain words; nothing was written
        show_error(error)
        return
    if saved:
        state.flash(f"Loaded {len(saved)} demo scorers.")
    else:
        state.flash("The demo scorers are already here.", icon=":material/info:")


def render_empty(search: str) -> None:
    """What a scorer is and how to get one, or why nothing matches."""
    if search:
        st.info(
            f"No scorer matches “{search}”. Try fewer or shorter words, or clear the search.",
            icon=":material/search_off:",
        )
        return
    hidden = data.page("", 0, True).total
    if hidden:
        st.info(
            f"{plural(hidden, 'archived scorer')} {noun(hidden, 'is', 'are')} hidden. Tick “Show "
            "archived scorers” to see and bring them back.",
            icon=":material/archive:",
        )
    empty_state(
        "**No scorer yet.** A *scorer* judges one answer your AI gave and turns it into a "
        "score, usually between 0 and 1: is it polite, faithful to the sources, did the "
        "agent call the right tool? You build one step by step, with built-in checks, small "
        "formulas or an LLM judge — no code needed."
    )
    build, demo = st.columns(2)
    if build.button(
        "Build your first scorer",
        key=state.SCORERS_EMPTY_BUILD.name,
        type="primary",
        icon=":material/build:",
        width="stretch",
    ):
        state.put(state.BUILDER_SCORER_ID, None)
        st.switch_page("app_pages/builder/page.py")
    demo.button(
        "Load the demo scorers",
        key=state.SCORERS_EMPTY_DEMO.name,
        on_click=load_demo,
        icon=":material/download:",
        width="stretch",
        help="Ten ready-made scorers (politeness, faithfulness, tool use, …) to look at and copy.",
    )


def _last_run(line: ScorerLine) -> str:
    if line.last_run_id is None:
        return "Never run on a dataset yet."
    status = run_status_label(line.last_run_status)
    if line.last_run_mean is None:
        return f"Last run #{line.last_run_id}: no score yet ({status.lower()})."
    return (
        f"Last run #{line.last_run_id}: mean score **{format_score(line.last_run_mean)}** over "
        f"{plural(line.last_run_scored, 'scored example')} "
        f"({status.lower()})."
    )


def _versions(line: ScorerLine) -> str:
    if line.latest_version is None or line.latest_at is None:
        return "No saved version."
    count = plural(line.versions, "version")
    note = f": “{line.latest_note}”" if line.latest_note else ""
    return f"{count} · latest is version {line.latest_version}, {line.latest_at:%d %b %Y}{note}"


def render_card(line: ScorerLine) -> None:
    """One scorer: name, description, versions, last run, actions, and what is open."""
    with st.container(border=True):
        badges = " ".join(
            badge
            for badge, show in (
                (":blue-badge[Agent]", line.agent),
                (":gray-badge[Archived]", line.archived),
            )
            if show
        )
        st.markdown(f"#### {line.display_name} {badges}")
        scorer_badges(line.scorer_id)
        st.caption(f"`{line.name}` — {line.description or 'no description'}")
        st.markdown(f"{_versions(line)}  \n{_last_run(line)}")
        render_actions(line)
        render_pending(line)
        if state.get(state.SCORERS_OPEN_ID) == line.scorer_id:
            render_versions(line.scorer_id)


def render_pager(page: ScorerPage) -> None:
    """Previous / next, and where we are."""
    if page.pages <= 1:
        return
    back, where, forward = st.columns([1, 2, 1], vertical_alignment="center")
    if back.button("Previous", key=state.SCORERS_PREV.name, disabled=page.page == 0):
        state.put(state.SCORERS_PAGE, page.page - 1)
        st.rerun()
    where.caption(f"Page {page.page + 1} of {page.pages} · {page.total} scorers")
    if forward.button("Next", key=state.SCORERS_NEXT.name, disabled=page.page + 1 >= page.pages):
        state.put(state.SCORERS_PAGE, page.page + 1)
        st.rerun()


def render_list() -> None:
    """Search, then the page of scorers (or the empty state)."""
    search, archived = render_search()
    page = data.page(search, state.get(state.SCORERS_PAGE), archived)
    if not page.lines:
        render_empty(search)
        return
    if search:
        matches = noun(page.total, "matches", "match")
        st.caption(f"{plural(page.total, 'scorer')} {matches} “{search}”.")
    for line in page.lines:
        render_card(line)
    render_pager(page)
