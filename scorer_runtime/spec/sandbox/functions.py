"""The functions and text methods a formula may call: small, pure, deterministic, bounded.

Each function checks what it is given and fails with a message written for someone who
does not program ("mean() of an empty list ..."), never a Python type error.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from scorer_runtime.results import NotScorable
from scorer_runtime.spec.sandbox.limits import check_expanded_size

TEXT_METHODS = frozenset(
    {
        "capitalize",
        "casefold",
        "count",
        "endswith",
        "find",
        "isalnum",
        "isalpha",
        "isdigit",
        "islower",
        "isnumeric",
        "isspace",
        "isupper",
        "join",
        "lower",
        "lstrip",
        "removeprefix",
        "removesuffix",
        "replace",
        "rfind",
        "rsplit",
        "rstrip",
        "split",
        "splitlines",
        "startswith",
        "strip",
        "title",
        "upper",
    }
)
"""Methods callable on text (``output.lower()``); none can build unbounded text."""

LIST_METHODS = frozenset({"count", "index"})
"""Methods callable on lists; none changes the list."""


class FormulaValueError(ValueError):
    """A function or method got a value it cannot work with (the message is for the user)."""


def kind_of(value: object) -> str:
    """What a value is, in plain words: ``text``, ``a number``, ``a list``..."""
    if value is None:
        return "nothing (None)"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple | set | frozenset):
        return "a list"
    if callable(value):
        return "a function"
    return type(value).__name__


def to_text(value: object) -> str:
    """Text for a value as a prompt or a message shows it: lists and objects as JSON,
    ``true``/``false`` for booleans, ``""`` for None — never a Python repr."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, Mapping | list | tuple | set | frozenset):
        check_expanded_size(value)
        if isinstance(value, set | frozenset):
            value = sorted(value, key=str)
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def _text(fn: str, value: object) -> str:
    if not isinstance(value, str):
        raise FormulaValueError(f"{fn}() needs text; got {kind_of(value)}")
    return value


def _number(fn: str, value: object) -> float | int:
    if isinstance(value, int | float):  # bool is an int: True counts as 1
        return value
    raise FormulaValueError(f"{fn}() needs a number; got {kind_of(value)}")


def _numbers(fn: str, values: object) -> list[float | int]:
    if not isinstance(values, list | tuple | set | frozenset):
        raise FormulaValueError(f"{fn}() needs a list of numbers; got {kind_of(values)}")
    return [_number(fn, v) for v in values]


def _items(fn: str, args: tuple[Any, ...]) -> list[Any]:
    """min/max take a list, or several values."""
    if len(args) == 1 and isinstance(args[0], list | tuple | set | frozenset):
        return list(args[0])
    if not args:
        raise FormulaValueError(f"{fn}() needs a list or at least one value")
    return list(args)


_NO_DEFAULT: Any = object()


def _extreme(fn: str, pick: Callable[..., Any], args: tuple[Any, ...], default: Any) -> Any:
    items = _items(fn, args)
    if not items:
        if default is not _NO_DEFAULT:
            return default
        raise FormulaValueError(f"{fn}() of an empty list; give a default: {fn}(x, default=0)")
    try:
        return pick(items)
    except TypeError:
        kinds = sorted({kind_of(item) for item in items})
        raise FormulaValueError(f"{fn}() cannot compare {' and '.join(kinds)}") from None


def f_min(*values: Any, default: Any = _NO_DEFAULT) -> Any:
    """The smallest of a list, or of several values."""
    return _extreme("min", min, values, default)


def f_max(*values: Any, default: Any = _NO_DEFAULT) -> Any:
    """The largest of a list, or of several values."""
    return _extreme("max", max, values, default)


def f_len(value: object) -> int:
    """Characters of text, items of a list, fields of an object."""
    if isinstance(value, str | Mapping | list | tuple | set | frozenset):
        return len(value)
    raise FormulaValueError(f"len() needs text, a list or an object; got {kind_of(value)}")


