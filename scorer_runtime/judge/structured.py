"""Structured judge output: the schema a step expects, how it is asked for, how answers are read.

A step's output schema is a pydantic model class or a JSON Schema dict. An answer must hold
exactly one JSON document, validated strictly. Read leniently (the default), the document may
sit in a markdown fence with words around it; read strictly (a judge that hardens its prompt),
the answer is the document alone or the document alone in one fence. Either way an answer
with a second JSON object (say a verdict copied from the judged text) is refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NoReturn

from pydantic import BaseModel, ValidationError

from scorer_runtime.errors import ScorerDefinitionError

OutputSchema = type[BaseModel] | Mapping[str, Any]

SCORE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"score": {"type": "number"}},
    "required": ["score"],
}
"""The default output schema of a prompt-mode generate_score step."""

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


class AnswerFormatError(ValueError):
    """The judge's answer is not JSON, or does not match the schema (the message says which)."""


@dataclass(frozen=True)
class StructuredOutput:
    """A step's expected answer shape: its JSON Schema and how to validate an answer."""

    source: OutputSchema

    @classmethod
    def of(cls, schema: OutputSchema) -> StructuredOutput:
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            return cls(schema)
        if isinstance(schema, Mapping):
            _check_json_schema(schema)
            return cls(schema)
        raise ScorerDefinitionError(
            "output_schema must be a pydantic model class or a JSON Schema dict, "
            f"not {type(schema).__name__}"
        )

    @cached_property
    def json_schema(self) -> dict[str, Any]:
        if isinstance(self.source, type):
            return self.source.model_json_schema()
        return dict(self.source)

    @cached_property
    def name(self) -> str:
        raw = self.source.__name__ if isinstance(self.source, type) else "judge_answer"
        title = self.json_schema.get("title") if not isinstance(self.source, type) else raw
        return re.sub(r"[^A-Za-z0-9_-]", "_", str(title or raw))[:64]

    @cached_property
    def _validator(self) -> Any:
        return _validator(self.json_schema)

    @cached_property
    def _fast_check(self) -> Callable[[Any], bool] | None:
        return None if isinstance(self.source, type) else simple_object_check(self.json_schema)

    def response_format(self) -> dict[str, Any]:
        """The provider-native ``response_format`` asking for this schema."""
        return {
            "type": "json_schema",
            "json_schema": {"name": self.name, "schema": self.json_schema},
        }

    def instruction(self) -> str:
        """Text that asks for JSON matching this schema (used when the schema is injected)."""
        return self._instruction

    @cached_property
    def _instruction(self) -> str:
        schema = json.dumps(self.json_schema, indent=2, ensure_ascii=False)
        return (
            "Answer only with a JSON value that matches this JSON Schema, "
            f"and nothing else:\n```json\n{schema}\n```"
        )

    @cached_property
    def schema_text(self) -> str:
        """The schema as canonical JSON text (sorted keys): what a cache key holds of it."""
        return json.dumps(self.json_schema, sort_keys=True, separators=(",", ":"))

    def parse(self, text: str, *, strict: bool = False) -> Any:
        """Read and validate an answer; raise :class:`AnswerFormatError` saying what is wrong.

        ``strict``: no words around the JSON document (see :func:`parse_json_answer`)."""
        value = parse_json_answer(text, strict=strict)
        if isinstance(self.source, type):
            try:
                return self.source.model_validate(value)
            except ValidationError as e:
                raise AnswerFormatError(_pydantic_problems(e)) from None
        fast = self._fast_check
        if fast is not None and fast(value):
            return value
        problems = self._validator.iter_errors(value)
        messages = sorted(_json_problem(p) for p in problems)
        if messages:
            raise AnswerFormatError(
                "the answer does not match the output schema: " + "; ".join(messages[:5])
            )
        return value


