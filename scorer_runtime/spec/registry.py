"""The step registry: the named, parameterised operations a spec may ``use``.

A spec never carries code: a function step names a registered entry (``"use":
"keyword_coverage"``) and gives its parameters (``"with": {...}``). The registry is passed in
where specs are compiled, so tests and the studio decide what is available; there is no
process-global registry. :func:`default_registry` builds a fresh one with the built-ins and
the installed plugins.
"""

from __future__ import annotations

import difflib
import logging
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ValidationError

from scorer_runtime.spec.models.problems import json_path

StepUse = Literal["preprocess", "analyze", "generate_score", "generate_reason", "calculate_score"]
"""Where a registered step makes sense: one of the four steps, or a prompt step's scoring."""

STEP_USES: tuple[StepUse, ...] = get_args(StepUse)

PLUGIN_GROUP = "scorer_studio.steps"
"""The entry-point group plugins use to add steps (``[project.entry-points."..."]``)."""

P = TypeVar("P", bound=BaseModel)
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_log = logging.getLogger(__name__)


class StepParamsError(ValueError):
    """The parameters given to a registered step are not valid.

    ``problems`` holds ``(path, message)`` pairs, the path being a JSON path inside the
    parameters (``keywords[1]``, ``weights.relevance``, ``""`` for the whole object), so a
    caller can prefix it with where the parameters sit (:meth:`with_prefix`).
    """

    def __init__(self, step: str, problems: Iterable[tuple[str, str]]) -> None:
        self.step = step
        self.problems = list(problems)
        super().__init__(self._message())

    def _message(self) -> str:
        lines = [f"{path}: {msg}" if path else msg for path, msg in self.problems]
        return f"step {self.step!r} has invalid parameters: " + "; ".join(lines)

    def with_prefix(self, prefix: str) -> StepParamsError:
        """The same problems with ``prefix`` put before each path (``steps[2].with``)."""
        problems = [(_join_path(prefix, path), msg) for path, msg in self.problems]
        return StepParamsError(self.step, problems)


class UnknownStepError(LookupError):
    """No step is registered under a name; the message lists the valid names."""

    def __init__(self, name: str, valid: Iterable[str]) -> None:
        self.name = name
        self.valid_names = closest_first(name, valid)
        close = difflib.get_close_matches(name, self.valid_names, n=3, cutoff=0.6)
        hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        listing = ", ".join(self.valid_names) or "(none registered)"
        super().__init__(f"There is no step named {name!r}.{hint} Valid names: {listing}")


def closest_first(name: str, names: Iterable[str]) -> list[str]:
    """``names`` ordered by how close they are to ``name`` (closest first, ties by name)."""

    def closeness(candidate: str) -> tuple[float, str]:
        ratio = difflib.SequenceMatcher(None, name.lower(), candidate.lower()).ratio()
        return (-ratio, candidate)

    return sorted(names, key=closeness)


def _join_path(prefix: str, path: str) -> str:
    if not prefix:
        return path
    if not path:
        return prefix
    return f"{prefix}{path}" if path.startswith("[") else f"{prefix}.{path}"


def param_problems(error: ValidationError, model: type[BaseModel]) -> list[tuple[str, str]]:
    """Readable ``(path, message)`` pairs for a pydantic error on ``model``'s parameters.

    A misspelt parameter (``keyword`` for a required ``keywords``) is one problem, not two:
    the unknown name says what it probably means, and the "required" problem is dropped.
    """
    errors = error.errors(include_url=False)
    missing = {json_path(e["loc"]) for e in errors if e["type"] == "missing"}
    meant: dict[str, str] = {}
    for err in errors:
        if err["type"] == "extra_forbidden":
            path = json_path(err["loc"])
            close = difflib.get_close_matches(path, sorted(missing - set(meant.values())), n=1)
            if close:
                meant[path] = close[0]
    problems = []
    for err in errors:
        path = json_path(err["loc"])
        if err["type"] == "extra_forbidden":
            problems.append((path, _unknown_message(path, meant.get(path), model)))
        elif err["type"] == "missing":
            if path not in meant.values():
                problems.append((path, "this parameter is required"))
        else:
            problems.append((path, str(err["msg"]).removeprefix("Value error, ")))
    return problems


