"""The text of files people hand us (examples, grades, scorer specs, traces): how their
bytes become text, and how JSON-lines text splits into lines.

:func:`decode_input` reads UTF-8 (with or without a byte-order mark) and, because Excel and
Windows tools save "Unicode text" that way, UTF-16 and UTF-32: with their byte-order mark, or
UTF-16 without one when its zero bytes say so (ASCII text in UTF-16 has a zero byte beside
every letter). Line endings may be LF, CRLF or, as old Mac files have them, CR alone. What is
not text in any of these (a byte that fits no encoding, a NUL character) is refused with its
line, in words (:class:`NotText`), and never quoted: the bytes may be anything.

:func:`json_lines` splits on line feeds only. ``str.splitlines`` also breaks at U+2028,
U+2029, U+0085 and other characters that are ordinary text inside a JSON string, so a row
holding one would be cut in two.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator

_SAMPLE = 4096
"""How many leading bytes decide whether BOM-less text is UTF-16 (its zero bytes)."""
_ZERO_SHARE = 0.3
"""The share of zero bytes at odd (or even) offsets that marks UTF-16 little (or big) endian."""
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),  # before UTF-16: it starts with FF FE too
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)
SAVE_AS_UTF8 = "save it as UTF-8 (in Excel: CSV UTF-8) and try again"


class NotText(ValueError):
    """Bytes that are not text in any encoding we read; ``line`` is 1-based, ``words`` say
    what is wrong and what to do (and never quote the bytes)."""

    def __init__(self, line: int, words: str) -> None:
        self.line = line
        self.words = words
        super().__init__(f"line {line}: {words}")


def decode_input(data: bytes) -> str:
    """The text of a file's bytes (see the module's docstring), with CR-only line endings
    turned into line feeds; :class:`NotText` naming the line when it is not text."""
    encoding, name, skip = _encoding(data)
    body = data[skip:]
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as error:
        line = _line_before(body[: error.start], encoding)
        raise NotText(line, _not_text_words(name)) from None
    nul = text.find("\x00")
    if nul >= 0:
        raise NotText(
            text.count("\n", 0, nul) + 1,
            "the file holds a NUL character, which no text file of this kind has "
            f"(it may be a program or a picture); {SAVE_AS_UTF8}",
        )
    if "\r" in text and "\n" not in text:  # CR alone ends each line (old Mac files)
        text = text.replace("\r", "\n")
    return text


def _encoding(data: bytes) -> tuple[str, str, int]:
    """(codec, name for people, bytes of byte-order mark to skip)."""
    for bom, codec, name in _BOMS:
        if data.startswith(bom):
            return codec, name, len(bom)
    sample = data[:_SAMPLE]
    if b"\x00" in sample and len(sample) >= 2:
        odd_zeros = sample[1::2].count(0) / len(sample[1::2])
        even_zeros = sample[0::2].count(0) / len(sample[0::2])
        if odd_zeros >= _ZERO_SHARE and even_zeros < _ZERO_SHARE:
            return "utf-16-le", "UTF-16", 0
        if even_zeros >= _ZERO_SHARE and odd_zeros < _ZERO_SHARE:
            return "utf-16-be", "UTF-16", 0
    return "utf-8", "UTF-8", 0


def _line_before(prefix: bytes, encoding: str) -> int:
    return prefix.decode(encoding, errors="replace").count("\n") + 1


def _not_text_words(name: str) -> str:
    if name == "UTF-8":
        return f"the file is not UTF-8 text (nor UTF-16) from this line on; {SAVE_AS_UTF8}"
    return (
        f"the file starts as {name} text, but is not {name} from this line on (it is not "
        f"UTF-8 text either); {SAVE_AS_UTF8}"
    )


def json_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, line) of each line of JSON-lines text that is not blank; lines
    end at a line feed only (a CR before it is dropped), never at U+2028 or U+0085."""
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield number, line.removesuffix("\r")
