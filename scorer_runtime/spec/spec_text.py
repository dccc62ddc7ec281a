"""Spec text (JSON or YAML) read as plain data, safely: nothing expands, recurses or grows
before it is checked.

YAML is read from the parser's event stream (which holds no recursion) and built into data
in one pass that refuses, with their line, what a spec never needs and an attacker uses:
anchors and aliases (a 700-byte file of nested aliases expands to billions of items), tags,
nesting deeper than :data:`~scorer_runtime.limits.MAX_NESTING`, more than
:data:`~scorer_runtime.limits.MAX_SPEC_VALUES` values, and keys named twice. JSON goes
through :func:`scorer_runtime.safe_json.loads`. The same walk gives the line of every JSON
path, for problem messages. Text fields over their cap are refused by :func:`text_problems`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NoReturn

from scorer_runtime import safe_json
from scorer_runtime.limits import (
    MAX_NESTING,
    MAX_SPEC_FILE_BYTES,
    MAX_SPEC_OTHER_TEXT_BYTES,
    MAX_SPEC_STEPS,
    MAX_SPEC_VALUES,
    SPEC_TEXT_LIMITS,
    size_words,
)
from scorer_runtime.spec.models import SpecError, SpecProblem
from scorer_runtime.spec.yaml_scalars import STANDARD_TAG, ScalarRefused, scalar_value

_PLAIN_TAGS = frozenset(
    STANDARD_TAG + name for name in ("str", "int", "float", "bool", "null", "map", "seq")
)
"""The explicit tags a spec may carry (``!!str 1``); ``!!python/…`` and the like are refused."""
_PART = re.compile(r"\[(\d+)\]|([^.\[\]]+)")
_KEY_MESSAGE = "a key must be a plain word or text, not a list or object"


@dataclass
class SpecText:
    """Spec text and what reading it found: the data, and the line of each JSON path."""

    text: str
    source: str | None = None
    _lines: dict[str, int] | None = field(default=None, repr=False)

    @cached_property
    def lines(self) -> dict[str, int]:
        """The line of each JSON path in the text (empty when the text cannot be walked)."""
        if self._lines is not None:
            return self._lines
        try:
            return _Walk(self.text).run()[1]
        except SpecError:
            return {}

    def line_of(self, path: str) -> int | None:
        """The line of the deepest node along ``path`` (a missing key: its parent's line)."""
        lines = self.lines
        if not lines:
            return None
        parts: list[str] = []
        prefix = ""
        for index, key in _PART.findall(path):
            prefix = f"{prefix}[{index}]" if index else (f"{prefix}.{key}" if prefix else key)
            parts.append(prefix)
        for candidate in reversed(parts):
            if candidate in lines:
                return lines[candidate]
        return lines.get("")


def parse_spec_text(text: str, *, source: str | None = None) -> tuple[Any, SpecText]:
    """JSON or YAML spec text as plain data; :class:`SpecError` (with the line) when the text
    is too large, not valid, or holds what a spec must not (aliases, deep nesting, keys
    named twice)."""
    size = len(text.encode("utf-8"))
    if size > MAX_SPEC_FILE_BYTES:
        limit = size_words(MAX_SPEC_FILE_BYTES)
        problem = f"the file is {size_words(size)}; the limit for a scorer file is {limit}"
        raise SpecError([SpecProblem("", problem)], source=source)
    read = SpecText(text, source)
    if text.lstrip().startswith("{"):
        return _parse_json(read), read
    data, lines, problems = _Walk(text, source).run()
    if problems:
        raise SpecError(problems, source=source)
    read._lines = lines
    return data, read


def _parse_json(read: SpecText) -> Any:
    import json

    try:
        return safe_json.loads(read.text, unique_keys=True)
    except safe_json.DuplicateKeyError:
        problems = _Walk(read.text, read.source).duplicates()
        if not problems:  # the walk could not place it: say so without a line
            problems = [SpecProblem("", "an object names the same key twice; keep one")]
        raise SpecError(problems, source=read.source) from None
    except safe_json.JsonLimitError as error:
        raise SpecError([SpecProblem("", error.message, error.line)], source=read.source) from None
    except json.JSONDecodeError as error:
        problem = SpecProblem("", f"not valid JSON: {error.msg}", error.lineno)
        raise SpecError([problem], source=read.source) from None


class _Walk:
    """One pass over the YAML events of ``text``: the data, the lines, the duplicate keys.

    JSON is (nearly) YAML, so the same walk gives JSON text its lines.
    """

    def __init__(self, text: str, source: str | None = None) -> None:
        self.text = text
        self.source = source
        self.lines: dict[str, int] = {}
        self.problems: list[SpecProblem] = []
        self.documents = self.values = 0

    def duplicates(self) -> list[SpecProblem]:
        """The keys named twice (empty when the text cannot be walked)."""
        try:
            return self.run()[2]
        except SpecError:
            return []

    def run(self) -> tuple[Any, dict[str, int], list[SpecProblem]]:
        """(data, lines, duplicate-key problems); SpecError for anything refused outright."""
        import yaml

        try:
            root = self._build(self._events())
        except yaml.MarkedYAMLError as error:
            mark = error.problem_mark
            line = mark.line + 1 if mark is not None else None
            what = error.problem or str(error)
            if "nesting depth" in what:  # libyaml's own cap, met before ours in flow style
                self._refuse(safe_json.too_deep_message(MAX_NESTING), line)
            self._refuse(f"not valid YAML: {what}", line)
        except yaml.YAMLError as error:
            self._refuse(f"not valid YAML: {error}", None)
        return root, self.lines, self.problems

    def _events(self) -> Iterator[Any]:
        import yaml

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        return iter(yaml.parse(self.text, Loader=loader))

    def _refuse(self, message: str, line: int | None) -> NoReturn:
        raise SpecError([SpecProblem("", message, line)], source=self.source)

    def _build(self, events: Iterator[Any]) -> Any:
        from yaml import events as ev

        stack: list[_Frame] = []
        root: Any = None
        for event in events:
            if isinstance(event, ev.DocumentStartEvent | ev.NodeEvent):
                self._check_event(event)
            if isinstance(event, ev.CollectionStartEvent):
                stack.append(self._open(event, stack))
                continue
            if isinstance(event, ev.ScalarEvent):
                value, line = self._scalar(event), _line(event)
            elif isinstance(event, ev.CollectionEndEvent):
                done = stack.pop()
                value, line = done.value, done.line
            else:
                continue
            if stack:
                self._add(stack[-1], value, line)
            else:
                root = value
        return root

    def _scalar(self, event: Any) -> Any:
        try:
            return scalar_value(event)
        except ScalarRefused as refused:
            self._refuse(str(refused), _line(event))

    def _open(self, event: Any, stack: list[_Frame]) -> _Frame:
        """The frame of a list or object that starts, once its depth and place are fine."""
        from yaml import events as ev

        if len(stack) >= MAX_NESTING:
            self._refuse(safe_json.too_deep_message(MAX_NESTING), _line(event))
        if stack and stack[-1].awaiting_key:
            self._refuse(_KEY_MESSAGE, _line(event))
        path = stack[-1].child_path() if stack else ""
        mapping = isinstance(event, ev.MappingStartEvent)
        return _Frame({} if mapping else [], path, _line(event))

    def _check_event(self, event: Any) -> None:
        """Refuse a second document, too many values, aliases, anchors and odd tags."""
        from yaml import events as ev

        if isinstance(event, ev.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                self._refuse(
                    "the file holds more than one YAML document (a second ---); "
                    "a scorer file holds one scorer",
                    _line(event),
                )
            return
        self.lines.setdefault("", _line(event))  # the whole spec: where it starts
        self.values += 1
        if self.values > MAX_SPEC_VALUES:
            self._refuse(
                f"the file holds more than {MAX_SPEC_VALUES:,} values (the limit); "
                "a scorer spec needs far fewer",
                _line(event),
            )
        if isinstance(event, ev.AliasEvent):
            self._refuse(
                f"uses the YAML alias *{event.anchor}; a scorer file never needs anchors or "
                "aliases: write the value out in full",
                _line(event),
            )
        if event.anchor is not None:
            self._refuse(
                f"defines the YAML anchor &{event.anchor}; a scorer file never needs anchors "
                "or aliases: remove it and write values out in full",
                _line(event),
            )
        tag = event.tag
        if tag not in (None, "!") and tag not in _PLAIN_TAGS:
            self._refuse(f"uses the YAML tag {tag}; a scorer file holds plain data", _line(event))

    def _add(self, frame: _Frame, value: Any, line: int) -> None:
        container = frame.value
        if isinstance(container, list):
            self.lines[frame.child_path()] = line
            container.append(value)
            return
        if frame.awaiting_key:
            try:
                hash(value)
            except TypeError:
                self._refuse(_KEY_MESSAGE, line)
            frame.key, frame.key_line, frame.awaiting_key = value, line, False
            return
        path = frame.child_path()
        if frame.key in container:
            first = self.lines.get(path)
            where = f" (first on line {first})" if first is not None else ""
            self.problems.append(
                SpecProblem(path, f"is named twice in one object{where}; keep one of them", line)
            )
        else:
            self.lines[path] = frame.key_line
            container[frame.key] = value
        frame.awaiting_key = True


@dataclass
class _Frame:
    """An open list or object of the walk."""

    value: Any
    path: str
    line: int
    key: Any = None
    key_line: int = 0
    awaiting_key: bool = True

    def child_path(self) -> str:
        if isinstance(self.value, list):
            return f"{self.path}[{len(self.value)}]"
        return f"{self.path}.{self.key}" if self.path else str(self.key)

    def __post_init__(self) -> None:
        self.awaiting_key = isinstance(self.value, dict)


def _line(event: Any) -> int:
    return int(event.start_mark.line) + 1


def text_problems(data: Any) -> list[SpecProblem]:
    """Every text in ``data`` over its cap (a description 64 KB, a prompt template 256 KB…),
    each at its JSON path, with the size and the limit in the message; and too many steps."""
    steps = data.get("steps") if isinstance(data, Mapping) else None
    if isinstance(steps, list) and len(steps) > MAX_SPEC_STEPS:
        message = f"the scorer has {len(steps):,} steps; the limit is {MAX_SPEC_STEPS}"
        return [SpecProblem("steps", message)]
    problems: list[SpecProblem] = []
    todo: list[tuple[str, Any, str]] = [("", data, "")]
    while todo:  # no recursion: the depth is already capped, but a loop needs no stack
        path, value, key = todo.pop()
        if isinstance(value, Mapping):
            todo += [(_join(path, str(k)), v, str(k)) for k, v in value.items()]
        elif isinstance(value, list):
            todo += [(f"{path}[{i}]", v, key) for i, v in enumerate(value)]
        elif isinstance(value, str) and len(value) > 1024:
            what, limit = SPEC_TEXT_LIMITS.get(key, ("text", MAX_SPEC_OTHER_TEXT_BYTES))
            size = len(value.encode("utf-8"))
            if size > limit:
                message = f"the {what} is {size_words(size)}; the limit is {size_words(limit)}"
                problems.append(SpecProblem(path, message))
    return sorted(problems, key=lambda p: p.path)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
