"""Grading one example at a time: the example, the grade buttons (number keys), moving with
j / k / s, and the judge's verdict once the person has graded (or when asked to see it)."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.store import ExampleInfo, LabelInfo
from studio import state
from studio.app_pages.review import data
from studio.app_pages.review.logic import (
    LastGrade,
    agreement_words,
    grade_buttons,
    grade_words,
    grading_order,
    move,
    next_ungraded,
    progress_words,
    shown_text,
    verdict_words,
)
from studio.words import plural


def current_order(source: data.Source, labels: dict[int, LabelInfo]) -> list[int]:
    """The grading order of the picked examples, fixed when they were picked (ungraded first);
    made again when another scorer or set of examples is picked."""
    what = (source.scorer_id, source.kind, source.id)
    ids = data.example_ids(source.dataset_id)
    saved = state.get(state.REVIEW_ORDER)
    if saved is None or saved[0] != what or sorted(saved[1]) != ids:
        order = grading_order(ids, labels)
        state.put(state.REVIEW_ORDER, (what, order))
        state.put(state.REVIEW_EXAMPLE_ID, order[0] if order else None)
        state.put(state.REVIEW_LAST, None)
        return order
    kept: list[int] = saved[1]
    if state.get(state.REVIEW_EXAMPLE_ID) not in kept:
        state.put(state.REVIEW_EXAMPLE_ID, kept[0] if kept else None)
    return kept


def _go(step: int) -> None:
    order = state.get(state.REVIEW_ORDER)[1]
    state.put(state.REVIEW_EXAMPLE_ID, move(order, state.get(state.REVIEW_EXAMPLE_ID), step))


def _skip(graded: list[int]) -> None:
    order = state.get(state.REVIEW_ORDER)[1]
    current = state.get(state.REVIEW_EXAMPLE_ID)
    state.put(
        state.REVIEW_EXAMPLE_ID, next_ungraded(order, current, graded) or move(order, current, 1)
    )


def _grade(source: data.Source, scale: data.ScorerScale, value: float, graded: list[int]) -> None:
    example_id = state.get(state.REVIEW_EXAMPLE_ID)
    note = str(state.peek(state.REVIEW_NOTE.child(example_id)) or "").strip()
    data.save_grade(
        scorer_id=source.scorer_id,
        example_id=example_id,
        value=value,
        grader=state.get(state.REVIEW_GRADER),
        note=note,
    )
    order = state.get(state.REVIEW_ORDER)[1]
    verdict = data.verdict(source, scale.version_id, example_id)
    words = verdict_words(scale.scale, verdict)
    agree = agreement_words(scale.scale, value, verdict)
    state.put(
        state.REVIEW_LAST,
        LastGrade(
            example_id,
            order.index(example_id) + 1,
            grade_words(scale.scale, value),
            f"{words} {agree}".strip(),
        ),
    )
    after = next_ungraded(order, example_id, [*graded, example_id])
    state.put(state.REVIEW_EXAMPLE_ID, after if after is not None else example_id)


def render_progress(order: list[int], labels: dict[int, LabelInfo]) -> None:
    graded = sum(1 for i in order if i in labels)
    st.progress(graded / len(order) if order else 0.0, text=progress_words(graded, len(order)))
    last: LastGrade | None = state.get(state.REVIEW_LAST)
    if last is not None:
        st.success(
            f"Example {last.position}: you said **{last.grade}**. {last.verdict or ''}",
            icon=":material/how_to_reg:",
        )
    if order and graded == len(order):
        st.info(
            f"All {plural(len(order), 'example')} are graded. You can still go back and grade "
            "one again: the latest grade counts.",
            icon=":material/task_alt:",
        )


def render_example(
    example: ExampleInfo, position: int, total: int, label: LabelInfo | None
) -> None:
    st.subheader(f"Example {position} of {total}")
    if label is not None:
        when = f"{label.created_at:%d %b %H:%M}"
        note = f" — “{label.note}”" if label.note else ""
        st.caption(
            f"Graded before by {label.labeller} on {when}{note}. Grade it again to change "
            "it: the new grade counts, the old one is kept."
        )
    columns = st.columns(3 if example.ground_truth is not None else 2)
    parts = [("Input", example.input), ("Output (what is graded)", example.output)]
    if example.ground_truth is not None:
        parts.append(("Expected answer", example.ground_truth))
    for column, (title, value) in zip(columns, parts, strict=True):
        with column:
            st.markdown(f"**{title}**")
            st.container(border=True).text(shown_text(value) or "(empty)")


def render_grade(source: data.Source, scale: data.ScorerScale, graded: list[int]) -> None:
    """The grade buttons (keys 1-9; on a number scale five steps, then a box for any other
    number), and the optional note."""
    example_id = state.get(state.REVIEW_EXAMPLE_ID)
    buttons = grade_buttons(scale.scale)
    number = scale.scale.kind == "number"
    st.markdown("**Your grade**")
    columns = st.columns(len(buttons) + (0 if number else 1))
    for i, (column, button) in enumerate(zip(columns, buttons, strict=False)):
        column.button(
            button.label,
            key=state.REVIEW_GRADE.child(i).name,
            shortcut=button.shortcut,
            on_click=_grade,
            args=(source, scale, button.value, graded),
            width="stretch",
        )
    if number:
        _number_grade(source, scale, example_id, graded)
    st.text_input(
        "Note (optional)",
        key=state.REVIEW_NOTE.child(example_id).name,
        max_chars=2000,
        placeholder="Why this grade, e.g. “answers the question but is rude”",
        help="Saved with your grade when you press a grade.",
    )


def _number_grade(
    source: data.Source, scale: data.ScorerScale, example_id: int, graded: list[int]
) -> None:
    low, high = scale.scale.low, scale.scale.high
    left, right = st.columns([2, 1], vertical_alignment="bottom")
    with left:
        value = st.number_input(
            f"Or any number from {low:g} to {high:g}",
            min_value=low,
            max_value=high,
            value=None,
            step=(high - low) / 10 or 0.1,
            key=state.REVIEW_NUMBER.child(example_id).name,
            placeholder=f"{low:g} to {high:g}; {scale.scale.pass_mark:g} or more passes",
        )
    with right:
        st.button(
            "Save grade",
            key=state.REVIEW_NUMBER_SAVE.name,
            type="primary",
            disabled=value is None,
            on_click=_grade,
            args=(source, scale, float(value or 0.0), graded),
            width="stretch",
        )


def render_moves(graded: list[int]) -> None:
    """Previous (k), skip (s), next (j), and the keys in words."""
    back, skip, forward = st.columns(3)
    back.button(
        "Previous",
        key=state.REVIEW_PREVIOUS.name,
        shortcut="k",
        on_click=_go,
        args=(-1,),
        width="stretch",
    )
    skip.button(
        "Skip",
        key=state.REVIEW_SKIP.name,
        shortcut="s",
        on_click=_skip,
        args=(graded,),
        width="stretch",
    )
    forward.button(
        "Next",
        key=state.REVIEW_NEXT.name,
        shortcut="j",
        on_click=_go,
        args=(1,),
        width="stretch",
    )
    st.caption(
        "Keys: the number keys grade, as shown on the grade buttons; j goes to the next "
        "example, k to the previous one, s skips to the next one not graded yet (keys work "
        "when you are not typing in a box)."
    )


def render_judge(source: data.Source, scale: data.ScorerScale, label: LabelInfo | None) -> None:
    """The judge's verdict: shown once the example is graded, or when asked to see it first."""
    example_id = state.get(state.REVIEW_EXAMPLE_ID)
    show_first = st.toggle(
        "Show the judge's verdict before I grade",
        key=state.REVIEW_SHOW_JUDGE.name,
        help="Off by default, so your grade is your own: the judge's verdict is shown once "
        "you have graded the example.",
    )
    if label is None and not show_first:
        st.caption("The judge's verdict is hidden until you grade this example.")
        return
    verdict = data.verdict(source, scale.version_id, example_id)
    with st.container(border=True):
        st.markdown(verdict_words(scale.scale, verdict))
        if label is not None:
            agree = agreement_words(scale.scale, label.value, verdict)
            st.markdown(f"The latest grade is **{grade_words(scale.scale, label.value)}**. {agree}")
        if verdict is not None and verdict.reason and verdict.outcome == "scored":
            st.caption(f"The judge's reason: {verdict.reason}")
