"""The sandboxed Jinja environment prompt templates render in, and the limits it enforces.

Jinja's ``ImmutableSandboxedEnvironment`` already blocks ``_``-attributes and mutation; this
subclass narrows it to what a prompt needs and bounds the work a template can cause:

- only allow-listed filters, the ``range`` global and methods of plain data;
  ``str.format`` and ``%`` formatting (whose widths build unbounded text) are off;
- ``+``, ``*`` and ``**`` check sizes before building text, lists or numbers;
- every call counts against the render's step budget, and all text printed or returned
  by a call against its work budget (see :mod:`.template_guards` for loops, ``~``,
  literals and comparisons);
- ``a.b`` on an object reads its field ``b`` before any method of that name.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from jinja2 import StrictUndefined, pass_eval_context
from jinja2.exceptions import SecurityError
from jinja2.filters import FILTERS, do_indent, make_attrgetter
from jinja2.nodes import EvalContext
from jinja2.runtime import Context, Undefined
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import missing

from scorer_runtime.judge.fence import fence_printed, fencing_now
from scorer_runtime.spec.context import OFFERED_NAMES
from scorer_runtime.spec.sandbox.functions import LIST_METHODS, TEXT_METHODS, kind_of, to_text
from scorer_runtime.spec.sandbox.limits import (
    bounded_add,
    bounded_mult,
    bounded_pow,
    checked_join,
    checked_replace,
)
from scorer_runtime.spec.sandbox.template_filters import (
    AGENT_FILTER_FUNCTIONS,
    RenderProblem,
    guarded,
)
from scorer_runtime.spec.sandbox.template_guards import GUARD_FILTERS, current_budget
from scorer_runtime.spec.sandbox.template_limits import MAX_INDENT, MAX_RANGE

STANDARD_FILTER_NAMES = (
    "abs", "capitalize", "count", "d", "default", "dictsort", "first", "float", "groupby",
    "int", "items", "last", "length", "list", "lower", "map", "max", "min", "reject",
    "rejectattr", "reverse", "round", "select", "selectattr", "sort", "striptags", "title",
    "trim", "truncate", "unique", "upper", "wordcount",
)  # fmt: skip
"""Jinja's filters kept as they are; the rest are off or replaced by bounded versions."""

_PLAIN_METHODS: tuple[tuple[type, frozenset[str]], ...] = (
    (str, TEXT_METHODS - {"replace", "join"}),  # the replace / join filters are bounded
    (dict, frozenset({"get", "items", "keys", "values"})),
    (list, LIST_METHODS),
    (tuple, LIST_METHODS),
    (int, frozenset()),
    (float, frozenset()),
)


def undefined_message(obj: Any, name: Any) -> str:
    """Why a value is missing, in plain words, with what is there instead."""
    if obj is missing:
        return f"the variable {name!r} does not exist. Variables: {', '.join(OFFERED_NAMES)}"
    if obj is None:
        return f"a value is empty (None), so it has no {name!r}; check with {{% if ... %}} first"
    if isinstance(obj, Mapping):
        keys = sorted(str(k) for k in obj)
        shown = ", ".join(keys[:20]) + (", ..." if len(keys) > 20 else "")
        return f"there is no field {name!r}. Fields there: {shown or '(none)'}"
    if isinstance(obj, list | tuple):
        if isinstance(name, int):
            return f"the list has {len(obj)} items; there is no item [{name}]"
        return f"a list has no field {name!r}; pick an item first, e.g. [0].{name}"
    return f"{kind_of(obj)} has no {name!r}"


class ClearUndefined(StrictUndefined):
    """StrictUndefined whose error says what is missing and what is there instead."""

    __slots__ = ()

    @property
    def _undefined_message(self) -> str:
        if self._undefined_hint:
            return self._undefined_hint
        return undefined_message(self._undefined_obj, self._undefined_name)


def _fail_if_undefined(value: Any) -> None:
    if isinstance(value, Undefined):
        value._fail_with_undefined_error()


def _finalize(value: Any) -> str:
    """``{{ value }}`` as prompt text: JSON for lists/objects, never a Python repr.

    For a judge that hardens its prompt, every printed value but one that reads as a number,
    true/false or nothing is fenced as data (:mod:`scorer_runtime.judge.fence`); literal text
    of the template is not (Jinja folds a printed literal before any render)."""
    if callable(value) and not isinstance(value, Undefined):
        raise RenderProblem(
            "this prints a method or macro, not a value; call it with (...) or read a field"
        )
    text = to_text(value)
    if fencing_now():
        text = fence_printed(text)
    current_budget().produce(len(text))
    return text


def _safe_range(*args: Any) -> range:
    numbers = range(*args)
    try:
        size = len(numbers)
    except OverflowError:
        size = MAX_RANGE + 1
    if size > MAX_RANGE:
        raise RenderProblem(f"range() may give at most {MAX_RANGE:,} numbers")
    return numbers


