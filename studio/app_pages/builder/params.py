"""Widgets for a built-in step's parameters, generated from its JSON Schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from studio import state
from studio.app_pages.builder.forms import (
    FormValueError,
    ParamWidget,
    param_widgets,
    params_from_widgets,
    widget_text,
)


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


def params_form(
    schema: Mapping[str, Any], values: Mapping[str, Any], *, key: state.Key
) -> dict[str, Any]:
    """Render the parameters of a built-in; returns the ``with`` values as typed so far."""
    widgets = param_widgets(schema)
    raw = {}
    for widget in widgets:
        current = values.get(widget.name, widget.default)
        raw[widget.name] = _widget(widget, current, key.child(widget.name))
    try:
        return params_from_widgets(widgets, raw)
    except FormValueError as error:
        st.error(str(error), icon=":material/edit_note:")
        return dict(values)
