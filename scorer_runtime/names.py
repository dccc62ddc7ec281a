"""The names people give scorers, datasets and judges: checked so that every name reads as
what it is, and no two names read the same.

:func:`name_problem` says what is wrong with a new name, naming the character and where it
is ("the name holds a zero-width space (U+200B) after 'judge-'"): control characters (line
breaks, tabs, escape codes), invisible format characters (zero-width spaces and joiners,
bidi overrides that reverse the text on screen), spaces other than the plain one, a space at
either end, a slash or backslash (a name is never a path), and letters of two alphabets that
look alike mixed in one name. The last is Unicode TR39's mixed-script test at its
"moderately restrictive" level: Latin may go with one other alphabet (Japanese, Chinese and
Korean with theirs), but never with Cyrillic or Greek, whose letters are drawn like Latin
ones ("judge-p1" with the Cyrillic letter er, U+0440, for its "p" reads "judge-p1"). A
character's alphabet is the first word of its Unicode name, read from ``unicodedata``
(Python has no script property).

:func:`look_alike` finds an existing name that reads the same as a new one written wholly in
another alphabet or in other forms of the same letters ("judge" in full-width letters from
U+FF4A, "filter" with the ligature U+FB01): both are compared by a *look-alike key*, NFKC
with the Cyrillic and Greek letters that are drawn as Latin ones replaced by those. This is
a subset of TR39's confusable skeleton: the table below is ours, not Unicode's
``confusables.txt`` (no library holding it is installed), and covers only letters that look
like the 26 Latin ones; look-alikes within Latin (``l`` and ``1``, ``rn`` and ``m``) are not
compared.

Names are NFC-normalised (:func:`normal_name`) before they are checked, stored or looked up,
so the same name typed on two keyboards is one name.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable

_SHOWN_BEFORE = 24
"""How much of the name before a bad character a message quotes."""

_CONTROL_WORDS = {
    "\n": "a line break",
    "\r": "a carriage return",
    "\t": "a tab",
    "\x1b": "an escape character",
    "\x00": "a NUL character",
    "\x7f": "a delete character",
}
_SEPARATORS = {"/": "a slash (/)", "\\": "a backslash (\\)"}
_ODD_CATEGORIES = {
    "Cs": "half of a surrogate pair, which is no character",
    "Co": "a private-use character, which shows differently on every computer",
    "Cn": "a character Unicode does not define",
}

_SCRIPT_WORDS = {"CJK": "HAN", "IDEOGRAPHIC": "HAN", "KATAKANA-HIRAGANA": "KATAKANA"}
"""First words of character names that name a script by another word."""
_NOT_SCRIPTS = frozenset({"MODIFIER", "CARON", "TURNED", "VERTICAL", "ROMAN", "MASU", "VEDIC"})
"""First words of letters' names that name no script (they go with any)."""
_EAST_ASIAN = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
"""Scripts written together (TR39: Japanese, Chinese, Korean, each with Latin)."""
_LOOK_LATIN = frozenset({"CYRILLIC", "GREEK"})
"""Scripts that never go with Latin in one name: their letters are drawn like Latin ones."""

_AS_LATIN = str.maketrans(
    # Cyrillic capitals and small letters drawn like Latin ones
    "АВЕЅІЈКМНОРСТХУӀаԁеһіјӏорԛѕԝхус"
    # Greek capitals and small letters drawn like Latin ones
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧαιορυνγ",
    "ABESIJKMHOPCTXYlad" + "ehijlopqswxyc" + "ABEZHIKMNOPTYXaiopuvy",
)
"""Letters of other alphabets drawn like Latin ones (ours, a subset of TR39's table)."""


def normal_name(name: str) -> str:
    """``name`` in Unicode's composed form (NFC): ``e`` + a combining accent is ``é``."""
    return unicodedata.normalize("NFC", name)