def f_abs(value: object) -> float | int:
    """The number without its sign."""
    return abs(_number("abs", value))


def f_round(value: object, digits: object = None) -> float | int:
    """Round to ``digits`` decimals (a whole number when digits is left out)."""
    number = _number("round", value)
    if digits is None:
        return round(number)
    if not isinstance(digits, int) or isinstance(digits, bool) or not -15 <= digits <= 15:
        raise FormulaValueError("round() takes a whole number of digits from -15 to 15")
    return round(number, digits)


def f_sum(values: object) -> float | int:
    """The total of a list of numbers (true counts as 1)."""
    return sum(_numbers("sum", values))


def f_mean(values: object) -> float:
    """The average of a list of numbers."""
    numbers = _numbers("mean", values)
    if not numbers:
        raise FormulaValueError("mean() of an empty list; guard it: mean(x) if x else 0")
    return math.fsum(numbers) / len(numbers)


def _truths(fn: str, values: object) -> list[Any]:
    if not isinstance(values, list | tuple | set | frozenset):
        raise FormulaValueError(f"{fn}() needs a list; got {kind_of(values)}")
    return list(values)


def f_any(values: object) -> bool:
    """True when at least one item of the list is true."""
    return any(_truths("any", values))


def f_all(values: object) -> bool:
    """True when every item of the list is true (also for an empty list)."""
    return all(_truths("all", values))


def f_int(value: object) -> int:
    """A whole number from a number or text (decimals are cut toward zero)."""
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            value = f_float(text)
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            raise FormulaValueError(f"int() cannot make a whole number of {value}")
        return int(value)
    raise FormulaValueError(f"int() needs a number or text; got {kind_of(value)}")


def f_float(value: object) -> float:
    """A number from a number or text (``"0.75"`` -> 0.75)."""
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            raise FormulaValueError(f"could not read {value[:40]!r} as a number") from None
    raise FormulaValueError(f"float() needs a number or text; got {kind_of(value)}")


def f_bool(value: object) -> bool:
    """False for 0, empty text, an empty list and nothing; true otherwise."""
    return bool(value)


def f_lower(text: object) -> str:
    """Text in lower case."""
    return _text("lower", text).lower()


def f_upper(text: object) -> str:
    """Text in upper case."""
    return _text("upper", text).upper()


def f_strip(text: object) -> str:
    """Text without spaces and line breaks at both ends."""
    return _text("strip", text).strip()


def f_words(text: object) -> int:
    """How many words the text has (separated by spaces or line breaks)."""
    return len(_text("words", text).split())


def f_contains(haystack: object, needle: object, ignore_case: bool = False) -> bool:
    """Whether text contains a piece of text, a list an item, or an object a field."""
    if isinstance(haystack, str):
        piece = _text("contains", needle)
        if ignore_case:
            return piece.casefold() in haystack.casefold()
        return piece in haystack
    if isinstance(haystack, list | tuple | set | frozenset | Mapping):
        try:
            return needle in haystack
        except TypeError:  # an unhashable needle cannot be in a set or be a field name
            return False
    raise FormulaValueError(f"contains() needs text, a list or an object; got {kind_of(haystack)}")


def f_count(haystack: object, value: object) -> int:
    """How often a value occurs in a list, or a piece of text in text."""
    if isinstance(haystack, str):
        return haystack.count(_text("count", value))
    if isinstance(haystack, list | tuple):
        return haystack.count(value)
    raise FormulaValueError(f"count() needs a list or text; got {kind_of(haystack)}")


def f_clamp(value: object, low: object = 0, high: object = 1) -> float | int:
    """The number kept between low and high (0 and 1 unless given)."""
    number, lo, hi = (_number("clamp", v) for v in (value, low, high))
    if lo > hi:
        raise FormulaValueError(f"clamp() needs low <= high; got low={lo}, high={hi}")
    return min(max(number, lo), hi)


