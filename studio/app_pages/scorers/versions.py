"""A scorer's versions with their notes, and what changed between two of them."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.scorers import data
from studio.app_pages.scorers.diff import SpecChange, json_text_diff, spec_changes
from studio.app_pages.scorers.logic import VersionLine
from studio.widgets.trust_badge import version_words
from studio.words import plural

_KIND_WORDS = {"added": "Added", "removed": "Removed", "changed": "Changed"}
_KIND_ICONS = {
    "added": ":material/add_circle:",
    "removed": ":material/remove_circle:",
    "changed": ":material/edit:",
}


def render_versions(scorer_id: int) -> None:
    """The versions table, then a comparison of two versions when there are two or more."""
    versions = data.versions(scorer_id)
    if not versions:
        st.caption("This scorer has no saved version yet.")
        return
    st.dataframe(
        [
            {
                "Version": v.version,
                "Trust": version_words(scorer_id, v.id),
                "Saved": f"{v.created_at:%d %b %Y %H:%M}",
                "Note": v.note or "—",
            }
            for v in versions
        ],
        hide_index=True,
    )
    if len(versions) < 2:
        st.caption("Save a change in the builder to get a second version to compare with.")
        return
    render_comparison(scorer_id, versions)


def render_comparison(scorer_id: int, versions: list[VersionLine]) -> None:
    """Pick two versions; list the changes in plain words, with the JSON diff on demand."""
    by_number = {v.version: v for v in versions}
    numbers = list(by_number)
    left, right = st.columns(2)
    before = left.selectbox(
        "Compare version",
        numbers,
        index=1,
        format_func=lambda n: f"Version {n}",
        key=state.SCORERS_DIFF_FROM.child(scorer_id).name,
        help="The older version: what the scorer was.",
    )
    after = right.selectbox(
        "with version",
        numbers,
        index=0,
        format_func=lambda n: f"Version {n}",
        key=state.SCORERS_DIFF_TO.child(scorer_id).name,
        help="The newer version: what the scorer became.",
    )
    if before is None or after is None:
        return
    old, new = by_number[before], by_number[after]
    changes = spec_changes(old.data, new.data)
    if not changes:
        st.success(f"Versions {before} and {after} are the same.", icon=":material/check:")
        return
    st.markdown(f"**{plural(len(changes), 'change')}** from version {before} to version {after}:")
    for change in changes:
        render_change(change)
    with st.expander("The same difference as JSON (for engineers)"):
        st.code(
            json_text_diff(
                old.data, new.data, before_name=f"version {before}", after_name=f"version {after}"
            ),
            language="diff",
        )


def render_change(change: SpecChange) -> None:
    """One change: where in plain words, what happened, and a line diff for long texts."""
    with st.container(border=True):
        st.markdown(
            f"{_KIND_ICONS[change.kind]} **{change.label}** — {change.summary()}",
            help=f"Where in the definition: {change.path or '(the whole scorer)'}",
        )
        lines = change.line_diff()
        if lines:
            st.code(lines, language="diff", wrap_lines=True)