def _unknown_message(path: str, meant: str | None, model: type[BaseModel]) -> str:
    name = path.rsplit(".", 1)[-1]
    hint = f"did you mean {meant!r}? " if meant else ""
    valid = ", ".join(closest_first(name, model.model_fields))
    return f"unknown parameter; {hint}valid parameters: {valid}"


def validate_params(model: type[P], params: Mapping[str, Any], *, step: str) -> P:
    """``params`` validated by ``model``; :class:`StepParamsError` with JSON paths otherwise."""
    if not isinstance(params, Mapping):
        raise StepParamsError(step, [("", f"expected an object, got {type(params).__name__}")])
    try:
        return model.model_validate(dict(params))
    except ValidationError as error:
        raise StepParamsError(step, param_problems(error, model)) from None


@dataclass(frozen=True)
class StepEntry:
    """One registered operation: its name, words for the studio, parameters and factory.

    ``factory(**params)`` returns a step callable (see :mod:`scorer_runtime.steps`);
    ``params_model`` (pydantic, ``extra="forbid"``) describes and validates the parameters,
    and the studio renders its form from :attr:`params_schema`.

    The rest is everything else the project asks about a step, kept here so that adding one
    is one entry (the sets the rest of the code uses are derived from the entries):
    ``verdict`` is the scale a score it gives is graded on in Review (``pass_fail``: it gives
    1 or 0); ``expected`` what its expected answer is (``tools``: a list of tool names, as the
    trace import fills it); ``typescript`` whether the Mastra export has a TypeScript form
    for it (otherwise the export lists it as a difference); ``sample`` realistic parameters
    (the tests build every built-in from it; not checked here, so that building the registry
    loads no heavy library such as jsonschema).
    """

    name: str
    title: str
    description: str
    suits: frozenset[StepUse]
    params_model: type[BaseModel]
    factory: Callable[..., Any]
    category: str
    verdict: Literal["pass_fail", "number"] = "number"
    expected: Literal["text", "tools"] = "text"
    typescript: bool = False
    sample: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        problems = _entry_problems(self)
        if problems:
            raise ValueError(f"step entry {self.name!r} is not valid: " + "; ".join(problems))

    @property
    def params_schema(self) -> dict[str, Any]:
        """The JSON Schema of the parameters (the studio builds the step's form from it).

        Its title and description are the entry's plain-language ones, not the model's.
        """
        schema = self.params_model.model_json_schema()
        schema["title"] = self.title
        schema["description"] = self.description
        return schema

    def build(self, params: Mapping[str, Any]) -> Any:
        """Validate ``params`` and call the factory; :class:`StepParamsError` when invalid."""
        validate_params(self.params_model, params, step=self.name)
        try:
            return self.factory(**params)
        except ValidationError as error:  # a plugin factory validating with its own model
            raise StepParamsError(self.name, param_problems(error, self.params_model)) from None

    @property
    def import_path(self) -> tuple[str, str]:
        """``(module, attribute)`` for ``from module import attribute`` in exported code.

        The shortest already-imported parent package that exports the same factory wins,
        so built-ins read ``from scorer_runtime.spec.builtins import keyword_coverage``.
        """
        module = self.factory.__module__
        attribute = self.factory.__qualname__
        parts = module.split(".")
        for end in range(1, len(parts)):
            parent = sys.modules.get(".".join(parts[:end]))
            if parent is not None and getattr(parent, attribute, None) is self.factory:
                return ".".join(parts[:end]), attribute
        return module, attribute


def _entry_problems(entry: StepEntry) -> list[str]:
    problems = []
    if not isinstance(entry.name, str) or not _NAME.match(entry.name):
        problems.append("name must be snake_case (lower-case letters, digits and _)")
    if not entry.title or not entry.description or not entry.category:
        problems.append("title, description and category must not be empty")
    unknown = set(entry.suits) - set(STEP_USES)
    if not entry.suits or unknown:
        problems.append(f"suits must be a non-empty set of {', '.join(STEP_USES)}")
    if not (isinstance(entry.params_model, type) and issubclass(entry.params_model, BaseModel)):
        problems.append("params_model must be a pydantic model class")
    elif entry.params_model.model_config.get("extra") != "forbid":
        problems.append("params_model must forbid unknown parameters (extra='forbid')")

    if not callable(entry.factory):
        problems.append("factory must be callable")
    elif "<" in getattr(entry.factory, "__qualname__", "<"):  # <lambda>, <locals>
        problems.append("factory must be importable by name (a module-level function)")
    return problems


