"""Pickers of the values a step can read: choose "Step 2, the judge's answer > solved" and
the builder writes the reference, in a built-in's parameter, a prompt or a formula.

The values come from :meth:`ScorerDraft.fields_available_at`, grouped by where they come
from. Typing a reference stays possible ("Something else…"), but is never needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import streamlit as st

from scorer_runtime.spec.fields import FieldGroup, FieldRef, choices_of, fields_read
from studio import state

TYPED = "…"
"""The picker's option for a reference typed by hand (for people who know the paths)."""
_TYPED_LABEL = "Something else (type it)"


def initial(key: state.Key, value: Any) -> Any:
    """The ``value=`` to give a keyed widget: its value the first time, then ``None``/"" so
    a value a picker wrote into its state is not also given as a default."""
    if not state.has(key):
        return value
    return "" if isinstance(value, str) else None


def field_select(
    label: str,
    groups: Sequence[FieldGroup],
    current: str | None,
    *,
    key: state.Key,
    default: FieldRef | None = None,
    help: str | None = None,
) -> str:
    """Choose one value the step can read; returns its reference (as typed, for "Something
    else"). Starts on ``current`` when it exists, else on ``default``, else the first."""
    choices = choices_of(groups)
    options = [*choices, TYPED]
    if current and current in choices:
        start = current
    elif current and default is None:
        start = TYPED
    else:
        start = default.path if default is not None else options[0]
    chosen = st.selectbox(
        label,
        options,
        index=options.index(start),
        format_func=lambda path: _TYPED_LABEL if path == TYPED else choices[path],
        help=help,
        key=key.name,
    )
    if chosen != TYPED:
        return str(chosen)
    typed: str = st.text_input(
        f"{label} (typed)",
        value=initial(key.child("typed"), current or ""),
        placeholder="output",
        help="The name of a value, e.g. output, or an earlier step's answer field.",
        key=key.child("typed").name,
    )
    return typed.strip()


def insert_picker(
    groups: Sequence[FieldGroup],
    *,
    into: state.Key,
    form: Literal["template", "formula"],
    key: state.Key,
) -> None:
    """ "Insert a field": choosing a value appends its reference to the text widget ``into``
    (``{{ … }}`` in a prompt, the bare name in a formula)."""
    choices = choices_of(groups)
    refs = {f.path: f for g in groups for f in g.fields}
    if form == "formula":
        read = fields_read(str(state.peek(into) or ""), groups)
        if read:
            st.caption("Reads: " + "; ".join(f"{choices[path]} ({path})" for path in read))
    st.selectbox(
        "Insert a field",
        list(choices),
        index=None,
        format_func=choices.__getitem__,
        placeholder="Choose a value to put in at the end…",
        help="What this step can use: the example, and what earlier steps give.",
        on_change=_insert,
        args=(key, into, refs, form),
        key=key.name,
    )


def _insert(key: state.Key, into: state.Key, refs: dict[str, FieldRef], form: str) -> None:
    path = state.peek(key)
    if path is None or path not in refs:
        return
    piece = refs[path].template if form == "template" else path
    text = str(state.peek(into) or "")
    glue = "" if not text or text.endswith((" ", "\n")) else " "
    state.put(into, f"{text}{glue}{piece}")
    state.put(key, None)
