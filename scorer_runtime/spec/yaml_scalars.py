"""One YAML scalar of a spec file as the value the person meant.

PyYAML resolves plain scalars by YAML 1.1, which turns words and numbers people write into
something else without a word: ``enum: [yes, no, off]`` becomes ``[True, False, False]`` (and
``{yes: 1, no: 0, off: 0}`` names the key ``False`` twice), ``0123`` becomes 83 (octal),
``1:30`` becomes 90 (base 60), ``2026-01-01`` a date. Here a plain scalar is a boolean only
when written ``true`` or ``false`` and a number only in the forms JSON and YAML 1.2 share
(``12``, ``-3.5``, ``1.0e-3``, ``0x1f``); any other is the text typed, as YAML 1.2 reads it
(a yes/no setting still accepts ``yes``: the spec's fields read it as true). A number that
would change when read (``1.0e-400`` would become 0) or cannot be read (a 5,000-digit
integer) is refused with words, raised as :class:`ScalarRefused` for the reader to add its
line; ``.inf`` and ``.nan`` are read, and refused with their path by the spec's checks.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from scorer_runtime.safe_json import MAX_INT_DIGITS

STANDARD_TAG = "tag:yaml.org,2002:"
_WHOLE = re.compile(r"[-+]?(0|[1-9][0-9]*)")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_DECIMAL = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")


class ScalarRefused(ValueError):
    """A scalar that cannot be stored as written; the message says why (without a line)."""


def scalar_value(event: Any) -> Any:
    """The value of a YAML scalar event (see the module's docstring)."""
    from yaml.nodes import ScalarNode

    tag = event.tag
    if tag in (None, "!"):
        if not event.implicit[0]:
            return event.value  # quoted: always text
        tag = _resolver().resolve(ScalarNode, event.value, event.implicit)
        return _plain(tag, event.value)
    return _tagged(tag, event)


def _plain(tag: str, text: str) -> Any:
    """A plain (unquoted, untagged) scalar read as YAML 1.2 would."""
    if tag == STANDARD_TAG + "null":
        return None
    if tag == STANDARD_TAG + "bool":
        return text.lower() == "true" if text.lower() in ("true", "false") else text
    if tag == STANDARD_TAG + "int" and _WHOLE.fullmatch(text):
        return _whole(text)
    if tag == STANDARD_TAG + "int" and _HEX.fullmatch(text):
        return int(text, 16)
    if tag == STANDARD_TAG + "float" and _DECIMAL.fullmatch(text):
        return _not_vanishing(text)
    if tag == STANDARD_TAG + "float" and text.lstrip("+-").lower() in (".inf", ".nan"):
        return float(text.replace(".", ""))  # .inf, -.Inf, .NaN: inf, -inf, nan
    return text  # YAML 1.1's octal, base 60, dates, yes/no/on/off: the text as typed


def _whole(text: str) -> int:
    digits = len(text.lstrip("+-"))
    if digits > MAX_INT_DIGITS:
        raise ScalarRefused(
            f"a whole number of {digits:,} digits is too long to store (the limit is "
            f"{MAX_INT_DIGITS:,} digits); write it in quotes, as text"
        )
    return int(text)


def _not_vanishing(text: str) -> float:
    value = float(text)
    shown = text if len(text) <= 24 else text[:21] + "..."
    if value == 0 and re.search(r"[1-9]", text.lower().partition("e")[0]):
        raise ScalarRefused(
            f"the number {shown} is too small to store: it would be stored as 0; write 0, "
            "or the number in quotes as text"
        )
    return value


def _tagged(tag: str, event: Any) -> Any:
    """A scalar with an explicit standard tag (``!!str 1``, ``!!int "3"``)."""
    import yaml
    from yaml.constructor import SafeConstructor
    from yaml.nodes import ScalarNode

    if tag == STANDARD_TAG + "str":
        return event.value
    constructor = SafeConstructor.yaml_constructors.get(tag)
    if constructor is None or tag in (STANDARD_TAG + "map", STANDARD_TAG + "seq"):
        raise yaml.constructor.ConstructorError(
            None, None, f"the tag {tag} does not fit a plain value", event.start_mark
        )
    if tag == STANDARD_TAG + "int" and len(event.value) > MAX_INT_DIGITS:
        return _whole(event.value)  # refused: too long for int()
    node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
    return constructor(_constructor(), node)


@cache
def _resolver() -> Any:
    import yaml

    return yaml.resolver.Resolver()


@cache
def _constructor() -> Any:
    from yaml.constructor import SafeConstructor

    return SafeConstructor()
