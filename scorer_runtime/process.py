"""Which process runs a batch run, and whether it still lives: ``host:pid`` and one check.

A running run records its runner as ``host:pid`` (:func:`this_runner`). The store (taking
over a crashed run, cancelling one) and the batch engine and studio (showing a run as
crashed) ask :func:`runner_is_gone` — one check, here, because the store cannot import the
batch engine. Standard library only.
"""

from __future__ import annotations

import os
import socket


def this_runner() -> str:
    """``host:pid`` of this process, as stored on the runs it runs."""
    return f"{socket.gethostname()}:{os.getpid()}"


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, under another user
        return True
    return True


def runner_is_gone(runner: str | None) -> bool:
    """Whether the recorded runner (``host:pid``) was a process on this host that has ended.

    A runner on another host (or none recorded) is never taken as gone: its heartbeat
    alone tells.
    """
    host, _, pid = (runner or "").rpartition(":")
    return host == socket.gethostname() and pid.isdigit() and not pid_alive(int(pid))


__all__ = ["pid_alive", "runner_is_gone", "this_runner"]
