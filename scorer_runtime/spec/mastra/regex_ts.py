"""Python regular expressions rewritten as JavaScript ones that match the same text.

Python's ``re`` (on text) and JavaScript's ``RegExp`` (with the ``u`` flag) read many
signs differently: ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are Unicode-wide in Python and ASCII in
JavaScript, ``.`` and ``$`` stop at other line breaks, ``{`` alone is a letter in Python and
an error in JavaScript. Each of those is written out here so both match the same text; a
pattern using anything else (inline flags, atomic groups, conditionals, octal escapes...) is
refused with the reason, never translated to something that matches differently.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from scorer_runtime.spec.mastra.formula_ts import Untranslatable

WORD = r"\p{L}\p{N}_"
"""Python's \\w on text: letters, numbers (any script) and the underscore."""
SPACE = (
    r"\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
)  # fmt: skip
"""Python's \\s on text (what str.isspace() accepts)."""

_CLASS_ESCAPES = {"d": r"\p{Nd}", "w": WORD, "s": SPACE}
_OUTSIDE = {
    "d": r"\p{Nd}",
    "D": r"\P{Nd}",
    "w": f"[{WORD}]",
    "W": f"[^{WORD}]",
    "s": f"[{SPACE}]",
    "S": f"[^{SPACE}]",
    "A": "^",
    "Z": r"(?![\s\S])",
    "b": f"(?:(?<=[{WORD}])(?![{WORD}])|(?<![{WORD}])(?=[{WORD}]))",
    "B": f"(?:(?<=[{WORD}])(?=[{WORD}])|(?<![{WORD}])(?![{WORD}]))",
}
_CONTROL = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_QUANTIFIER = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")


def _char(char: str) -> str:
    """A character written so JavaScript reads it as itself, inside or outside [...]."""
    if char.isalnum() or char in " _" or (ord(char) > 0x7F and char.isprintable()):
        return char
    return f"\\u{{{ord(char):x}}}"


@functools.cache
def _every_char() -> str:
    return "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)


@functools.cache
def _variants(char: str) -> str:
    """Every character Python's IGNORECASE matches with ``char`` (\u0130 and \u0131 for i)."""
    if char.lower() == char.upper() == char.casefold():
        return char
    return "".join(re.findall(re.escape(char), _every_char(), re.IGNORECASE))


