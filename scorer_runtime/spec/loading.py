"""Loading specs from JSON, YAML, files or dicts, reporting every problem at once.

Problems come in two layers, and both are reported together: the shape (pydantic: types,
required and unknown fields) and the meaning (unknown built-ins, invalid parameters, formula
and template errors, step order, missing judge settings). Each problem carries a JSON path
(``steps[2].with.keywords``) and, for text sources, the line it is on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from scorer_runtime.spec.models import (
    JudgeSpec,
    ScorerSpec,
    SpecError,
    SpecProblem,
)
from scorer_runtime.spec.models.checks import meaning_problems
from scorer_runtime.spec.models.problems import add_lines, validation_problems

if TYPE_CHECKING:
    from scorer_runtime.spec.registry import StepRegistry

SpecSource = ScorerSpec | Mapping[str, Any] | str | Path
"""What :func:`load_spec` reads: a spec, a dict, JSON or YAML text, or a file path."""


def load_spec(
    source: SpecSource,
    *,
    registry: StepRegistry | None = None,
    judge_profiles: Mapping[str, JudgeSpec] | None = None,
) -> ScorerSpec:
    """Read and check a spec; raise :class:`SpecError` listing every problem found.

    ``source`` is a :class:`ScorerSpec`, a dict, JSON or YAML text, or the path of a
    ``.json``/``.yaml`` file. Built-in names and parameters are checked against ``registry``
    (default: :func:`~scorer_runtime.spec.default_registry`); judge profile names against
    ``judge_profiles`` when given.
    """
    data, text, origin = read_source(source)
    spec, problems = _check(data, registry, judge_profiles)
    if problems or spec is None:
        raise SpecError(add_lines(problems, text), source=origin)
    return spec


def spec_problems(
    source: SpecSource,
    *,
    registry: StepRegistry | None = None,
    judge_profiles: Mapping[str, JudgeSpec] | None = None,
) -> list[SpecProblem]:
    """Every problem of a spec, ``[]`` when it is fine (for forms that show them all)."""
    try:
        data, text, _ = read_source(source)
    except SpecError as error:
        return error.problems
    return add_lines(_check(data, registry, judge_profiles)[1], text)


def read_source(source: SpecSource) -> tuple[Any, str | None, str | None]:
    """Parse ``source`` into plain data; also return the text (for line numbers) and a name."""
    if isinstance(source, ScorerSpec):
        return source, None, None
    if isinstance(source, Mapping):
        return dict(source), None, None
    # Only a Path is read from disk: text is always spec text, so text from a person (an
    # upload, a form) can never make the loader read a file on the server.
    if isinstance(source, Path):
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            problem = f"cannot read the file: {error.strerror or error}"
            raise SpecError([SpecProblem("", problem)], source=path.name) from None
        return parse_text(text, source=path.name), text, path.name
    if isinstance(source, str):
        return parse_text(source), source, None
    raise SpecError(
        [SpecProblem("", f"expected a spec, a dict, text or a path, not {type(source).__name__}")]
    )


def parse_text(text: str, *, source: str | None = None) -> Any:
    """JSON or YAML text as plain data; :class:`SpecError` with the line on a syntax error."""
    if text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            problem = SpecProblem("", f"not valid JSON: {error.msg}", error.lineno)
            raise SpecError([problem], source=source) from None
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        what = getattr(error, "problem", None) or str(error)
        raise SpecError([SpecProblem("", f"not valid YAML: {what}", line)], source=source) from None


def _check(
    data: Any,
    registry: StepRegistry | None,
    profiles: Mapping[str, JudgeSpec] | None,
) -> tuple[ScorerSpec | None, list[SpecProblem]]:
    if registry is None:
        from scorer_runtime.spec.registry import default_registry

        registry = default_registry()
    if isinstance(data, ScorerSpec):
        return data, meaning_problems(data, data.model_dump(by_alias=True), registry, profiles)
    if not isinstance(data, Mapping):
        return None, [SpecProblem("", _not_an_object(data))]
    spec: ScorerSpec | None = None
    problems: list[SpecProblem] = []
    try:
        spec = ScorerSpec.model_validate(data)
    except ValidationError as error:
        problems = validation_problems(error, ScorerSpec)
    problems += meaning_problems(spec, data, registry, profiles)
    return (spec if not problems else None), _unique(problems)


def _not_an_object(data: Any) -> str:
    message = "a spec is an object with id, description and steps; got "
    if isinstance(data, str):
        # A lone word is what YAML makes of a file name passed as text.
        return message + (
            f"the text {data[:60]!r} (to load a file, pass a pathlib.Path, not its name as text)"
        )
    return message + ("nothing" if data is None else type(data).__name__)


def _unique(problems: list[SpecProblem]) -> list[SpecProblem]:
    return list(dict.fromkeys(problems))
