"""The builder's step editor: one panel per pipeline step, done by a built-in, a formula or
the judge, with the rendered prompt previewed on the chosen example."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from scorer_runtime.spec import FORMULA_FUNCTIONS, StepDraft, StepRegistry
from scorer_runtime.spec.draft import How
from scorer_runtime.spec.fields import FieldGroup
from scorer_runtime.types import StepName
from studio import state
from studio.app_pages.builder.forms import (
    FIELD_KINDS,
    FormValueError,
    OutputField,
    answer_schema_from_rows,
    schema_to_fields,
    unnamed_rows,
)
from studio.app_pages.builder.logic import (
    HOW_LABELS,
    STEP_HEADINGS,
    STEP_HELP,
    Example,
    preview_prompt,
    starter_step,
)
from studio.app_pages.builder.params import params_form
from studio.app_pages.builder.pickers import initial, insert_picker
from studio.app_pages.builder.scoring import score_from_answer
from studio.app_pages.builder.worked import worked_examples_form
from studio.error_words import explain
from studio.words import plural


def step_editor(
    step: StepDraft | None,
    name: StepName,
    *,
    registry: StepRegistry,
    example: Example | None,
    agent: bool,
    groups: list[FieldGroup],
    key: state.Key,
    harden: bool = False,
) -> tuple[StepDraft | None, DeltaGenerator]:
    """Render one step's panel; returns the step as the person has it now (None: skipped),
    and a place under the panel where the caller shows the step's problems. ``groups`` are
    the values the step can read (the example's, earlier steps'); ``harden``: the step's
    judge marks the judged text as data (its preview shows the markers)."""
    with st.container(border=True):
        st.subheader(STEP_HEADINGS[name])
        st.caption(STEP_HELP[name])
        options: list[How] = ["builtin", "formula", "judge"]
        if name != "generate_score":
            options.insert(0, "skip")
        current: How = "skip" if step is None else step.how
        how: How = st.radio(
            "How should this step be done?",
            options,
            index=options.index(current) if current in options else 0,
            format_func=HOW_LABELS.__getitem__,
            horizontal=True,
            key=key.child("how").name,
        )
        if how != current:
            step = starter_step(name, how, registry)
        if step is not None and how == "builtin":
            step = _builtin(step, name, registry, groups, key=key.child("builtin"))
        elif step is not None and how == "formula":
            step = _formula(step, groups, key=key.child("formula"))
        elif step is not None:
            step = _judge_step(
                step,
                name,
                example=example,
                agent=agent,
                groups=groups,
                key=key.child("judge"),
                harden=harden,
            )
        return step, st.container()


def _builtin(
    step: StepDraft,
    name: StepName,
    registry: StepRegistry,
    groups: list[FieldGroup],
    *,
    key: state.Key,
) -> StepDraft:
    entries = registry.entries(suits=name)
    names = [e.name for e in entries]
    used = step.use or names[0]
    chosen = st.selectbox(
        "Check",
        names,
        index=names.index(used) if used in names else 0,
        format_func=lambda n: f"{registry.get(n).category} · {registry.get(n).title}",
        help="Built-in checks need no judge and cost nothing to run.",
        key=key.child("use").name,
    )
    entry = registry.get(chosen)
    st.caption(entry.description)
    values = dict(step.with_ or {}) if chosen == used else {}
    params = params_form(entry.params_schema, values, groups, key=key.child(chosen))
    return StepDraft.builtin(chosen, params)


def _formula(step: StepDraft, groups: list[FieldGroup], *, key: state.Key) -> StepDraft:
    text_key = key.child("text")
    text = st.text_area(
        "Formula",
        value=initial(text_key, step.formula or ""),
        help="A small calculation over the example and what earlier steps gave, e.g. the "
        "length of the answer, or 1 when the judge said yes. Choose the values below.",
        key=text_key.name,
        height=80,
    )
    insert_picker(groups, into=text_key, form="formula", key=key.child("insert"))
    with st.expander("Calculations a formula can do"):
        st.markdown("\n".join(f"- `{n}`: {d}" for n, d in FORMULA_FUNCTIONS))
    return StepDraft(formula=text)


def _judge_step(
    step: StepDraft,
    name: StepName,
    *,
    example: Example | None,
    agent: bool,
    groups: list[FieldGroup],
    key: state.Key,
    harden: bool,
) -> StepDraft:
    template_key = key.child("template")
    out = StepDraft(
        description=st.text_input(
            "What do you ask the judge?",
            value=step.description or "",
            placeholder="e.g. Is the answer polite?",
            key=key.child("description").name,
        ),
        template=st.text_area(
            "The prompt",
            value=initial(template_key, step.template or ""),
            help="Write what the judge reads. To put in the question, the answer or what an "
            "earlier step found, choose it under 'Insert a field'.",
            key=template_key.name,
            height=180,
        ),
        judge=step.judge,
    )
    insert_picker(groups, into=template_key, form="template", key=key.child("insert"))
    preview = st.container()  # filled last: it shows the worked examples as edited below
    if name != "generate_reason":
        out.output_schema = _answer_fields(step.output_schema, key=key.child("fields"))
    if name == "generate_score":
        out.calculate_score = score_from_answer(
            step.calculate_score, out.output_schema, key=key.child("calc")
        )
    out.worked_examples = worked_examples_form(step.worked_examples, key=key.child("worked"))
    with preview:
        _prompt_preview(
            out.template or "", example, agent=agent, harden=harden, worked=out.worked_examples
        )
    return out


def _prompt_preview(
    source: str,
    example: Example | None,
    *,
    agent: bool,
    harden: bool,
    worked: list[dict[str, Any]] | None,
) -> None:
    st.markdown("**What the judge will read** (on the chosen example)")
    if example is None:
        st.caption("Choose an example in the panel on the right to see the prompt here.")
        return
    try:
        shown = preview_prompt(source, example, agent=agent, harden=harden, worked=worked or ())
        if worked:
            st.caption(
                f"It first reads the {plural(len(worked), 'example')} graded by people "
                "(listed below), then your prompt. Scroll to see it all."
            )
        st.code(shown, language=None, wrap_lines=True, height=320 if worked else "content")
        if harden:
            st.caption(
                "The judged text is marked as data: NONCE stands for the secret code each "
                "request gets."
            )
    except Exception as error:
        st.warning(explain(error).detail, icon=":material/edit_note:")


_COLUMNS = ["name", "kind", "description", "choices", "required"]
_WIDTHS = (85, 90, 110, 110, 65)
"""The columns' widths in pixels (fixed: the whole grid fits the step's panel)."""


def _row(field: OutputField) -> dict[str, Any]:
    return {
        "name": field.name,
        "kind": field.kind,
        "description": field.description,
        "choices": ", ".join(field.choices),
        "required": field.required,
    }


def _answer_fields(schema: dict[str, Any] | None, *, key: state.Key) -> dict[str, Any] | None:
    """The output-fields builder: the judge's answer, field by field."""
    st.markdown("**What the judge answers** (one row per field)")
    fields = schema_to_fields(schema)
    if fields is None:
        return _answer_json(schema, key=key)
    # The grid is given the same rows on every run while it is on the page: its edits are
    # kept as changes to those rows, and rows that changed under it would drop the edits
    # made since (every second keystroke lost). They start again from the answer format
    # only when the grid was away (another draft, another way of doing the step).
    base = key.child("base")
    if not state.has(key.child("editor")) or state.peek(base) is None:
        state.put(base, [_row(f) for f in fields])
    # "Required" holds True, False, or nothing yet (a new row before the grid fills in its
    # default): a column of objects, so a new row's empty cell is no change of type.
    frame = pd.DataFrame(state.peek(base), columns=_COLUMNS).astype({"required": object})
    edited = st.data_editor(
        frame,
        num_rows="dynamic",
        hide_index=True,
        column_config={
            "name": st.column_config.TextColumn(
                "Field", help="A short name, e.g. verdict", width=_WIDTHS[0]
            ),
            "kind": st.column_config.SelectboxColumn(
                "Kind", options=list(FIELD_KINDS), default="text", required=True, width=_WIDTHS[1]
            ),
            "description": st.column_config.TextColumn(
                "Tells the judge",
                help="What the field means, in a few words (optional).",
                default="",
                width=_WIDTHS[2],
            ),
            "choices": st.column_config.TextColumn(
                "Choices",
                help="For a field of kind 'one of': the answers it may take, separated by "
                "commas (yes, partial, no).",
                default="",
                width=_WIDTHS[3],
            ),
            "required": st.column_config.CheckboxColumn("Required", default=True, width=_WIDTHS[4]),
        },
        key=key.child("editor").name,
    )
    rows = edited.to_dict("records")
    if unnamed := unnamed_rows(rows):
        st.caption(
            f"Row {', '.join(map(str, unnamed))} has no name yet: it is left out until you "
            "give it one."
            if len(unnamed) == 1
            else f"Rows {', '.join(map(str, unnamed))} have no name yet: they are left out "
            "until you give them one."
        )
    try:
        return answer_schema_from_rows(rows)
    except FormValueError as error:
        st.error(str(error), icon=":material/edit_note:")
        return dict(schema) if schema else None


def _answer_json(schema: dict[str, Any] | None, *, key: state.Key) -> dict[str, Any]:
    """The answer format as JSON Schema text, for a schema richer than the field builder."""
    text = st.text_area(
        "Answer format (JSON Schema)",
        value=json.dumps(schema, indent=2),
        help="This answer format is more detailed than the field builder shows.",
        key=key.child("json").name,
    )
    try:
        loaded: dict[str, Any] = json.loads(text)
        return loaded
    except json.JSONDecodeError as error:
        st.error(f"This is not valid JSON: {error.msg} (line {error.lineno}).")
        return dict(schema or {})