def name_problem(name: str, *, what: str = "name") -> str | None:
    """Why ``name`` (NFC-normalised) cannot name something, in words; None when it can.

    ``what`` is how the message calls it ("the name", "the dataset's name").
    """
    name = normal_name(name)
    if not name.strip():
        return f"the {what} is empty; give it a name"
    for index, char in enumerate(name):
        found = _bad_character(char)
        if found:
            words, advice = found
            return f"the {what} holds {words} {_where(name, index)}; {advice}"
    if name != name.strip(" "):
        end = "starts" if name[0] == " " else "ends"
        return f"the {what} {end} with a space; remove it"
    if set(name) <= {"."}:
        return f"the {what} cannot be only dots; use letters or digits"
    return _mixed_scripts(name, what)


def _bad_character(char: str) -> tuple[str, str] | None:
    """(``char`` in words, what to do) when a name must not hold it; None when it may."""
    code = f"U+{ord(char):04X}"
    if char in _SEPARATORS:
        return _SEPARATORS[char], "a name is not a path: use - or _ instead"
    category = unicodedata.category(char)
    if category == "Cc":
        words = _CONTROL_WORDS.get(char, "a control character")
        return f"{words} ({code})", "remove it"
    if category in ("Cf", "Zl", "Zp"):
        return f"{_character_words(char, 'an invisible character')} ({code})", "remove it"
    if category in _ODD_CATEGORIES:
        return f"{_ODD_CATEGORIES[category]} ({code})", "remove it"
    if category == "Zs" and char != " ":
        words = _character_words(char, "a space")
        return f"{words} ({code})", "write a plain space, or - or _, instead"
    return None


def _character_words(char: str, fallback: str) -> str:
    """``a zero-width space``: the character's Unicode name in lower case, with an article."""
    name = unicodedata.name(char, "").lower().replace("zero width", "zero-width")
    if not name:
        return fallback
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _where(name: str, index: int) -> str:
    if index == 0:
        return "at the start"
    before = name[:index]
    if len(before) > _SHOWN_BEFORE:
        before = "…" + before[-_SHOWN_BEFORE:]
    return f"after {before!r}"


def script_of(char: str) -> str | None:
    """The script of a letter, as the first word of its Unicode name (``LATIN``, ``CYRILLIC``,
    ``HAN``…); None for anything that goes with every script (digits, marks, punctuation)."""
    char = unicodedata.normalize("NFKC", char)[:1] or char
    if not unicodedata.category(char).startswith("L"):
        return None
    words = unicodedata.name(char, "").split()
    if not words or words[0] in _NOT_SCRIPTS:
        return None
    return _SCRIPT_WORDS.get(words[0], words[0])


def _mixed_scripts(name: str, what: str) -> str | None:
    """Why the letters of ``name`` mix alphabets that must not be mixed (TR39, moderately
    restrictive), naming the first letter of the second alphabet and where it is."""
    first: dict[str, int] = {}  # script -> index of its first letter
    letters: Counter[str] = Counter()
    for index, char in enumerate(name):
        script = script_of(char)
        if script is not None:
            first.setdefault(script, index)
            letters[script] += 1
    if _allowed(frozenset(first)):
        return None
    # The alphabet of fewest letters is the odd one ("judge-p1" with a Cyrillic "p").
    odd, *_ = sorted(first, key=lambda script: (letters[script], -first[script]))
    main = letters.most_common(1)[0][0]
    letter = name[first[odd]]
    return (
        f"the {what} mixes {odd.title()} letters with {main.title()} ones: {letter!r} "
        f"({odd.title()}, U+{ord(letter):04X}) {_where(name, first[odd])} looks like a "
        f"{main.title()} letter, so the {what} can read exactly like another; write it in "
        "one alphabet"
    )


def _allowed(scripts: frozenset[str]) -> bool:
    if len(scripts) <= 1 or any(scripts <= together for together in _EAST_ASIAN):
        return True
    return len(scripts) == 2 and "LATIN" in scripts and not scripts & _LOOK_LATIN


def look_alike_key(name: str) -> str:
    """What ``name`` looks like: NFKC, with letters of other alphabets drawn like Latin ones
    written as those (equal keys: names that read the same)."""
    return unicodedata.normalize("NFKC", name).translate(_AS_LATIN)


def look_alike(name: str, existing: Iterable[str]) -> str | None:
    """The first of ``existing`` that reads like ``name`` but is not it (None when none)."""
    key = look_alike_key(normal_name(name))
    return next(
        (other for other in existing if other != name and look_alike_key(other) == key), None
    )
