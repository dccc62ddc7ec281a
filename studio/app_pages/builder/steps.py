"""The builder's step editor: one panel per pipeline step, done by a built-in, a formula or
the judge, with the rendered prompt previewed on the chosen example."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from scorer_runtime.spec import (
    FORMULA_FUNCTIONS,
    FORMULA_VARIABLES,
    TEMPLATE_FILTERS,
    TEMPLATE_VARIABLES,
    StepDraft,
    StepRegistry,
)
from scorer_runtime.spec.draft import How
from scorer_runtime.types import StepName
from studio import state
from studio.app_pages.builder.forms import (
    FIELD_KINDS,
    FormValueError,
    ParamWidget,
    answer_schema_from_rows,
    read_widget,
    schema_to_fields,
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
from studio.messages import explain


def step_editor(
    step: StepDraft | None,
    name: StepName,
    *,
    registry: StepRegistry,
    example: Example | None,
    agent: bool,
    key: state.Key,
) -> tuple[StepDraft | None, DeltaGenerator]:
    """Render one step's panel; returns the step as the person has it now (None: skipped),
    and a place under the panel where the caller shows the step's problems."""
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
            step = _builtin(step, name, registry, key=key.child("builtin"))
        elif step is not None and how == "formula":
            step = _formula(step, key=key.child("formula"))
        elif step is not None:
            step = _judge_step(step, name, example=example, agent=agent, key=key.child("judge"))
        return step, st.container()