def f_get(value: object, key: object, default: object = None) -> Any:
    """A field or item that may be missing: ``get(x, "a.b.0", default)``."""
    parts: list[object] = [*key.split(".")] if isinstance(key, str) else [key]
    current: Any = value
    for part in parts:
        if isinstance(current, Mapping) and part in current:
            current = current[part]
        elif isinstance(current, list | tuple) and (i := _index(part, len(current))) is not None:
            current = current[i]
        else:
            return default
    return current


def _index(part: object, length: int) -> int | None:
    if isinstance(part, str) and part.lstrip("-").isdigit():
        part = int(part)
    if isinstance(part, int) and not isinstance(part, bool) and -length <= part < length:
        return part
    return None


def f_not_scorable(reason: object = None) -> NotScorable:
    """Say this example cannot be scored (in generate_score); no later step runs."""
    return NotScorable(None if reason is None else to_text(reason))


SAFE_FUNCTIONS: Mapping[str, Callable[..., Any]] = {
    "abs": f_abs,
    "all": f_all,
    "any": f_any,
    "bool": f_bool,
    "clamp": f_clamp,
    "contains": f_contains,
    "count": f_count,
    "float": f_float,
    "get": f_get,
    "int": f_int,
    "len": f_len,
    "lower": f_lower,
    "max": f_max,
    "mean": f_mean,
    "min": f_min,
    "not_scorable": f_not_scorable,
    "round": f_round,
    "str": to_text,
    "strip": f_strip,
    "sum": f_sum,
    "upper": f_upper,
    "words": f_words,
}
"""Every function a formula can call, by name."""

FORMULA_FUNCTIONS: list[tuple[str, str]] = [
    ("len", "len(x): characters of text, items of a list, fields of an object. len(output) > 200"),
    ("words", "words(text): how many words the text has. words(output) <= 150"),
    ("contains", "contains(x, y): text contains y / list has item y / object has field y. "
     "Add ignore_case=True to ignore case. contains(output, 'refund', ignore_case=True)"),
    ("count", "count(x, y): how often y occurs in a list or in text. count(output, '!')"),
    ("lower", "lower(text): text in lower case. lower(output) == 'yes'"),
    ("upper", "upper(text): text in upper case."),
    ("strip", "strip(text): text without spaces at both ends. strip(output) != ''"),
    ("min", "min(list) or min(a, b): the smallest. min(1, score * 2)"),
    ("max", "max(list) or max(a, b): the largest. max(0, 1 - len(output) / 1000)"),
    ("sum", "sum(list): the total of numbers (true counts as 1). "
     "sum([c.supported for c in step2.claims])"),
    ("mean", "mean(list): the average of numbers. mean([c.score for c in judge_output.items])"),
    ("clamp", "clamp(x, low, high): x kept between low and high (0 and 1 by default). "
     "clamp(judge_output.score / 10)"),
    ("abs", "abs(x): the number without its sign. 1 - abs(score - 0.5)"),
    ("round", "round(x, digits): rounded. round(judge_output.score / 3, 2)"),
    ("any", "any(list): true if at least one item is true."),
    ("all", "all(list): true if every item is true. all([c.ok for c in judge_output.checks])"),
    ("int", "int(x): a whole number from a number or text. int('7') == 7"),
    ("float", "float(x): a number from a number or text. float(judge_output.rating)"),
    ("str", "str(x): x as text (lists and objects as JSON). 'score: ' + str(score)"),
    ("bool", "bool(x): false for 0, empty text, an empty list or nothing; true otherwise."),
    ("get", "get(x, 'a.b', default): a field that may be missing. "
     "get(request_context, 'locale', 'en')"),
    ("not_scorable", "not_scorable(reason): this example cannot be scored. "
     "not_scorable('no answer') if not output else 1"),
]  # fmt: skip
"""(name, description with an example) of every formula function, for the studio's help."""