@pass_eval_context
def _join(eval_ctx: EvalContext, value: Any, d: Any = "", attribute: Any = None) -> str:
    items = list(value)
    if attribute is not None:
        items = list(map(make_attrgetter(eval_ctx.environment, attribute), items))
    return checked_join(to_text(d), [to_text(item) for item in items])


def _replace(value: Any, old: Any, new: Any, count: int | None = None) -> str:
    text, before, after = to_text(value), to_text(old), to_text(new)
    return checked_replace(text, before, after, -1 if count is None else count)


@pass_eval_context
def _sum(eval_ctx: EvalContext, value: Any, attribute: Any = None, start: Any = 0) -> Any:
    """Jinja's ``sum`` for numbers only: adding lists or text repeatedly has no bound."""
    items = list(value)
    if attribute is not None:
        items = list(map(make_attrgetter(eval_ctx.environment, attribute), items))
    for item in [start, *items]:
        if not isinstance(item, int | float):
            raise RenderProblem(f"sum adds numbers only; got {kind_of(item)}")
    return sum(items, start)


def _indent(value: Any, width: int | str = 4, first: bool = False, blank: bool = False) -> str:
    size = len(width) if isinstance(width, str) else width
    if not isinstance(size, int) or size > MAX_INDENT:
        raise RenderProblem(f"indent() takes a width of at most {MAX_INDENT}")
    return do_indent(to_text(value), width, first, blank)


def _filters() -> dict[str, Any]:
    filters: dict[str, Any] = {name: FILTERS[name] for name in STANDARD_FILTER_NAMES}
    filters.update(indent=_indent, join=_join, replace=_replace, string=to_text, sum=_sum)
    for name, fn in AGENT_FILTER_FUNCTIONS.items():
        filters[name] = guarded(name, fn, _fail_if_undefined)
    filters.update(GUARD_FILTERS)
    return filters


class PromptEnvironment(ImmutableSandboxedEnvironment):
    """The one Jinja environment prompts render in (see the module docstring)."""

    intercepted_binops = frozenset({"+", "*", "**", "%"})

    def __init__(self) -> None:
        super().__init__(
            undefined=ClearUndefined,
            autoescape=False,  # prompts are text, not HTML
            trim_blocks=True,
            lstrip_blocks=True,
            finalize=_finalize,
            cache_size=0,
            auto_reload=False,
        )
        # lipsum (unbounded text), cycler, joiner, namespace and dict are not needed by
        # prompts; fewer names, less to audit.
        self.globals.clear()
        self.globals.update(range=_safe_range)
        self.filters = _filters()

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        """``+ * ** %`` with their size checks (``%`` on text is off)."""
        if operator == "+":
            return bounded_add(left, right)
        if operator == "*":
            return bounded_mult(left, right)
        if operator == "**":
            return bounded_pow(left, right)
        if isinstance(left, str):
            raise RenderProblem("% formatting of text is not available; join text with ~")
        return left % right

    def call(self, context: Context, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        """Count the call and the nested size of what it is given (``list.count`` compares
        every item), make it as the sandbox does, and count the text it returns."""
        budget = current_budget()
        budget.step()
        for value in (getattr(obj, "__self__", None), *args, *kwargs.values()):
            budget.compare(value)
        result = super().call(context, obj, *args, **kwargs)
        if isinstance(result, str):
            budget.produce(len(result))
        return result

    def getattr(self, obj: Any, attribute: str) -> Any:
        """``a.b`` reads the field ``b`` of an object first, then the sandbox's attribute.

        So a judge answer with a field named ``items`` or ``values`` reads as that field, as
        in formulas, not as the dict method of the same name.
        """
        if isinstance(obj, Mapping) and isinstance(attribute, str) and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        """The sandbox's rules, and on plain data only the allow-listed methods."""
        if not super().is_safe_attribute(obj, attr, value) or isinstance(obj, type):
            return False
        if not callable(value):
            return True
        for kind, names in _PLAIN_METHODS:
            if isinstance(obj, kind):
                return attr in names
        return True

    def wrap_str_format(self, value: Any) -> None:
        """``str.format`` is off: format widths could build unbounded text."""
        return None

    def unsafe_undefined(self, obj: Any, attribute: str) -> Undefined:
        """A blocked attribute: an undefined that fails with a message saying why."""
        if attribute.startswith("_"):
            why = f"templates cannot read {attribute!r}: names starting with '_' are internal"
        else:
            why = (
                f"'.{attribute}' is not available on {kind_of(obj)} in templates; "
                "use a filter instead (see the list of filters)"
            )
        return self.undefined(why, obj=obj, name=attribute, exc=SecurityError)


@cache
def environment() -> PromptEnvironment:
    """The shared environment (made on first use; rendering in it is thread-safe)."""
    return PromptEnvironment()