@dataclass
class _Reader:
    pattern: str
    multiline: bool
    dot_all: bool
    ignore_case: bool = False
    at: int = 0
    depth: int = 0
    scoped: list[int] = field(default_factory=list)
    """The depths of the (?i:...) groups being read (ignoring case inside them only)."""

    @property
    def folding(self) -> bool:
        return self.ignore_case or bool(self.scoped)

    def letter(self, char: str) -> str:
        """A literal character; with case ignored, the set of its case variants."""
        variants = _variants(char) if self.folding else char
        if len(variants) <= 1:
            return _char(char)
        return "[" + "".join(_char(v) for v in variants) + "]"

    def refuse(self, what: str) -> Untranslatable:
        return Untranslatable(
            f"the regular expression {self.pattern!r} ({what} reads differently in JavaScript)"
        )

    def translate(self) -> str:
        out: list[str] = []
        while self.at < len(self.pattern):
            out.append(self.token())
        return "".join(out)

    def token(self) -> str:
        char = self.pattern[self.at]
        self.at += 1
        if char == "\\":
            return self.escape()
        if char == "[":
            return self.char_class()
        if char == "(":
            return self.group()
        if char == "{":
            return self.brace()
        if char == ".":
            return r"[\s\S]" if self.dot_all else r"[^\n]"
        if char == "^":
            return r"(?<![^\n])" if self.multiline else "^"
        if char == "$":
            return r"(?=\n|(?![\s\S]))" if self.multiline else r"(?=\n?(?![\s\S]))"
        if char in "*+?":
            if self.pattern[self.at : self.at + 1] == "+":
                raise self.refuse("a possessive quantifier")
            return char
        if char == ")":
            self.depth -= 1
            if self.scoped and self.scoped[-1] > self.depth:
                self.scoped.pop()
            return char
        if char == "|":
            return char
        return self.letter(char)

    def brace(self) -> str:
        found = _QUANTIFIER.match(self.pattern, self.at - 1)
        if found is None or (found.group(1) == "" and found.group(2) is None):
            return _char("{")
        self.at = found.end()
        low, comma, high = found.group(1) or "0", found.group(2) or "", found.group(3) or ""
        if self.pattern[self.at : self.at + 1] == "+":
            raise self.refuse("a possessive quantifier")
        return f"{{{low}{comma}{high}}}"

    def escape(self) -> str:
        if self.at >= len(self.pattern):
            raise self.refuse("a trailing backslash")
        char = self.pattern[self.at]
        self.at += 1
        if char in _OUTSIDE:
            return _OUTSIDE[char]
        if char.isdigit():
            if char == "0" or self.pattern[self.at : self.at + 1].isdigit():
                raise self.refuse("an octal escape or a two-digit group number")
            if self.folding:
                raise self.refuse("a group number with case ignored")
            return f"\\{char}"
        return self.literal_escape(char)

    def literal_escape(self, char: str) -> str:
        """``\\n``, ``\\x41``, ``\\u00e9``, ``\\.``: one character, written for JavaScript."""
        return self.letter(self.escaped(char))

    def escaped(self, char: str) -> str:
        """The one character ``\\n``, ``\\x41``, ``\\u00e9`` or ``\\.`` stands for."""
        if char in _CONTROL:
            return _CONTROL[char]
        sizes = {"x": 2, "u": 4, "U": 8}
        if char in sizes:
            digits = self.pattern[self.at : self.at + sizes[char]]
            self.at += sizes[char]
            return chr(int(digits, 16))
        if char.isalnum():
            raise self.refuse(f"the escape \\{char}")
        return char

    def char_class(self) -> str:
        negated = self.pattern[self.at : self.at + 1] == "^"
        self.at += negated
        items: list[str] = []
        chars: list[str] = []  # the characters named one by one or in ranges
        while True:
            if self.at >= len(self.pattern):
                raise self.refuse("an unclosed [")
            char = self.pattern[self.at]
            self.at += 1
            if char == "]" and (items or chars):
                break
            if char == "\\":
                escape = self.class_escape()
                if len(escape) > 1:
                    items.append(escape)
                    continue
                char = escape
            elif char == "[" and self.pattern[self.at : self.at + 1] in (":", "=", "."):
                raise self.refuse("a nested set")
            rest = self.pattern[self.at : self.at + 2]
            if rest[:1] == "-" and rest[1:] not in ("]", ""):
                self.at += 1
                items.append(self.class_range(char, chars))
                continue
            chars.append(char)
            items.append(_char(char))
        if self.folding:
            extra = {v for c in chars for v in _variants(c)} - set(chars)
            items += [_char(v) for v in sorted(extra)]
        return "[" + ("^" if negated else "") + "".join(items) + "]"

    def class_range(self, low: str, chars: list[str]) -> str:
        """``a-z`` in a class (the ``-`` read); with case ignored, ``chars`` gets each one."""
        high = self.pattern[self.at]
        self.at += 1
        if high == "\\":
            high = self.class_escape()
            if len(high) > 1:
                raise self.refuse("a range ending in a class")
        if self.folding and ord(high) - ord(low) > 256:
            raise self.refuse("a long range with case ignored")
        if self.folding:
            chars += [chr(c) for c in range(ord(low), ord(high) + 1)]
        return f"{_char(low)}-{_char(high)}"

    def class_escape(self) -> str:
        """A class escape's TypeScript (``\\p{Nd}``...), or the one character it stands for."""
        char = self.pattern[self.at]
        self.at += 1
        if char in _CLASS_ESCAPES:
            return _CLASS_ESCAPES[char]
        if char == "b":
            return "\b"
        if char.isdigit() or char in "DWSABZ":
            raise self.refuse(f"\\{char} inside [...]")
        return self.escaped(char)

    def group(self) -> str:
        self.depth += 1
        if self.pattern[self.at : self.at + 1] != "?":
            return "("
        if self.pattern.startswith("?i:", self.at):
            self.at += 3
            self.scoped.append(self.depth)
            return "(?:"
        for python, script in (
            ("?:", "(?:"),
            ("?=", "(?="),
            ("?!", "(?!"),
            ("?<=", "(?<="),
            ("?<!", "(?<!"),
        ):
            if self.pattern.startswith(python, self.at):
                self.at += len(python)
                return script
        named = re.compile(r"\?P?<([A-Za-z_][A-Za-z0-9_]*)>").match(self.pattern, self.at)
        if named is not None:
            self.at = named.end()
            return f"(?<{named.group(1)}>"
        back = re.compile(r"\?P=([A-Za-z_][A-Za-z0-9_]*)\)").match(self.pattern, self.at)
        if back is not None:
            self.at = back.end()
            self.depth -= 1
            if self.folding:
                raise self.refuse("a group reference with case ignored")
            return f"\\k<{back.group(1)}>"
        raise self.refuse("an inline flag, comment, atomic or conditional group")


def js_regex(
    pattern: str, *, multiline: bool = False, dot_all: bool = False, ignore_case: bool = False
) -> str:
    """The JavaScript source (for ``new RegExp(source, 'u')``, never the ``i``, ``m`` or
    ``s`` flags: case, lines and dots are written out) matching what ``pattern`` does.

    Raises :class:`Untranslatable` naming the pattern when a part of it reads differently.
    """
    source = _Reader(pattern, multiline, dot_all, ignore_case).translate()
    try:
        re.compile(pattern)
    except re.error as error:  # pragma: no cover - specs are validated before export
        raise Untranslatable(f"the regular expression {pattern!r} ({error})") from None
    return source
