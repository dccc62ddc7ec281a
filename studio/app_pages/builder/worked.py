"""The builder's worked examples of a judge step: cases people graded, which the judge reads
before each answer it grades. Each is listed with its grade and note (both editable, and it
can be removed); one more can be added by hand."""

from __future__ import annotations

from typing import Any

import streamlit as st

from studio import state
from studio.app_pages.builder.logic import shown_value, worked_example_from_form, worked_example_ids

_FORM_FIELDS = ("question", "answer", "expected", "grade", "word", "note")
_SHOWN = (("Question", "input"), ("Answer", "output"), ("Expected answer", "ground_truth"))
"""What an example shows of what was graded, with the words for it."""
_NEW_GRADE = 1.0
"""The grade a new example's form starts on."""


def worked_examples_form(
    examples: list[dict[str, Any]] | None, *, key: state.Key
) -> list[dict[str, Any]] | None:
    """The step's worked examples as the person has them now (None: there are none)."""
    current = _after_clicks(list(examples or []), key=key)
    count = f"({len(current)})" if current else "(none yet)"
    # Keyed, so it stays open when its count changes (an example added or removed).
    with st.expander(f"Examples graded by people {count}", key=key.child("open").name):
        st.caption(
            "The judge reads these first, with the grade and note a person gave, and is asked "
            "to grade the same way. 'Improve this judge' on the Trust page can add some from "
            "your grades; you can also add one by hand below."
        )
        ids = worked_example_ids(current)
        kept = [
            _example_card(number, example, key=key.child(ident))
            for number, (ident, example) in enumerate(zip(ids, current, strict=True), 1)
        ]
        _add_form(key=key.child("add"))
    return kept or None


def _after_clicks(examples: list[dict[str, Any]], *, key: state.Key) -> list[dict[str, Any]]:
    """The examples with what the last click did: one removed, or one added by hand (the
    buttons' callbacks leave it in the session, so this run already shows it)."""
    kept = []
    for ident, example in zip(worked_example_ids(examples), examples, strict=True):
        if state.peek(key.child(ident).child("removed")):
            state.forget(key.child(ident).child("removed"))
        else:
            kept.append(example)
    added: dict[str, Any] | None = state.peek(key.child("add").child("added"))
    state.forget(key.child("add").child("added"))
    return kept + ([added] if added is not None else [])


def _example_card(number: int, example: dict[str, Any], *, key: state.Key) -> dict[str, Any]:
    """One example: what was graded, and its grade and note as edited."""
    with st.container(border=True):
        head, remove = st.columns([3, 1], vertical_alignment="center")
        head.markdown(f"**Example {number}**")
        remove.button(
            "Remove",
            icon=":material/delete:",
            type="tertiary",
            help="Take this example out of what the judge reads (when you save).",
            on_click=state.put,
            args=(key.child("removed"), True),
            key=key.child("remove").name,
        )
        for title, name in _SHOWN:
            if name == "output" or example.get(name) is not None:
                st.caption(f"{title}: {shown_value(example.get(name))}")
        grade_at, word_at, note_at = st.columns([1, 1, 2])
        grade = grade_at.number_input(
            "Grade",
            value=float(example.get("grade", 0.0)),
            help="The score the person gave, on this scorer's scale (e.g. 1 for the best).",
            key=key.child("grade").name,
        )
        word = word_at.text_input(
            "Word (optional)",
            value=example.get("grade_label") or "",
            placeholder="e.g. pass",
            key=key.child("word").name,
        )
        note = note_at.text_input(
            "Their note (optional)",
            value=example.get("note") or "",
            placeholder="Why the person gave this grade",
            key=key.child("note").name,
        )
    edited = {name: value for name, value in example.items() if name not in ("grade_label", "note")}
    edited["grade"] = grade
    edited |= {"grade_label": word.strip()} if word.strip() else {}
    edited |= {"note": note.strip()} if note.strip() else {}
    return edited


def _add_form(*, key: state.Key) -> None:
    """The form to add one example by hand (its button leaves the example in the session)."""
    if not state.has(key.child("grade")):
        state.put(key.child("grade"), _NEW_GRADE)
    st.markdown("**Add one by hand**")
    with st.form(key.child("form").name):
        st.text_area("Question (optional)", key=key.child("question").name, height=68)
        st.text_area("Answer the person graded", key=key.child("answer").name, height=68)
        st.text_area("Expected answer (optional)", key=key.child("expected").name, height=68)
        grade_at, word_at, note_at = st.columns([1, 1, 2])
        grade_at.number_input("Their grade", key=key.child("grade").name)
        word_at.text_input("Word (optional)", placeholder="e.g. pass", key=key.child("word").name)
        note_at.text_input(
            "Their note (optional)",
            placeholder="Why the person gave this grade",
            key=key.child("note").name,
        )
        st.form_submit_button("Add this example", on_click=_add, args=(key,))
        problem = state.peek(key.child("problem"))
        if problem:
            st.error(problem, icon=":material/edit_note:")


def _add(key: state.Key) -> None:
    """On "Add this example": check what was typed; keep it for this run and empty the form,
    or say what to fix (the typed text stays)."""
    texts = {name: state.peek(key.child(name)) or "" for name in _FORM_FIELDS if name != "grade"}
    grade = state.peek(key.child("grade"))
    found = worked_example_from_form(
        texts["question"],
        texts["answer"],
        texts["expected"],
        _NEW_GRADE if grade is None else float(grade),
        texts["word"],
        texts["note"],
    )
    if isinstance(found, str):
        state.put(key.child("problem"), found)
        return
    state.put(key.child("added"), found)
    state.forget(key.child("problem"))
    for name in texts:
        state.put(key.child(name), "")
    state.put(key.child("grade"), _NEW_GRADE)
