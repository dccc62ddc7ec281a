"""Files people hand us (scorer specs, example and grade files, traces): checked before
they are read.

A path may name something that never ends (``/dev/zero``, ``/dev/urandom``), never answers
(a FIFO), or is not a file at all (a folder, a socket), directly or through a symlink; a
file may be far larger than any real one of its kind. :func:`read_limited` opens the path
once, checks what it opened is a regular file no larger than the limit of its kind, and
reads at most that many bytes (a file that grows while it is read is refused too), so no
path can hang the process or exhaust its memory. A refusal is an ``OSError`` whose words
name the file and what to do, never its content.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from scorer_runtime.limits import size_words

_CHUNK = 1024 * 1024


class UnreadableFile(OSError):
    """A file that was not read: not a regular file, or over the limit of its kind."""

    def __init__(self, path: Path, words: str) -> None:
        super().__init__(errno.EINVAL, words, str(path))
        self.words = words

    def __str__(self) -> str:
        return self.words


def read_limited(path: str | os.PathLike[str], *, limit: int, what: str) -> bytes:
    """The bytes of the regular file at ``path`` (a symlink is followed only to one), at
    most ``limit`` of them; :class:`UnreadableFile` naming ``what`` the file is otherwise."""
    return b"".join(read_chunks(path, limit=limit, what=what))


def read_chunks(path: str | os.PathLike[str], *, limit: int, what: str) -> Iterator[bytes]:
    """The bytes of the regular file at ``path`` in chunks of 1 MB, checked as
    :func:`read_limited` checks them (before the first chunk: what it is and its size; while
    reading: that it does not grow past ``limit``), for a reader that keeps only a chunk."""
    file = Path(path)
    # O_NONBLOCK: opening a FIFO would otherwise wait for a writer that never comes.
    descriptor = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        found = os.fstat(descriptor)
        if not stat.S_ISREG(found.st_mode):
            raise UnreadableFile(
                file,
                f"{file.name} is {_kind(found.st_mode)}, not a file: "
                f"save the {what} to a file and choose that file",
            )
        if found.st_size > limit:
            raise _too_big(file, what, found.st_size, limit)
        total = 0
        while chunk := os.read(descriptor, _CHUNK):
            total += len(chunk)
            if total > limit:
                raise _too_big(file, what, total, limit, still_growing=True)
            yield chunk
    finally:
        os.close(descriptor)


def _too_big(
    file: Path, what: str, size: int, limit: int, *, still_growing: bool = False
) -> UnreadableFile:
    return UnreadableFile(
        file,
        f"{file.name} is {'over ' if still_growing else ''}{size_words(size)}; the limit for "
        f"a {what} is {size_words(limit)}: split it into smaller files",
    )


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"
