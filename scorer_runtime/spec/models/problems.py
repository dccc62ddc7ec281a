"""Problems found in a spec, each at a JSON path, and the one error that reports them all."""

from __future__ import annotations

import difflib
import json
import types
import typing
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from scorer_runtime.limits import MAX_PROBLEMS_SHOWN, more_words
from scorer_runtime.spec.models.base import TAGS


@dataclass(frozen=True, slots=True)
class SpecProblem:
    """One thing wrong with a spec: where (a JSON path such as ``steps[2].with.keywords``,
    ``""`` for the whole spec), what, and the line in the source text when known."""

    path: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = self.path or "(the spec)"
        line = f" (line {self.line})" if self.line is not None else ""
        return f"{where}{line}: {self.message}"


class SpecError(ValueError):
    """A spec cannot be loaded or compiled; ``problems`` lists every problem found at once."""

    def __init__(self, problems: Sequence[SpecProblem], *, source: str | None = None) -> None:
        self.problems = list(problems)
        self.source = source
        super().__init__(self._message())

    def _message(self) -> str:
        what = f"The scorer spec {self.source}" if self.source else "The scorer spec"
        count = len(self.problems)
        if count == 1:
            return f"{what} has a problem: {self.problems[0]}"
        shown = [f"  - {problem}" for problem in self.problems[:MAX_PROBLEMS_SHOWN]]
        if count > MAX_PROBLEMS_SHOWN:  # 10,000 bad steps make a list nobody reads
            shown.append(f"  … {more_words(count)}")
        listing = "\n".join(shown)
        return f"{what} has {count:,} problems:\n{listing}"


def json_path(loc: Iterable[int | str]) -> str:
    """A location as a JSON path: ``("steps", 2, "with", "a")`` -> ``steps[2].with.a``."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path = f"{path}.{part}" if path else str(part)
    return path


def validation_problems(error: ValidationError, model: type[BaseModel]) -> list[SpecProblem]:
    """Readable problems for a pydantic error raised while validating ``model``."""
    problems = []
    for item in error.errors(include_url=False):
        loc = [part for part in item["loc"] if part not in TAGS]
        problems.append(SpecProblem(json_path(loc), _message(item, model)))
    return _unique(problems)


def _message(item: Any, model: type[BaseModel]) -> str:
    kind = item["type"]
    loc = [part for part in item["loc"] if part not in TAGS]
    if kind == "extra_forbidden":
        return _unknown_field(str(loc[-1]) if loc else "", _model_at(model, item["loc"][:-1]))
    if kind == "missing":
        return "is required"
    message = str(item["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
    if kind == "literal_error" and isinstance(item.get("input"), str):
        expected = str(item.get("ctx", {}).get("expected", ""))
        choices = [part.strip(" '") for part in expected.replace(" or ", ",").split(",")]
        close = difflib.get_close_matches(item["input"], choices, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"{message} (got {_short(item['input'])}){hint}"
    if kind.endswith("_type") or kind.endswith("_parsing"):
        return f"{message} (got {_short(item['input'])})"
    return message


def _unknown_field(name: str, model: type[BaseModel] | None) -> str:
    if name == "api_key":
        return (
            "a spec never holds an API key; set api_key_env to the NAME of the environment "
            "variable that holds it (e.g. OPENAI_API_KEY)"
        )
    if model is None:
        return "is not a known field here"
    if name in _KIND_KEYS and _KIND_KEYS & set(model.model_fields):
        return (
            "a step has only one of use (a built-in), formula or template (ask the judge); "
            f"remove {name!r} or the other one"
        )
    known = [f.alias or n for n, f in model.model_fields.items()]
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return f"is not a known field here.{hint} Known fields: {', '.join(known)}"


_KIND_KEYS = frozenset({"use", "formula", "template"})


def _model_at(root: type[BaseModel], loc: Sequence[int | str]) -> type[BaseModel] | None:
    """The model class an error location points into (tags pick the union member)."""
    from scorer_runtime.spec.models import tagged_models

    current: type[BaseModel] | None = root
    for part in loc:
        if isinstance(part, str) and part in TAGS:
            current = tagged_models().get(part)
        elif isinstance(part, str) and current is not None:
            field = _field(current, part)
            current = _single_model(field.annotation) if field is not None else None
    return current


def _field(model: type[BaseModel], name: str) -> Any:
    for field_name, field in model.model_fields.items():
        if name in (field_name, field.alias):
            return field
    return None


def _single_model(annotation: Any) -> type[BaseModel] | None:
    """The one model class inside ``X | None`` / ``list[X]``; None for unions of models."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _single_model(typing.get_args(annotation)[0])
    if origin in (list, typing.Union, types.UnionType):
        found = {m for a in typing.get_args(annotation) if (m := _single_model(a)) is not None}
        return found.pop() if len(found) == 1 else None
    return None


def _short(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def _unique(problems: Iterable[SpecProblem]) -> list[SpecProblem]:
    return list(dict.fromkeys(problems))


class LineFinder(Protocol):
    """What gives a JSON path its line in the source text."""

    def line_of(self, path: str) -> int | None:
        """The line of ``path`` (its nearest parent's when it is missing), None if unknown."""
        ...


def add_lines(problems: Sequence[SpecProblem], lines: LineFinder | None) -> list[SpecProblem]:
    """``problems`` with the line of their path in the source text filled in."""
    if lines is None or not problems:
        return list(problems)
    return [
        problem
        if problem.line is not None
        else SpecProblem(problem.path, problem.message, lines.line_of(problem.path))
        for problem in problems
    ]
