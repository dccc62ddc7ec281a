"""Python source for plan nodes and JSON data, laid out the way ``ruff format`` does.

The rules that matter here: a call, list or dict stays on one line when it fits in 100
columns; otherwise it is exploded with one item per line and a trailing comma (which ruff
then keeps). Long strings become implicitly concatenated pieces. Quotes and escapes follow
ruff's preferences, so formatting the output changes nothing.
"""

from __future__ import annotations

import keyword
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from scorer_runtime.spec.compile import Chain, Name, PlanCall

LINE_LENGTH = 100
INDENT = 4


def walk(node: Any) -> list[PlanCall]:
    """Every call in a plan node, depth first (in the order the code mentions them)."""
    if isinstance(node, PlanCall):
        found = [node]
        for child in (*node.args, *(value for _, value in node.kwargs)):
            found += walk(child)
        return found
    if isinstance(node, Chain):
        return walk(node.head) + [c for _, arg in node.links for c in walk(arg)]
    if isinstance(node, list | tuple):
        return [c for item in node for c in walk(item)]
    if isinstance(node, dict):
        return [c for value in node.values() for c in walk(value)]
    return []


class Printer:
    """Prints plan nodes and JSON data as Python, in ruff format's layout.

    ``names`` maps each call's ``(module, name)`` to the name it is imported under.
    """

    def __init__(self, names: Mapping[tuple[str, str], str]) -> None:
        self.names = names

    def flat(self, node: Any) -> str:
        """``node`` on one line."""
        if isinstance(node, PlanCall):
            items = [self.flat(arg) for arg in node.args] + self._flat_kwargs(node)
            return f"{self.names[(node.module, node.name)]}({', '.join(items)})"
        if isinstance(node, Name):
            return node.name
        if isinstance(node, Chain):
            links = "".join(f".{m}({self.flat(a)})" for m, a in node.links)
            return self.flat(node.head) + links
        if isinstance(node, list | tuple):
            return f"[{', '.join(self.flat(item) for item in node)}]"
        if isinstance(node, dict):
            pairs = (f"{py_string(str(k))}: {self.flat(v)}" for k, v in node.items())
            return "{" + ", ".join(pairs) + "}"
        return py_scalar(node)

    def _flat_kwargs(self, call: PlanCall) -> list[str]:
        if not _identifiers(call):
            return [f"**{self.flat(dict(call.kwargs))}"] if call.kwargs else []
        return [f"{key}={self.flat(value)}" for key, value in call.kwargs]

    def fits(self, node: Any, line: str) -> bool:
        """Whether ``line`` (``node`` on one line) can stay one line."""
        return width(line) <= LINE_LENGTH and not any(map(_secret_kwargs, walk(node)))

    def lines(self, node: Any, indent: int, lead: str, trail: str) -> list[str]:
        """``node`` as lines starting ``lead`` at ``indent``, ending in ``trail``."""
        line = " " * indent + lead + self.flat(node) + trail
        if self.fits(node, line):
            return [line]
        return self.exploded(node, indent, lead, trail)

    def exploded(self, node: Any, indent: int, lead: str, trail: str) -> list[str]:
        """``node`` split over lines: one item per line, each with a trailing comma."""
        pad = " " * indent
        if isinstance(node, PlanCall) and (node.args or node.kwargs):
            name = self.names[(node.module, node.name)]
            items: list[tuple[str, Any]] = [("", arg) for arg in node.args]
            if _identifiers(node):
                items += [(f"{key}=", value) for key, value in node.kwargs]
            else:
                items.append(("**", dict(node.kwargs)))
            return self._items(pad + lead + f"{name}(", items, indent, ")" + trail)
        if isinstance(node, list | tuple) and node:
            return self._items(pad + lead + "[", [("", x) for x in node], indent, "]" + trail)
        if isinstance(node, dict) and node:
            items = [(f"{py_string(str(k))}: ", v) for k, v in node.items()]
            return self._items(pad + lead + "{", items, indent, "}" + trail)
        if isinstance(node, str) and node:
            return self._string(node, indent, lead, trail)
        return [pad + lead + self.flat(node) + trail]

    def lines_call(self, opener: str, args: list[Any], indent: int, trail: str) -> list[str]:
        """``opener(args)`` on one line if it fits, else exploded."""
        line = " " * indent + f"{opener}({', '.join(self.flat(a) for a in args)}){trail}"
        if self.fits(args, line):
            return [line]
        return self.exploded_call(opener, args, indent, trail)

    def exploded_call(self, opener: str, args: list[Any], indent: int, trail: str) -> list[str]:
        """``opener(`` then one argument per line, then ``)``."""
        items = [("", arg) for arg in args]
        return self._items(" " * indent + opener + "(", items, indent, ")" + trail)

    def _items(
        self, first: str, items: list[tuple[str, Any]], indent: int, close: str
    ) -> list[str]:
        lines = [first]
        for lead, value in items:
            item = self.lines(value, indent + INDENT, lead, ",")
            if isinstance(value, str) and _SECRET_NAME.search(lead.removesuffix("=")):
                # ruff's S106 reads any keyword named like "pass..." as a hard-coded password;
                # these are plain labels (e.g. threshold's pass_value), so say so on the line.
                item[0] += "  # noqa: S106"
            lines += item
        return [*lines, " " * indent + close]

    def _string(self, text: str, indent: int, lead: str, trail: str) -> list[str]:
        """A long string as implicitly concatenated pieces, parenthesised after a ``lead``."""
        pad = " " * indent
        # ruff format joins pieces that fit on one line together, so a text that fits stays whole.
        whole = py_string(text)
        if lead:
            fits = indent + INDENT + width(whole) <= LINE_LENGTH
            inner = [whole] if fits else _string_pieces(text, indent + INDENT)
            lines = [pad + lead + "("] + [" " * (indent + INDENT) + p for p in inner]
            return [*lines, pad + ")" + trail]
        fits = indent + width(whole) + width(trail) <= LINE_LENGTH
        pieces = [whole] if fits else _string_pieces(text, indent)
        lines = [pad + piece for piece in pieces]
        lines[-1] += trail
        return lines


