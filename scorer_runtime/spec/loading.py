"""Loading specs from JSON, YAML, files or dicts, reporting every problem at once.

Problems come in two layers, and both are reported together: the shape (pydantic: types,
required and unknown fields) and the meaning (unknown built-ins, invalid parameters, formula
and template errors, step order, missing judge settings). Each problem carries a JSON path
(``steps[2].with.keywords``) and, for text sources, the line it is on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from scorer_runtime.input_files import UnreadableFile, read_limited
from scorer_runtime.input_text import NotText, decode_input
from scorer_runtime.limits import MAX_SPEC_FILE_BYTES
from scorer_runtime.spec.models import (
    JudgeSpec,
    ScorerSpec,
    SpecError,
    SpecProblem,
)
from scorer_runtime.spec.models.checks import meaning_problems
from scorer_runtime.spec.models.problems import add_lines, validation_problems
from scorer_runtime.spec.spec_text import SpecText, parse_spec_text, text_problems

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
    data, read, origin = read_source(source)
    spec, problems = _check(data, registry, judge_profiles)
    if problems or spec is None:
        raise SpecError(add_lines(problems, read), source=origin)
    return spec


def spec_problems(
    source: SpecSource,
    *,
    registry: StepRegistry | None = None,
    judge_profiles: Mapping[str, JudgeSpec] | None = None,
) -> list[SpecProblem]:
    """Every problem of a spec, ``[]`` when it is fine (for forms that show them all)."""
    try:
        data, read, _ = read_source(source)
    except SpecError as error:
        return error.problems
    return add_lines(_check(data, registry, judge_profiles)[1], read)


def read_source(source: SpecSource) -> tuple[Any, SpecText | None, str | None]:
    """Parse ``source`` into plain data; also return the text read (for line numbers) and a
    name. Text is checked before anything else is done with it: its size, its nesting, and
    (YAML) anchors and aliases, so a hostile file is refused before it can expand."""
    if isinstance(source, ScorerSpec):
        return source, None, None
    if isinstance(source, Mapping):
        return dict(source), None, None
    # Only a Path is read from disk: text is always spec text, so text from a person (an
    # upload, a form) can never make the loader read a file on the server.
    if isinstance(source, Path):
        path = Path(source)
        data, read = parse_spec_text(_read_file(path), source=path.name)
        return data, read, path.name
    if isinstance(source, str):
        data, read = parse_spec_text(source)
        return data, read, None
    raise SpecError(
        [SpecProblem("", f"expected a spec, a dict, text or a path, not {type(source).__name__}")]
    )


def _read_file(path: Path) -> str:
    """The file's text; SpecError when it cannot be read, is not text or is over the size
    limit (checked before reading, so a huge file is never loaded)."""
    try:
        return decode_input(read_limited(path, limit=MAX_SPEC_FILE_BYTES, what="scorer file"))
    except UnreadableFile as error:
        raise SpecError([SpecProblem("", error.words)], source=path.name) from None
    except OSError as error:
        problem = f"cannot read the file: {error.strerror or error}"
        raise SpecError([SpecProblem("", problem)], source=path.name) from None
    except NotText as error:
        raise SpecError([SpecProblem("", error.words, error.line)], source=path.name) from None


def parse_text(text: str, *, source: str | None = None) -> Any:
    """JSON or YAML text as plain data; :class:`SpecError` with the line when it cannot or
    must not be read (see :func:`~scorer_runtime.spec.spec_text.parse_spec_text`)."""
    return parse_spec_text(text, source=source)[0]


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
    too_long = text_problems(data)
    if too_long:  # nothing is compiled from text over its cap (a 10 MB template, say)
        return None, too_long
    spec: ScorerSpec | None = None
    problems: list[SpecProblem] = []
    try:
        spec = ScorerSpec.model_validate(data)
    except ValidationError as error:
        problems = validation_problems(error, ScorerSpec)
    problems += meaning_problems(spec, data, registry, profiles)
    return (spec if not problems else None), _unique(problems)


_FILE_NAME = re.compile(r"[\w.~-]*[/\\][\w./\\~-]*|[\w.~-]+\.(json|ya?ml)", re.IGNORECASE)
"""A lone path or file name (``data/scorers/tone``, ``kw.json``): what a program passed as
text when it meant a file."""


def _not_an_object(data: Any) -> str:
    """Why ``data`` is no spec, quoting none of it (a file may be anything, /etc/passwd)."""
    message = "a spec is an object with id, description and steps; "
    if isinstance(data, str) and _FILE_NAME.fullmatch(data):
        # What YAML makes of a file name given as text (to load_spec in a program, or as
        # the whole of an upload): only a lone file name gets here, never a file's text.
        return message + f"got the text {data!r}, a file's name rather than a scorer: give the file"
    if isinstance(data, str):
        return message + "this holds plain text instead: choose a scorer file (JSON or YAML)"
    kind = "nothing" if data is None else _KINDS.get(type(data), "a single value")
    return message + f"this holds {kind} instead: choose a scorer file (JSON or YAML)"


_KINDS: dict[type, str] = {list: "a list", int: "a number", float: "a number", bool: "true/false"}


def _unique(problems: list[SpecProblem]) -> list[SpecProblem]:
    return list(dict.fromkeys(problems))
