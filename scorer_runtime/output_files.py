"""Files we write for people (exports of datasets, grades, scorers): all or nothing.

An export that fails half-way (a value that cannot be encoded, a full disk, a crash) must
never leave the person's file cut short or empty: what was there before is their data. So
every export is written to a temporary file beside the target and moved over it only once
complete (an atomic rename on the same file system); on failure the temporary file goes and
the target is as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO, TypeVar

T = TypeVar("T")


def write_whole(path: Path, write: Callable[[TextIO], T]) -> T:
    """Call ``write`` with a text stream (UTF-8, no newline translation) and put what it
    wrote at ``path`` only when it returns; returns what ``write`` returned."""
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            result = write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        if target.exists():
            with contextlib.suppress(OSError):  # keep the old file's permissions
                os.chmod(temporary, target.stat().st_mode & 0o777)
        else:
            os.chmod(temporary, 0o644)  # as a new file usually is (mkstemp's is 0o600)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    return result
