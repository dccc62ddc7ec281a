"""The text of files people hand us (examples, grades, scorer specs, traces): how their
bytes become text, and how JSON-lines text splits into lines.

:func:`decode_input` reads UTF-8 (with or without a byte-order mark) and, because Excel and
Windows tools save "Unicode text" that way, UTF-16 and UTF-32: with their byte-order mark, or
UTF-16 without one when its zero bytes say so (ASCII text in UTF-16 has a zero byte beside
every letter). Line endings may be LF, CRLF or, as old Mac files have them, CR alone. What is
not text in any of these (a byte that fits no encoding, a NUL character) is refused with its
line, in words (:class:`NotText`), and never quoted: the bytes may be anything.

:func:`text_lines` reads a file's chunks as :func:`decode_input` reads its bytes, one line at
a time, so an import holds one line, not the file. :func:`json_lines` splits on line feeds
only. ``str.splitlines`` also breaks at U+2028,
U+2029, U+0085 and other characters that are ordinary text inside a JSON string, so a row
holding one would be cut in two.
"""

from __future__ import annotations

import codecs
import itertools
from collections.abc import Iterable, Iterator

_SAMPLE = 4096
"""How many leading bytes decide whether BOM-less text is UTF-16 (its zero bytes)."""
_HEAD = 64 * 1024
"""How much of the start decides that lines end with CR alone (no line feed in it)."""
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
    _refuse_nul(text, 1)
    return text.replace("\r", "\n") if _cr_only(text[:_HEAD]) else text


def text_lines(chunks: Iterable[bytes]) -> Iterator[str]:
    """The lines of a file given as chunks of bytes, read as :func:`decode_input` reads it,
    one at a time: each ends with a line feed (CR-only endings turned into one; a CRLF
    ending is kept), the last one when the file does. Only a chunk and a line are held."""
    chunks = iter(chunks)
    head = b""
    for chunk in chunks:  # enough of the start to tell the encoding and the line endings
        head += chunk
        if len(head) >= _HEAD:
            break
    encoding, name, skip = _encoding(head)
    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    line, pending, cr_only = 1, [], None  # pending: the unended text of ``line``, in pieces
    for data in itertools.chain([head[skip:]], chunks, [None]):
        try:
            text = decoder.decode(data or b"", final=data is None)
        except UnicodeDecodeError as error:
            before = (data or b"")[: max(error.start, 0)].decode(encoding, errors="replace")
            raise NotText(line + before.count("\n"), _not_text_words(name)) from None
        if cr_only is None:
            cr_only = _cr_only(text)
        if cr_only:
            text = text.replace("\r", "\n")
        _refuse_nul(text, line)
        if "\n" not in text:  # a long line: keep its pieces, join them once it ends
            pending.append(text)
            continue
        first, *ended, rest = text.split("\n")
        yield "".join([*pending, first, "\n"])
        for part in ended:
            yield part + "\n"
        line += 1 + len(ended)
        pending = [rest]
    if any(pending):
        yield "".join(pending)


def _cr_only(head: str) -> bool:
    """Whether text starting with ``head`` ends its lines with CR alone (old Mac files)."""
    return "\r" in head and "\n" not in head


def _refuse_nul(text: str, line: int) -> None:
    """:class:`NotText` when ``text`` (starting on ``line``) holds a NUL character."""
    nul = text.find("\x00")
    if nul >= 0:
        raise NotText(
            line + text.count("\n", 0, nul),
            "the file holds a NUL character, which no text file of this kind has "
            f"(it may be a program or a picture); {SAVE_AS_UTF8}",
        )


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
