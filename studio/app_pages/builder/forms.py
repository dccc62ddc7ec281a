"""The builder's forms as plain values (Streamlit-free, unit-tested without a browser).

Which widget a built-in step's parameter gets, how typed text becomes parameter values, and how
the answer-fields editor ("What the judge answers") becomes a JSON Schema and back. Only the
Scorer builder uses them; the retry form it shares with Judges is in
:mod:`studio.widgets.forms`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from scorer_runtime.spec.builtins.base import READS_FIELD

WidgetKind = Literal[
    "text", "textarea", "number", "integer", "checkbox", "select", "lines", "mapping", "json"
]


# -- parameters of built-in steps ------------------------------------------------------------


@dataclass(frozen=True)
class ParamWidget:
    """How one parameter of a built-in step is asked for."""

    name: str
    label: str
    help: str
    kind: WidgetKind
    required: bool
    default: Any = None
    options: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    reads: str = ""
    """What a parameter naming a value to read reads (``any``, ``label``, ``number``); ``""``
    for the others. The builder offers the values that exist as choices."""


def _non_null(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """``X`` for an optional ``anyOf: [X, null]``; the schema itself otherwise."""
    options = [s for s in schema.get("anyOf", []) if s.get("type") != "null"]
    return options[0] if len(options) == 1 else schema


def _kind(schema: Mapping[str, Any]) -> WidgetKind:
    inner = _non_null(schema)
    kind = inner.get("type")
    if "enum" in inner:
        return "select"
    if kind == "boolean":
        return "checkbox"
    if kind == "integer":
        return "integer"
    if kind == "number":
        return "number"
    if kind == "string":
        return "textarea" if inner.get("maxLength", 0) > 500 else "text"
    if kind == "array" and inner.get("items", {}).get("type") == "string":
        return "lines"
    if kind == "object" and inner.get("additionalProperties", {}).get("type") == "number":
        return "mapping"
    return "json"


def param_widgets(schema: Mapping[str, Any]) -> list[ParamWidget]:
    """The widgets for a built-in's parameter schema, required parameters first."""
    required = set(schema.get("required", []))
    widgets = []
    for name, prop in schema.get("properties", {}).items():
        inner = _non_null(prop)
        widgets.append(
            ParamWidget(
                name=name,
                label=str(prop.get("title") or name.replace("_", " ").capitalize()),
                help=str(prop.get("description", "")),
                kind=_kind(prop),
                required=name in required,
                default=prop.get("default"),
                options=tuple(str(o) for o in inner.get("enum", ())),
                minimum=inner.get("minimum", inner.get("exclusiveMinimum")),
                maximum=inner.get("maximum", inner.get("exclusiveMaximum")),
                reads=str(inner.get(READS_FIELD) or ""),
            )
        )
    # What to read first (a label's scores depend on it), then the required ones.
    return sorted(widgets, key=lambda w: (not w.reads, not w.required))


class FormValueError(ValueError):
    """What the person typed cannot be read; the message says how to write it."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name


def widget_text(widget: ParamWidget, value: Any) -> Any:
    """The value a text-based widget shows for a parameter value (the inverse of reading)."""
    if value is None:
        return "" if widget.kind in ("text", "textarea", "lines", "mapping", "json") else value
    if widget.kind == "lines":
        return "\n".join(str(v) for v in value)
    if widget.kind == "mapping":
        return "\n".join(f"{k} = {_number_text(v)}" for k, v in value.items())
    if widget.kind == "json":
        return json.dumps(value, indent=2, ensure_ascii=False)
    return value


def _number_text(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def read_widget(widget: ParamWidget, raw: Any) -> Any:
    """A parameter value from what a widget holds; ``None`` means "leave it out"."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if widget.kind == "lines":
        return [line.strip() for line in str(raw).splitlines() if line.strip()]
    if widget.kind == "mapping":
        if isinstance(raw, Mapping):  # the label-by-label editor gives the scores
            return dict(raw) or None
        return _read_mapping(widget.label, str(raw))
    if widget.kind == "json":
        try:
            return json.loads(raw)
        except json.JSONDecodeError as e:
            raise FormValueError(widget.label, f"this is not valid JSON ({e.msg})") from None
    if widget.kind == "integer":
        return int(raw)
    if widget.kind == "number":
        return float(raw)
    return raw


def _read_mapping(name: str, text: str) -> dict[str, float]:
    mapping: dict[str, float] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        label, sep, value = line.rpartition("=")
        try:
            score = float(value)
        except ValueError:
            score = math.nan
        if not sep or not label.strip() or math.isnan(score):
            raise FormValueError(
                name, f"line {number} should look like 'yes = 1' (a label, '=', a number)"
            )
        mapping[label.strip()] = score
    return mapping


