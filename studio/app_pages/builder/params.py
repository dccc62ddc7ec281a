"""Widgets for a built-in step's parameters, generated from its JSON Schema.

A parameter that reads a value (a field) is a choice among the values the step can read; a
label's scores get one box per choice of the label chosen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from scorer_runtime.spec.fields import (
    FieldGroup,
    FieldRef,
    choices_of,
    find_field,
    first_label_field,
    first_number_field,
)
from studio import state
from studio.app_pages.builder.forms import (
    FormValueError,
    ParamWidget,
    param_widgets,
    params_from_widgets,
    widget_text,
)
from studio.app_pages.builder.pickers import field_select
from studio.app_pages.builder.scoring import scores_for


def _widget(widget: ParamWidget, value: Any, key: state.Key) -> Any:
    label = widget.label + ("" if widget.required else " (optional)")
    text = widget_text(widget, value)
    if widget.kind == "checkbox":
        return st.checkbox(label, value=bool(value), help=widget.help, key=key.name)
    if widget.kind == "select":
        options = list(widget.options)
        index = options.index(str(value)) if str(value) in options else 0
        return st.selectbox(label, options, index=index, help=widget.help, key=key.name)
    if widget.kind in ("number", "integer"):
        step = 1 if widget.kind == "integer" else 0.05
        cast = int if widget.kind == "integer" else float
        return st.number_input(
            label,
            value=None if value is None else cast(value),
            min_value=None if widget.minimum is None else cast(widget.minimum),
            max_value=None if widget.maximum is None else cast(widget.maximum),
            step=step,
            help=widget.help,
            key=key.name,
        )
    if widget.kind == "lines":
        return st.text_area(
            label, value=text, help=f"{widget.help} One per line.", key=key.name, height=100
        )
    if widget.kind == "mapping":
        return st.text_area(
            label,
            value=text,
            help=f"{widget.help} One per line: yes = 1",
            placeholder="yes = 1\npartial = 0.5\nno = 0",
            key=key.name,
            height=100,
        )
    if widget.kind in ("json", "textarea"):
        return st.text_area(label, value=text, help=widget.help, key=key.name)
    return st.text_input(label, value=text, help=widget.help, key=key.name)


def _default_field(widget: ParamWidget, groups: Sequence[FieldGroup]) -> FieldRef | None:
    """Where a field parameter starts: a label, a number, or its own default when it exists."""
    if widget.reads == "label":
        return first_label_field(groups)
    if widget.reads == "number":
        return first_number_field(groups)
    if isinstance(widget.default, str):
        return find_field(groups, widget.default)
    return None


def _read_field(
    widget: ParamWidget, value: Any, groups: Sequence[FieldGroup], key: state.Key
) -> str:
    current = str(value) if isinstance(value, str) else ""
    # A default that this scorer does not have (judge_output.verdict after no such judge
    # answer) is no choice at all: start on a value that exists instead.
    if current == widget.default and current not in choices_of(groups):
        current = ""
    return field_select(
        widget.label,
        groups,
        current,
        key=key,
        default=_default_field(widget, groups),
        help=widget.help,
    )


def params_form(
    schema: Mapping[str, Any],
    values: Mapping[str, Any],
    groups: Sequence[FieldGroup],
    *,
    key: state.Key,
) -> dict[str, Any]:
    """Render the parameters of a built-in; returns the ``with`` values as typed so far."""
    widgets = param_widgets(schema)
    raw: dict[str, Any] = {}
    label_field: FieldRef | None = None
    for widget in widgets:
        current = values.get(widget.name, widget.default)
        if widget.reads:
            raw[widget.name] = _read_field(widget, current, groups, key.child(widget.name))
            if widget.reads == "label":
                label_field = find_field(groups, raw[widget.name])
        elif widget.kind == "mapping" and label_field is not None:
            raw[widget.name] = scores_for(label_field, current, key=key.child(widget.name))
        else:
            raw[widget.name] = _widget(widget, current, key.child(widget.name))
    try:
        return params_from_widgets(widgets, raw)
    except FormValueError as error:
        st.error(str(error), icon=":material/edit_note:")
        return dict(values)
