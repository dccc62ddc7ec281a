"""Turning a judge's answer into a number: a score for each label, a number field, a formula.

Used by the judge step that gives the score ("How does the answer become the score?") and by
the built-in "Turn the judge's label into a score". Every field is chosen from what the
judge answers; the scores of a label field start from its choices (yes → 1, no → 0).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from scorer_runtime.spec.fields import (
    FieldGroup,
    FieldRef,
    answer_fields,
    first_label_field,
    first_number_field,
    spaced_scores,
)
from studio import state
from studio.app_pages.builder.forms import FormValueError, ParamWidget, read_widget, widget_text
from studio.app_pages.builder.pickers import field_select, initial, insert_picker

_MAPPING = ParamWidget("mapping", "Score of each label", "", "mapping", True)


def label_scores(
    choices: Sequence[str], mapping: Mapping[str, Any] | None, *, key: state.Key
) -> dict[str, float]:
    """A score for each of the label's choices, one number box per label (filled in from
    ``mapping``, or spread from 1 to 0)."""
    start = spaced_scores(list(choices))
    known = {str(k): v for k, v in (mapping or {}).items() if isinstance(v, int | float)}
    st.markdown("**Score of each label**")
    columns = st.columns(min(len(choices), 4) or 1)
    scores: dict[str, float] = {}
    for i, label in enumerate(choices):
        scores[label] = columns[i % len(columns)].number_input(
            f"“{label}” scores",
            value=float(known.get(label, start[label])),
            step=0.1,
            key=key.child(label).name,
        )
    return scores


def mapping_text(mapping: Mapping[str, Any] | None, *, key: state.Key) -> dict[str, float]:
    """The scores of labels whose choices are not known, typed one per line (yes = 1)."""
    text = st.text_area(
        "Score of each label",
        value=initial(key, widget_text(_MAPPING, dict(mapping or {}))),
        help="One per line: the label, '=', its score.",
        placeholder="yes = 1\npartial = 0.5\nno = 0",
        key=key.name,
        height=100,
    )
    try:
        return dict(read_widget(_MAPPING, text) or {})
    except FormValueError as error:
        st.error(str(error), icon=":material/edit_note:")
        return dict(mapping or {})


def scores_for(
    field: FieldRef | None, mapping: Mapping[str, Any] | None, *, key: state.Key
) -> dict[str, float]:
    """Each label's score: one box per choice when the field's choices are known."""
    if field is not None and field.choices:
        return label_scores(field.choices, mapping, key=key.child("score"))
    return mapping_text(mapping, key=key.child("mapping"))


_WAYS = {
    "labels": "A score for each label",
    "field": "A number the judge gives",
    "formula": "A formula",
}


def score_from_answer(
    calc: Mapping[str, Any] | None, schema: Mapping[str, Any] | None, *, key: state.Key
) -> dict[str, Any]:
    """How the judge's own answer (this step's) becomes the score."""
    own = answer_fields("judge_output", schema or {})
    group = FieldGroup("judge_output", "The judge's answer", own)
    calc = dict(calc or {})
    current = "formula" if "formula" in calc else "field" if "field" in calc else "labels"
    way = st.radio(
        "How does the answer become the score?",
        list(_WAYS),
        index=list(_WAYS).index(current),
        format_func=_WAYS.__getitem__,
        horizontal=True,
        key=key.child("way").name,
    )
    if way == "labels":
        return _from_labels(calc, group, key=key)
    if way == "field":
        return _from_number(calc, group, key=key)
    formula_key = key.child("formula")
    formula = st.text_input(
        "Formula",
        value=initial(formula_key, str(calc.get("formula") or "")),
        placeholder="e.g. (judge_output.solved == 'yes') * 0.7 "
        "+ (judge_output.polite == 'yes') * 0.3",
        help="A small calculation over the judge's answer; pick its fields below.",
        key=formula_key.name,
    )
    insert_picker([group], into=formula_key, form="formula", key=key.child("insert"))
    return {"formula": formula}


def _from_labels(calc: Mapping[str, Any], group: FieldGroup, *, key: state.Key) -> dict[str, Any]:
    with_ = dict(calc.get("with") or {}) if calc.get("use") == "label_to_score" else {}
    labelled = FieldGroup(group.source, group.label, tuple(f for f in group.fields if f.choices))
    if not labelled.fields:
        st.warning("Add a field of kind 'one of' to the answer (e.g. solved: yes, partly, no).")
        return {"use": "label_to_score", "with": with_ or {"mapping": {"yes": 1, "no": 0}}}
    path = field_select(
        "Which label",
        [labelled],
        str(with_.get("field") or ""),
        key=key.child("label_field"),
        default=first_label_field([labelled]),
    )
    field = next((f for f in labelled.fields if f.path == path), None)
    mapping = scores_for(field, with_.get("mapping"), key=key)
    return {"use": "label_to_score", "with": {"mapping": mapping, "field": path}}


def _from_number(calc: Mapping[str, Any], group: FieldGroup, *, key: state.Key) -> dict[str, Any]:
    numbers = FieldGroup(
        group.source,
        group.label,
        tuple(f for f in group.fields if f.kind in ("number", "integer")),
    )
    if not numbers.fields:
        st.warning("Add a field of kind 'number' to the answer, e.g. score.")
        return {"field": str(calc.get("field") or "score")}
    current = f"judge_output.{calc['field']}" if calc.get("field") else ""
    path = field_select(
        "Which number",
        [numbers],
        current,
        key=key.child("field"),
        default=first_number_field([numbers]),
    )
    return {"field": path.removeprefix("judge_output.")}