def params_from_widgets(widgets: Sequence[ParamWidget], raw: Mapping[str, Any]) -> dict[str, Any]:
    """The ``with`` parameters from widget values: empty and default values are left out."""
    params: dict[str, Any] = {}
    for widget in widgets:
        value = read_widget(widget, raw.get(widget.name))
        if value is None or (value == widget.default and not widget.required):
            continue
        params[widget.name] = value
    return params


# -- the judge's answer: fields <-> JSON Schema ----------------------------------------------

FieldKind = Literal["text", "number", "whole number", "yes/no", "one of", "list of text"]
FIELD_KINDS: tuple[FieldKind, ...] = (
    "text",
    "number",
    "whole number",
    "yes/no",
    "one of",
    "list of text",
)
_JSON_TYPE: dict[FieldKind, str] = {
    "text": "string",
    "number": "number",
    "whole number": "integer",
    "yes/no": "boolean",
}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class OutputField:
    """One field of the judge's answer, as the output-fields builder shows it."""

    name: str
    kind: FieldKind = "text"
    description: str = ""
    choices: list[str] = field(default_factory=list)
    required: bool = True


def fields_to_schema(fields: Sequence[OutputField]) -> dict[str, Any]:
    """The JSON Schema of an answer made of these fields."""
    properties: dict[str, Any] = {}
    for f in fields:
        if not _NAME.match(f.name):
            raise FormValueError(
                f.name or "(no name)",
                "a field name uses letters, digits and _ and starts with a letter",
            )
        if f.kind == "one of":
            if not f.choices:
                raise FormValueError(f.name, "list the choices the judge may answer")
            prop: dict[str, Any] = {"type": "string", "enum": list(f.choices)}
        elif f.kind == "list of text":
            prop = {"type": "array", "items": {"type": "string"}}
        else:
            prop = {"type": _JSON_TYPE[f.kind]}
        if f.description:
            prop["description"] = f.description
        properties[f.name] = prop
    if not properties:
        raise FormValueError("fields", "add at least one field the judge should answer")
    return {
        "type": "object",
        "properties": properties,
        "required": [f.name for f in fields if f.required],
    }


def answer_schema_from_rows(rows: Sequence[Mapping[Any, Any]]) -> dict[str, Any]:
    """The JSON Schema of the rows of the answer-fields editor; raises FormValueError when
    a row cannot be used. (Rows are ``DataFrame.to_dict("records")``, whose keys pandas types
    as any hashable, hence ``Mapping[Any, Any]``.)

    Any edit order works: a cell not filled in yet (NaN or None from the editor) is blank,
    a row without a kind is "text", one without a Required tick is required, and a row
    without a name is left out.
    """
    fields = []
    for row in rows:
        name = str(_cell(row.get("name")) or "").strip()
        if not name:
            continue
        kind = _cell(row.get("kind"))
        required = _cell(row.get("required"))
        fields.append(
            OutputField(
                name=name,
                kind=kind if kind in FIELD_KINDS else "text",
                description=str(_cell(row.get("description")) or "").strip(),
                choices=[
                    c.strip() for c in str(_cell(row.get("choices")) or "").split(",") if c.strip()
                ],
                required=True if required is None else bool(required),
            )
        )
    return fields_to_schema(fields)


def unnamed_rows(rows: Sequence[Mapping[Any, Any]]) -> list[int]:
    """The rows (numbered from 1) of the answer-fields editor that have no name yet."""
    return [i for i, row in enumerate(rows, 1) if not str(_cell(row.get("name")) or "").strip()]


def _cell(value: Any) -> Any:
    """A table cell's value; None for an empty one (None, NaN, pandas' NA)."""
    if value is None:
        return None
    try:
        return None if value != value else value  # only NaN differs from itself
    except TypeError:  # pandas.NA refuses to be compared
        return None


def schema_to_fields(schema: Mapping[str, Any] | None) -> list[OutputField] | None:
    """The builder's fields for a schema, or None when the schema is beyond the builder."""
    if not schema:
        return []
    if schema.get("type") != "object" or set(schema) - {
        "type",
        "properties",
        "required",
        "title",
        "description",
    }:
        return None
    required = set(schema.get("required", []))
    fields = []
    for name, prop in schema.get("properties", {}).items():
        kind = _field_kind(prop)
        if kind is None:
            return None
        fields.append(
            OutputField(
                name=name,
                kind=kind,
                description=str(prop.get("description", "")),
                choices=[str(c) for c in prop.get("enum", [])],
                required=name in required,
            )
        )
    return fields


def _field_kind(prop: Mapping[str, Any]) -> FieldKind | None:
    if set(prop) - {"type", "description", "enum", "items", "title"}:
        return None
    kind = prop.get("type")
    if kind == "string" and "enum" in prop:
        return "one of"
    if kind == "array":
        return "list of text" if prop.get("items") == {"type": "string"} else None
    for name, json_type in _JSON_TYPE.items():
        if kind == json_type and "enum" not in prop:
            return name
    return None