def _builtin(
    step: StepDraft, name: StepName, registry: StepRegistry, *, key: state.Key
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
    params = params_form(entry.params_schema, values, key=key.child(chosen))
    return StepDraft.builtin(chosen, params)


def _formula(step: StepDraft, *, key: state.Key) -> StepDraft:
    text = st.text_area(
        "Formula",
        value=step.formula or "",
        help="A small calculation over the example and earlier results, e.g. "
        "results.analyze_step_result.score * 2. No programming needed beyond this line.",
        key=key.child("text").name,
        height=80,
    )
    with st.expander("What can a formula use?"):
        st.markdown("\n".join(f"- `{n}`: {d}" for n, d in FORMULA_VARIABLES))
        st.markdown("\n".join(f"- `{n}`: {d}" for n, d in FORMULA_FUNCTIONS))
    return StepDraft(formula=text)


def _judge_step(
    step: StepDraft, name: StepName, *, example: Example | None, agent: bool, key: state.Key
) -> StepDraft:
    out = StepDraft(
        description=st.text_input(
            "What do you ask the judge?",
            value=step.description or "",
            placeholder="e.g. Is the answer polite?",
            key=key.child("description").name,
        ),
        template=st.text_area(
            "The prompt",
            value=step.template or "",
            help="Write what the judge reads. Put {{ output }} where the answer goes, "
            "{{ input }} for the question, {{ ground_truth }} for the expected answer.",
            key=key.child("template").name,
            height=180,
        ),
        judge=step.judge,
    )
    with st.expander("Words you can put in the prompt"):
        st.markdown("\n".join(f"- `{{{{ {n} }}}}`: {d}" for n, d in TEMPLATE_VARIABLES))
        st.markdown("\n".join(f"- `{n}`: {d}" for n, d in TEMPLATE_FILTERS))
    _prompt_preview(out.template or "", example, agent=agent)
    if name != "generate_reason":
        out.output_schema = _answer_fields(step.output_schema, key=key.child("fields"))
    if name == "generate_score":
        out.calculate_score = _score_from_answer(
            step.calculate_score, out.output_schema, key=key.child("calc")
        )
    return out


def _prompt_preview(source: str, example: Example | None, *, agent: bool) -> None:
    st.markdown("**What the judge will read** (on the chosen example)")
    if example is None:
        st.caption("Choose an example in the panel on the right to see the prompt here.")
        return
    try:
        st.code(preview_prompt(source, example, agent=agent), language=None, wrap_lines=True)
    except Exception as error:
        st.warning(explain(error).detail, icon=":material/edit_note:")


def _answer_fields(schema: dict[str, Any] | None, *, key: state.Key) -> dict[str, Any] | None:
    """The output-fields builder: the judge's answer, field by field."""
    st.markdown("**What the judge answers** (one row per field)")
    fields = schema_to_fields(schema)
    if fields is None:
        return _answer_json(schema, key=key)
    frame = pd.DataFrame(
        [
            {
                "name": f.name,
                "kind": f.kind,
                "description": f.description,
                "choices": ", ".join(f.choices),
                "required": f.required,
            }
            for f in fields
        ],
        columns=["name", "kind", "description", "choices", "required"],
    )
    edited = st.data_editor(
        frame,
        num_rows="dynamic",
        hide_index=True,
        column_config={
            "name": st.column_config.TextColumn("Field", help="A short name, e.g. verdict"),
            "kind": st.column_config.SelectboxColumn("Kind", options=list(FIELD_KINDS)),
            "description": st.column_config.TextColumn("Tells the judge"),
            "choices": st.column_config.TextColumn(
                "Choices (for 'one of')", help="Separated by commas: yes, partial, no"
            ),
            "required": st.column_config.CheckboxColumn("Required"),
        },
        key=key.child("editor").name,
    )
    try:
        return answer_schema_from_rows(edited.to_dict("records"))
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


_SCORE_WAYS = {
    "field": "A number field of the answer",
    "labels": "Map the judge's labels to scores",
    "formula": "A formula",
}


def _score_from_answer(
    calc: Mapping[str, Any] | None, schema: Mapping[str, Any] | None, *, key: state.Key
) -> dict[str, Any]:
    """How the judge's answer becomes the score."""
    calc = dict(calc or {"field": "score"})
    current = "formula" if "formula" in calc else "labels" if "use" in calc else "field"
    way = st.radio(
        "How does the answer become the score?",
        list(_SCORE_WAYS),
        index=list(_SCORE_WAYS).index(current),
        format_func=_SCORE_WAYS.__getitem__,
        horizontal=True,
        key=key.child("way").name,
    )
    props = (schema or {}).get("properties", {})
    if way == "field":
        return _score_from_field(calc, props, key=key)
    if way == "labels":
        return _score_from_labels(calc, props, key=key)
    formula = st.text_input(
        "Formula",
        value=str(calc.get("formula", "judge_output.score")),
        help="Over judge_output, the judge's answer: judge_output.correct / judge_output.total",
        key=key.child("formula").name,
    )
    return {"formula": formula}


def _score_from_field(
    calc: Mapping[str, Any], props: Mapping[str, Any], *, key: state.Key
) -> dict[str, Any]:
    """The score is a number field of the judge's answer."""
    numbers = [n for n, p in props.items() if p.get("type") in ("number", "integer")]
    if not numbers:
        st.warning("Add a field of kind 'number' to the answer, e.g. score.")
        return {"field": "score"}
    field = str(calc.get("field", numbers[0]))
    chosen = st.selectbox(
        "Field",
        numbers,
        index=numbers.index(field) if field in numbers else 0,
        key=key.child("field").name,
    )
    return {"field": chosen}


def _score_from_labels(
    calc: Mapping[str, Any], props: Mapping[str, Any], *, key: state.Key
) -> dict[str, Any]:
    """The score maps the labels of a 'one of' field of the judge's answer to numbers."""
    labels = [n for n, p in props.items() if "enum" in p]
    with_ = dict(calc.get("with", {})) if "use" in calc else {}
    if not labels:
        st.warning("Add a field of kind 'one of' (e.g. verdict: yes, partial, no).")
        return {"use": "label_to_score", "with": with_ or {"mapping": {"yes": 1, "no": 0}}}
    field = str(with_.get("field", f"judge_output.{labels[0]}")).removeprefix("judge_output.")
    chosen = st.selectbox(
        "Label field",
        labels,
        index=labels.index(field) if field in labels else 0,
        key=key.child("label_field").name,
    )
    mapping = with_.get("mapping") or {c: 1.0 for c in props[chosen]["enum"]}
    text = st.text_area(
        "Score of each label",
        value="\n".join(f"{k} = {v:g}" for k, v in mapping.items()),
        help="One per line: yes = 1",
        key=key.child("mapping").name,
        height=100,
    )
    try:
        mapping = read_widget(ParamWidget("mapping", "", "", "mapping", True), text) or {}
    except FormValueError as error:
        st.error(str(error))
    return {
        "use": "label_to_score",
        "with": {"mapping": mapping, "field": f"judge_output.{chosen}"},
    }
