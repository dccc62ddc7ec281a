"""Size limits shared by formulas and templates, and the operations that check them first.

Text, lists and whole numbers can be grown by repetition (``'a' * 10**9``, ``9**9**9``);
these helpers refuse before the value is built, so a limit costs no memory to enforce.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

MAX_VALUE_SIZE = 1_000_000
"""Longest text or list one operation may create (characters or items)."""

MAX_INT_BITS = 4096
"""Largest whole number an operation may create, in bits (about 1,200 digits)."""

_SIZED = (str, list, tuple, dict, set, frozenset)


class ValueLimitError(ValueError):
    """An operation would build a value over a limit (the message is for the user)."""


def too_long(size: int) -> ValueLimitError:
    """The error for text or a list of ``size`` over :data:`MAX_VALUE_SIZE`."""
    return ValueLimitError(
        f"this would make text or a list of {size:,} characters or items; the limit is "
        f"{MAX_VALUE_SIZE:,}"
    )


def too_large() -> ValueLimitError:
    """The error for a whole number over :data:`MAX_INT_BITS`."""
    return ValueLimitError(f"this number would be too large (over {MAX_INT_BITS:,} bits)")


def bounded_add(a: Any, b: Any) -> Any:
    """``a + b``, refusing text or lists over the size limit."""
    if isinstance(a, _SIZED) and isinstance(b, _SIZED) and len(a) + len(b) > MAX_VALUE_SIZE:
        raise too_long(len(a) + len(b))
    return a + b


def bounded_mult(a: Any, b: Any) -> Any:
    """``a * b``, checking repeated text/lists and whole numbers first."""
    for seq, times in ((a, b), (b, a)):
        if isinstance(seq, str | list | tuple) and isinstance(times, int):
            size = len(seq) * times
            if size > MAX_VALUE_SIZE:
                raise too_long(size)
    both_int = isinstance(a, int) and isinstance(b, int)
    if both_int and a.bit_length() + b.bit_length() > MAX_INT_BITS:
        raise too_large()
    return a * b


def bounded_pow(a: Any, b: Any) -> Any:
    """``a ** b``, refusing whole-number results over the limit before computing them."""
    growing = isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1
    if growing and b * math.log2(abs(a)) > MAX_INT_BITS:
        raise too_large()
    return a**b


def bounded_mod(a: Any, b: Any) -> Any:
    """``a % b`` on numbers only: ``%`` formatting of text could build unbounded text."""
    if isinstance(a, str):
        raise ValueLimitError("% works on numbers only, not to format text")
    return a % b


def checked_replace(text: str, old: str, new: str, count: int = -1) -> str:
    """``text.replace(old, new, count)``, refusing a result over the size limit."""
    times = text.count(old) if old else len(text) + 1
    if count >= 0:
        times = min(times, count)
    size = len(text) + times * (len(new) - len(old))
    if size > MAX_VALUE_SIZE:
        raise too_long(size)
    return text.replace(old, new, count)


def checked_join(separator: str, parts: list[str]) -> str:
    """``separator.join(parts)``, refusing a result over the size limit."""
    size = sum(len(p) for p in parts) + len(separator) * max(len(parts) - 1, 0)
    if size > MAX_VALUE_SIZE:
        raise too_long(size)
    return separator.join(parts)


MAX_RESULT_SIZE = 10_000_000
"""Largest value (as text) a formula may return, counting repeated parts every time."""

_CONTAINERS = (list, tuple, dict, set, frozenset)

Memo = dict[int, tuple[Any, int]]
"""Sizes already measured, by ``id``; each entry keeps its object alive so ids stay unique."""


def _children(item: Any) -> tuple[list[Any], list[Any]]:
    """(keys, values) of an object; ([], items) of a list."""
    if isinstance(item, Mapping):
        return list(item.keys()), list(item.values())
    return [], list(item)


def _measure(
    value: Any, leaf: Callable[[Any], int], per_item: int, memo: Memo | None = None
) -> int:
    """The size of ``value`` with shared parts counted every time they appear.

    ``[x] * 1000`` is small in memory yet compares, hashes and prints as 1000 copies of
    ``x``. Each distinct list or object is measured once (memo), so measuring costs the
    size in memory, while the result is the size as seen by a comparison or by JSON.
    """
    if not isinstance(value, _CONTAINERS):
        return leaf(value)
    sizes: Memo = {} if memo is None else memo
    visiting: set[int] = set()
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, ready = stack.pop()
        if id(item) in sizes:
            continue
        keys, values = _children(item)
        if not ready:
            visiting.add(id(item))
            stack.append((item, True))
            stack.extend(
                (child, False)
                for child in values
                if isinstance(child, _CONTAINERS) and id(child) not in sizes
                and id(child) not in visiting
            )  # fmt: skip
            continue
        total = 2 + len(values) * per_item + sum(map(leaf, keys))
        for child in values:
            known = sizes.get(id(child)) if isinstance(child, _CONTAINERS) else None
            total += known[1] if known is not None else leaf(child)
        sizes[id(item)] = (item, total)
        visiting.discard(id(item))
    return sizes[id(value)][1]


def nested_size(value: Any, memo: Memo | None = None) -> int:
    """How many parts a value has, nested and repeated parts included (a comparison or a
    hash of it costs about this much)."""
    return _measure(value, lambda _: 1, 0, memo)


def _text_leaf(item: Any) -> int:
    return len(item) + 2 if isinstance(item, str) else 8


def check_expanded_size(value: Any, limit: int = MAX_VALUE_SIZE, indent: int = 0) -> None:
    """Refuse a value whose JSON text would be over ``limit`` characters (estimated,
    repeated parts counted each time); ``indent`` adds pretty-printing per item."""
    if _measure(value, _text_leaf, 2 + indent * 4) > limit:
        raise ValueLimitError(
            f"this value is too large to turn into text (over {limit:,} characters)"
        )
