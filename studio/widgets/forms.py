"""Streamlit-free mapping between the studio's widget values and scorer specs.

Everything here is plain Python so it is unit-tested without a browser: which widget a
built-in's parameter gets, how typed text becomes parameter values, how the output-fields
builder becomes a JSON Schema, and a retry policy as form values and in words.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from scorer_runtime.spec import RetryPolicySpec

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
            )
        )
    return sorted(widgets, key=lambda w: not w.required)


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
        return _read_mapping(widget.name, str(raw))
    if widget.kind == "json":
        try:
            return json.loads(raw)
        except json.JSONDecodeError as e:
            raise FormValueError(widget.name, f"this is not valid JSON ({e.msg})") from None
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
_JSON_TYPE = {"text": "string", "number": "number", "whole number": "integer", "yes/no": "boolean"}
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


def answer_schema_from_rows(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The JSON Schema of the rows of the answer-fields editor; raises FormValueError when
    a row cannot be used.

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
            return name  # type: ignore[return-value]
    return None


# -- retry policy in words -------------------------------------------------------------------


def describe_retry(policy: Mapping[str, Any] | None) -> str:
    """A retry policy (spec dict) in plain words, e.g. "Up to 3 attempts; waits 1 s, then 2 s;
    honours Retry-After up to 30 s."."""
    if policy is None:
        return "No retries: a failed judge request fails the step at once."
    retries = int(policy.get("max_retries", 2))
    if retries == 0:
        return "No retries: a failed judge request fails the step at once."
    waits = _waits(policy.get("delay", {}), retries)
    cap = int(policy.get("max_retry_after_ms", 30_000))
    parts = [f"Up to {retries + 1} attempts per judge request"]
    if any(waits):
        parts.append("waits " + ", then ".join(_seconds(w) for w in waits))
    else:
        parts.append("retries at once")
    parts.append(f"honours Retry-After up to {_seconds(cap)}")
    extra = [str(s) for s in policy.get("retry_on_status", [])]
    extra += [f"“{t}”" for t in policy.get("retry_on_text", [])]
    if extra:
        parts.append("also retries " + ", ".join(extra))
    if policy.get("retry_unknown_errors"):
        parts.append("also retries unknown errors (never a bad key)")
    return "; ".join(parts) + "."


def _waits(delay: Any, retries: int) -> list[float]:
    if isinstance(delay, int | float):
        return [float(delay)] * retries
    initial = float(delay.get("initial_ms", 1000))
    factor = float(delay.get("factor", 2.0))
    cap = float(delay.get("max_ms", 30_000))
    return [min(initial * factor**n, cap) for n in range(retries)]


def _seconds(ms: float) -> str:
    seconds = ms / 1000
    return f"{seconds:g} s" if seconds >= 1 or seconds == 0 else f"{ms:g} ms"


# -- retry policy: form values <-> spec ------------------------------------------------------


@dataclass
class RetryForm:
    """A retry policy as its form asks for it: waits in seconds, the extras as text."""

    max_retries: int = 2
    growing: bool = True
    """Wait longer after each failure (exponential) rather than the same time."""
    first_wait_s: float = 1.0
    factor: float = 2.0
    longest_wait_s: float = 30.0
    retry_after_cap_s: float = 30.0
    extra_statuses: str = ""
    """Extra HTTP status codes to retry, separated by commas: "529, 520"."""
    extra_texts: str = ""
    """Retry errors whose message contains one of these texts, one per line."""
    retry_unknown: bool = False


class RetryFormError(ValueError):
    """A retry form (or a stored policy) that cannot be used; ``problems`` says, in plain
    words, what is wrong with each value and how to write it."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def retry_policy(form: RetryForm) -> dict[str, Any]:
    """The spec dict of a retry form (as ``describe_retry``, judges and scorers take it), with
    default values left out; raises RetryFormError when a value cannot be used."""
    statuses = [s for s in re.split(r"[\s,;]+", form.extra_statuses) if s]
    bad = [s for s in statuses if not s.isdigit() or not 100 <= int(s) <= 599]
    if bad:
        raise RetryFormError(
            [f"Retries: {', '.join(bad)} is not an HTTP status code (a number like 529)"]
        )
    delay: Any = (
        {
            "initial_ms": _ms(form.first_wait_s),
            "factor": form.factor,
            "max_ms": _ms(form.longest_wait_s),
        }
        if form.growing
        else _ms(form.first_wait_s)
    )
    data = {
        "max_retries": form.max_retries,
        "delay": delay,
        "max_retry_after_ms": _ms(form.retry_after_cap_s),
        "retry_unknown_errors": form.retry_unknown,
        "retry_on_status": [int(s) for s in statuses],
        "retry_on_text": [t.strip() for t in form.extra_texts.splitlines() if t.strip()],
    }
    return _policy_spec(data).model_dump(exclude_defaults=True, mode="json")


def retry_form(policy: Mapping[str, Any] | None) -> RetryForm | None:
    """The form of a spec's retry policy (None: no retries); raises RetryFormError when the
    policy is not a valid one (e.g. hand-edited in a file)."""
    if policy is None:
        return None
    spec = _policy_spec(policy)
    delay = spec.delay
    return RetryForm(
        max_retries=spec.max_retries,
        growing=not isinstance(delay, int),
        first_wait_s=(delay / 1000 if isinstance(delay, int) else delay.initial_ms / 1000),
        factor=2.0 if isinstance(delay, int) else delay.factor,
        longest_wait_s=30.0 if isinstance(delay, int) else delay.max_ms / 1000,
        retry_after_cap_s=spec.max_retry_after_ms / 1000,
        extra_statuses=", ".join(str(s) for s in spec.retry_on_status),
        extra_texts="\n".join(spec.retry_on_text),
        retry_unknown=spec.retry_unknown_errors,
    )


_RETRY_LABELS = {
    "max_retries": "retries",
    "initial_ms": "first wait",
    "factor": "multiply the wait by",
    "max_ms": "longest wait",
    "max_retry_after_ms": "longest wait to honour from the provider",
    "retry_on_status": "status codes",
    "retry_on_text": "message texts",
}


def _policy_spec(data: Mapping[str, Any]) -> RetryPolicySpec:
    try:
        return RetryPolicySpec.model_validate(data)
    except ValidationError as e:
        raise RetryFormError([_retry_problem(err) for err in e.errors()]) from None


def _retry_problem(error: Mapping[str, Any]) -> str:
    labels = [_RETRY_LABELS[str(part)] for part in error.get("loc", ()) if part in _RETRY_LABELS]
    message = str(error.get("msg", "is not valid")).removeprefix("Value error, ")
    return f"Retries: {labels[-1]}: {message}" if labels else f"Retries: {message}"
