"""Keys a person pastes on the Judges page: kept in the studio's environment, and when asked
also remembered in a ``.env`` file (mode 0600) that ``scorer-studio ui`` and ``run`` read
at start.

The key is never written to the database, an export or a log, and never shown back: only
whether its variable is set. The studio's environment is what the judge client reads, and
what every run the studio starts inherits, so one paste serves Test connection, Try it and
runs alike.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from dotenv import set_key

ENV_FILE = ".env"
"""The file of remembered keys, in the folder the studio was started from."""
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class PastedKeyError(ValueError):
    """A pasted key that cannot be used, with what to do (a sentence for the page)."""


@dataclass(frozen=True, slots=True)
class KeyOutcome:
    """Where a pasted key went, for the sentence the page shows."""

    env: str
    remembered_in: Path | None

    def sentence(self) -> str:
        """What happened to the key, in plain words."""
        kept = (
            f"The key for {self.env} is set. The studio keeps it in memory until it stops: "
            "Test connection, Try it and the runs started from the studio use it."
        )
        if self.remembered_in is None:
            return kept + " Paste it again after restarting the studio, or tick 'Also remember it'."
        return (
            f"{kept} It is also remembered in {self.remembered_in} (readable only by you), "
            "which the studio and `scorer-studio run` read when they start."
        )


def use_key(env: str, key: str, *, remember: bool, folder: Path | None = None) -> KeyOutcome:
    """Set ``env`` to ``key`` in this process's environment; when ``remember``, also write it
    to ``.env`` of ``folder`` (default: the working folder). Raises PastedKeyError with a sentence
    when the name or the key cannot be used."""
    env, key = env.strip(), key.strip()
    if not env:
        raise PastedKeyError(
            "Write where the key is kept first: the name of its setting, for example "
            "OPENAI_API_KEY."
        )
    if not _ENV_NAME.fullmatch(env):
        raise PastedKeyError(
            f"'{env}' cannot be a variable name: use letters, digits and underscores, "
            "for example OPENAI_API_KEY."
        )
    if not key:
        raise PastedKeyError("Paste the key into the box first.")
    if any(c in key for c in "\r\n\0"):
        raise PastedKeyError("The key has a line break in it: copy it again, on one line.")
    path = None
    if remember:
        path = remember_key((folder or Path.cwd()) / ENV_FILE, env, key)
    os.environ[env] = key
    return KeyOutcome(env, path)


def remember_key(path: Path, env: str, key: str) -> Path:
    """Write ``env=key`` to the ``.env`` file at ``path``: created readable only by its owner
    (0600), the variable updated in place when present, other lines kept, the file replaced
    at once (never half-written)."""
    if path.exists():
        path.chmod(0o600)  # before the key is in it; the rewrite keeps this mode
    else:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    set_key(path, env, key, quote_mode="always")
    path.chmod(0o600)
    return path.resolve()
