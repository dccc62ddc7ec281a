"""Review: people grade examples one at a time on the scorer's own scale, without seeing the
judge's verdict first, so the judge can be measured against them."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.review import data
from studio.app_pages.review.grades_file import render_grades_file
from studio.app_pages.review.grading import (
    current_order,
    render_example,
    render_grade,
    render_judge,
    render_moves,
    render_progress,
)
from studio.app_pages.review.pick import render_picker
from studio.widgets import pickers
from studio.widgets.common import empty_state, page_header


def _go_builder() -> None:
    st.switch_page("app_pages/builder/page.py")


def _go_examples() -> None:
    st.switch_page("app_pages/examples/page.py")


def _start_grading() -> None:
    name = str(state.peek(state.REVIEW_GRADER_NAME) or "").strip()
    if name:
        state.put(state.REVIEW_GRADER, name)


def _change_grader() -> None:
    state.put(state.REVIEW_GRADER, None)


def _ask_grader() -> str | None:
    """The grader's name, asked once per session (stored with each grade)."""
    grader = state.get(state.REVIEW_GRADER)
    if grader:
        left, right = st.columns([4, 1], vertical_alignment="center")
        left.caption(f"Grading as **{grader}**: your name is saved with each grade.")
        right.button("Not you?", key=state.REVIEW_GRADER_CHANGE.name, on_click=_change_grader)
        return str(grader)
    with st.form(state.REVIEW_GRADER_FORM.name, border=True):
        st.text_input(
            "Your name",
            key=state.REVIEW_GRADER_NAME.name,
            max_chars=200,
            placeholder="e.g. Priya",
            help="Saved with each grade, so grades by different people can be told apart.",
        )
        st.form_submit_button("Start grading", type="primary", on_click=_start_grading)
    return None


state.show_flashes()
page_header(
    "Review",
    "Grade examples yourself, one at a time, on the scorer's own scale. Your grades measure "
    "how far the judge can be trusted: the judge's verdict stays hidden until you have graded.",
)
scorers = pickers.scorer_choices()
if not scorers:
    empty_state(
        "**No scorer to grade for yet.** You grade examples on a scorer's scale (pass or fail, "
        "its judge's labels, or a number), so build a scorer first.",
        action=("Build a scorer", _go_builder),
        key=state.REVIEW_GO_BUILDER,
    )
    st.stop()
if not pickers.dataset_choices():
    empty_state(
        "**No examples to grade yet.** Import a dataset of inputs and answers on the Examples "
        "page, then come back to grade them.",
        action=("Go to Examples", _go_examples),
        key=state.REVIEW_GO_EXAMPLES,
    )
    st.stop()

source = render_picker(scorers)
if source is None:
    st.stop()
scale = data.scorer_scale(source.scorer_id)
if scale is None:
    st.info("This scorer has no saved version yet: save it in the builder first.")
    st.stop()
grader = _ask_grader()
if grader is None:
    st.stop()

labels = data.labels(source.scorer_id, source.dataset_id)
order = current_order(source, labels)
render_progress(order, labels)
example_id = state.get(state.REVIEW_EXAMPLE_ID)
example = data.example(example_id) if example_id is not None else None
if example is None:
    st.info("These examples are empty: add some on the Examples page.")
else:
    graded = list(labels)
    label = labels.get(example.id)
    render_example(example, order.index(example.id) + 1, len(order), label)
    render_grade(source, scale, graded)
    render_moves(graded)
    render_judge(source, scale, label)
render_grades_file(source, data.stored_name(source.scorer_id))