class StepRegistry:
    """The steps a spec can use, by name, in registration order.

    ``plugin_errors`` collects what :meth:`load_entry_points` could not load, so a broken
    plugin is reported in the studio instead of crashing it.
    """

    def __init__(self, entries: Iterable[StepEntry] = ()) -> None:
        self._entries: dict[str, StepEntry] = {}
        self.plugin_errors: list[str] = []
        for entry in entries:
            self.register(entry)

    def register(self, entry: StepEntry) -> None:
        """Add ``entry``; ``ValueError`` when its name is taken or it is not a StepEntry."""
        if not isinstance(entry, StepEntry):
            raise ValueError(f"expected a StepEntry, got {type(entry).__name__}")
        if entry.name in self._entries:
            raise ValueError(f"a step named {entry.name!r} is already registered")
        self._entries[entry.name] = entry

    def get(self, name: str) -> StepEntry:
        """The entry named ``name``; :class:`UnknownStepError` listing valid names otherwise."""
        try:
            return self._entries[name]
        except (KeyError, TypeError):
            raise UnknownStepError(str(name), self._entries) from None

    def names(self) -> list[str]:
        """Registered names, in registration order."""
        return list(self._entries)

    def entries(self, *, suits: StepUse | None = None) -> list[StepEntry]:
        """Registered entries in order; only those suiting ``suits`` when given."""
        return [e for e in self._entries.values() if suits is None or suits in e.suits]

    def by_category(self, *, suits: StepUse | None = None) -> dict[str, list[StepEntry]]:
        """Entries grouped by category, categories in order of first appearance."""
        groups: dict[str, list[StepEntry]] = {}
        for entry in self.entries(suits=suits):
            groups.setdefault(entry.category, []).append(entry)
        return groups

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._entries

    def __iter__(self) -> Iterator[StepEntry]:
        return iter(list(self._entries.values()))

    def __len__(self) -> int:
        return len(self._entries)

    def load_entry_points(self, group: str = PLUGIN_GROUP) -> list[str]:
        """Register the steps installed plugins declare under the entry-point ``group``.

        Each entry point loads a :class:`StepEntry` or an iterable of them. Whatever fails
        (import error, wrong type, name taken) is left out and reported as a message in the
        returned list (also kept in :attr:`plugin_errors`); this never raises.
        """
        from importlib.metadata import entry_points

        errors: list[str] = []
        try:
            points = list(entry_points(group=group))
        except Exception as error:  # a broken installed distribution must not break the studio
            errors.append(f"could not list the {group!r} plugins: {_describe(error)}")
            points = []
        for point in points:
            errors += [f"plugin {_point_name(point)}: {e}" for e in self._load_point(point)]
        for message in errors:
            _log.warning("%s", message)
        self.plugin_errors += errors
        return errors

    def _load_point(self, point: Any) -> list[str]:
        try:
            loaded = point.load()
        except Exception as error:  # any import-time failure of third-party code
            return [f"could not be loaded ({_describe(error)}); check the plugin is installed"]
        items: list[Any]
        if isinstance(loaded, StepEntry):
            items = [loaded]
        elif isinstance(loaded, Iterable) and not isinstance(loaded, str | bytes | Mapping):
            items = list(loaded)
        else:
            return [f"gave {type(loaded).__name__}, expected a StepEntry or a list of them"]
        errors = []
        for item in items:
            try:
                self.register(item)
            except ValueError as error:
                errors.append(f"{error}; that step is left out")
        return errors


def _point_name(point: Any) -> str:
    dist = getattr(point, "dist", None)
    origin = f" from {dist.name} {dist.version}" if dist is not None else ""
    return f"{point.name!r} ({point.value}){origin}"


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def default_registry(*, plugins: bool = True) -> StepRegistry:
    """A new registry with the built-in steps and, unless ``plugins=False``, installed plugins."""
    from scorer_runtime.spec.builtins import BUILTIN_ENTRIES

    registry = StepRegistry(BUILTIN_ENTRIES)
    if plugins:
        registry.load_entry_points()
    return registry
