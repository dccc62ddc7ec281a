"""Python regular expressions rewritten as JavaScript ones that match the same text.

Python's ``re`` (on text) and JavaScript's ``RegExp`` (with the ``u`` flag) read many
signs differently: ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are Unicode-wide in Python and ASCII in
JavaScript, ``.`` and ``$`` stop at other line breaks, ``{`` alone is a letter in Python and
an error in JavaScript. Each of those is written out here so both match the same text; a
pattern using anything else (inline flags, atomic groups, conditionals, octal escapes...) is
refused with the reason, never translated to something that matches differently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


@dataclass
class _Reader:
    pattern: str
    multiline: bool
    dot_all: bool
    at: int = 0

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
        if char in ")|":
            return char
        return _char(char)

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
            return f"\\{char}"
        return self.literal_escape(char)

    def literal_escape(self, char: str) -> str:
        """``\\n``, ``\\x41``, ``\\u00e9``, ``\\.``: one character, written for JavaScript."""
        if char in _CONTROL:
            return _char(_CONTROL[char])
        sizes = {"x": 2, "u": 4, "U": 8}
        if char in sizes:
            digits = self.pattern[self.at : self.at + sizes[char]]
            self.at += sizes[char]
            return _char(chr(int(digits, 16)))
        if char.isalnum():
            raise self.refuse(f"the escape \\{char}")
        return _char(char)

    def char_class(self) -> str:
        out = ["["]
        if self.pattern[self.at : self.at + 1] == "^":
            out.append("^")
            self.at += 1
        first = True
        while True:
            if self.at >= len(self.pattern):
                raise self.refuse("an unclosed [")
            char = self.pattern[self.at]
            self.at += 1
            if char == "]" and not first:
                return "".join(out) + "]"
            first = False
            if char == "\\":
                out.append(self.class_escape())
            elif char == "[" and self.pattern[self.at : self.at + 1] in (":", "=", "."):
                raise self.refuse("a nested set")
            elif char in "-":
                out.append("-")
            else:
                out.append(_char(char))

    def class_escape(self) -> str:
        char = self.pattern[self.at]
        self.at += 1
        if char in _CLASS_ESCAPES:
            return _CLASS_ESCAPES[char]
        if char == "b":
            return _char("\b")
        if char.isdigit() or char in "DWSABZ":
            raise self.refuse(f"\\{char} inside [...]")
        return self.literal_escape(char)

    def group(self) -> str:
        if self.pattern[self.at : self.at + 1] != "?":
            return "("
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
            return f"\\k<{back.group(1)}>"
        raise self.refuse("an inline flag, comment, atomic or conditional group")


def js_regex(pattern: str, *, multiline: bool = False, dot_all: bool = False) -> str:
    """The JavaScript source (for ``new RegExp(source, 'u')``) matching what ``pattern`` does.

    Raises :class:`Untranslatable` naming the pattern when a part of it reads differently.
    """
    source = _Reader(pattern, multiline, dot_all).translate()
    try:
        re.compile(pattern)
    except re.error as error:  # pragma: no cover - specs are validated before export
        raise Untranslatable(f"the regular expression {pattern!r} ({error})") from None
    return source