_SECRET_NAME = re.compile(r"(^|_)(pas+wo?r?d|pass(phrase)?|pwd|token|secrete?)($|_)", re.I)
"""Keyword names ruff's S106 (hard-coded password) looks at."""


def _secret_kwargs(call: PlanCall) -> bool:
    return any(isinstance(v, str) and _SECRET_NAME.search(k) for k, v in call.kwargs)


def _identifiers(call: PlanCall) -> bool:
    return all(key.isidentifier() and not keyword.iskeyword(key) for key, _ in call.kwargs)


# -- literals ---------------------------------------------------------------------------------


def py_scalar(value: Any) -> str:
    """A JSON scalar as a Python literal."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if value == value and abs(value) != float("inf") else f'float("{value}")'
    if isinstance(value, str):
        return py_string(value)
    raise TypeError(f"cannot write {type(value).__name__} into exported code")


def py_string(text: str) -> str:
    """A string literal the way ruff format writes it: double quotes unless the text holds
    more double than single quotes; escapes only where needed."""
    quote = "'" if text.count('"') > text.count("'") else '"'
    out = []
    for ch in text:
        if ch == "\\" or ch == quote:
            out.append("\\" + ch)
        elif ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif not ch.isprintable():
            out.append(_escape(ord(ch)))
        else:
            out.append(ch)
    return quote + "".join(out) + quote


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(code: int) -> str:
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _string_pieces(text: str, indent: int) -> list[str]:
    """``text`` cut into literals that fit the line (after newlines, then between words)."""
    room = LINE_LENGTH - indent - 1  # the trailing comma or closing bracket
    pieces: list[str] = []
    for segment in text.splitlines(keepends=True):
        current = ""
        for word in _words(segment):
            candidate = current + word
            if current and width(py_string(candidate)) > room:
                pieces.append(py_string(current))
                current = ""
                candidate = word
            while width(py_string(candidate)) > room and len(candidate) > 1:
                cut = _longest_fit(candidate, room)
                pieces.append(py_string(candidate[:cut]))
                candidate = candidate[cut:]
            current = candidate
        if current:
            pieces.append(py_string(current))
    return pieces or [py_string(text)]


def _words(segment: str) -> list[str]:
    """Words with the spaces after them, so pieces break after a space."""
    words, current = [], ""
    for ch in segment:
        if current and not ch.isspace() and current[-1].isspace():
            words.append(current)
            current = ""
        current += ch
    return [*words, current] if current else words


def _longest_fit(text: str, room: int) -> int:
    low, high = 1, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if width(py_string(text[:middle])) <= room:
            low = middle
        else:
            high = middle - 1
    return low


def width(line: str) -> int:
    """Columns ``line`` takes, as ruff counts them (wide East Asian characters count two)."""
    if line.isascii():
        return len(line)
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        for ch in line
    )