def parse_json_answer(text: str, *, strict: bool = False) -> Any:
    """The one JSON document of a judge's answer: the whole text, or its one fenced block.

    An answer with several JSON documents is refused (and so re-asked), never read as its
    first: judged text can carry a forged verdict in the scorer's own schema, which a judge
    may copy before its real answer. A fenced block is a habit of models asked for JSON, so
    an answer that is one fenced block and nothing else is that block, even when ``strict``;
    words around the block are accepted only when not ``strict`` (and only when they hold no
    other JSON object).
    """
    whole = text.strip()
    if not whole:
        _not_json(text)
    try:
        return json.loads(whole)
    except json.JSONDecodeError as error:
        if error.msg == "Extra data":
            _several(None)
    found: list[tuple[Any, re.Match[str]]] = []
    for match in _FENCE.finditer(text):
        try:
            found.append((json.loads(match.group(1).strip()), match))
        except json.JSONDecodeError:
            continue
    if len(found) > 1:
        _several(len(found))
    if not found:
        _not_json(text)
    value, match = found[0]
    around = text[: match.start()] + "\n" + text[match.end() :]
    if strict and around.strip():
        raise AnswerFormatError(
            "the answer has words around its JSON; the judge must answer with the JSON "
            f"document alone. It was: {whole[:200]}"
        )
    if _holds_an_object(around):
        _several(None)
    return value


def _holds_an_object(text: str) -> bool:
    """Whether ``text`` holds a JSON object (a ``{`` where one whole object starts)."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            decoder.raw_decode(text, start)
            return True
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
    return False


def _several(count: int | None) -> NoReturn:
    many = f"{count} JSON documents" if count else "more than one JSON document"
    raise AnswerFormatError(f"the answer holds {many}; the judge must give exactly one")


def _not_json(text: str) -> NoReturn:
    preview = text.strip()[:200] or "(an empty answer)"
    raise AnswerFormatError(f"the answer is not JSON; it was: {preview}")


_SIMPLE_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: type(v) is str,
    "number": lambda v: type(v) is int or type(v) is float,
    "integer": lambda v: type(v) is int,
    "boolean": lambda v: type(v) is bool,
}
_OBJECT_WORDS = {"type", "properties", "required", "additionalProperties", "title", "description"}
_PROPERTY_WORDS = {"type", "enum", "title", "description"}


def simple_object_check(schema: Mapping[str, Any]) -> Callable[[Any], bool] | None:
    """For the usual answer schema (an object of strings, numbers, integers and booleans, an
    enum of strings, required names, extra names allowed or not): a check that is True only
    for answers the full JSON Schema validator accepts, much faster than it. False means
    "ask the validator" (it says what is wrong). None: the schema is not one of these."""
    if set(schema) - _OBJECT_WORDS or schema.get("type") != "object":
        return None
    properties, required = schema.get("properties", {}), schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if not isinstance(properties, Mapping) or extra not in (True, False):
        return None
    if not isinstance(required, list) or not all(isinstance(n, str) for n in required):
        return None
    checks: dict[str, Callable[[Any], bool]] = {}
    for name, sub in properties.items():
        check = _property_check(sub)
        if check is None:
            return None
        checks[name] = check
    names = frozenset(checks)
    needed = tuple(required)
    closed = extra is False

    def fits(value: Any) -> bool:
        if type(value) is not dict or any(n not in value for n in needed):
            return False
        if closed and not names.issuperset(value):
            return False
        return all(c(value[n]) for n, c in checks.items() if n in value)

    return fits


def _property_check(sub: Any) -> Callable[[Any], bool] | None:
    if not isinstance(sub, Mapping) or set(sub) - _PROPERTY_WORDS:
        return None
    kind, enum = sub.get("type"), sub.get("enum")
    if kind is not None and (not isinstance(kind, str) or kind not in _SIMPLE_TYPES):
        return None
    fits = _SIMPLE_TYPES[kind] if kind is not None else None
    if enum is None:
        return fits
    if not isinstance(enum, list) or not all(type(e) is str for e in enum):
        return None
    allowed = frozenset(enum)
    return lambda v: type(v) is str and v in allowed and (fits is None or fits(v))


def _check_json_schema(schema: Mapping[str, Any]) -> None:
    from jsonschema.exceptions import SchemaError

    try:
        _validator(schema).check_schema(dict(schema))
    except SchemaError as e:
        raise ScorerDefinitionError(f"output_schema is not a valid JSON Schema: {e.message}") from e


def _validator(schema: Mapping[str, Any]) -> Any:
    # jsonschema is imported lazily: it costs ~0.1 s, and only prompt steps need it.
    from jsonschema.validators import validator_for

    cls = validator_for(schema)
    return cls(dict(schema))


def _json_problem(error: Any) -> str:
    where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
    return f"at {where}: {error.message}"


def _pydantic_problems(error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:5]:
        where = "/".join(str(p) for p in item["loc"]) or "(top level)"
        parts.append(f"at {where}: {item['msg']}")
    return "the answer does not match the output schema: " + "; ".join(parts)
