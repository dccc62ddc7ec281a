"""A runner that lives and dies with the process that started it (the studio).

:func:`start_attached_runner` starts ``scorer-studio worker --attached`` with a pipe as its
standard input; the runner stops when the pipe closes, which happens however its starter
ends (a clean exit, a crash, kill -9), so it never outlives the studio. ``scorer-studio ui``
starts one and then becomes Streamlit keeping the pipe open (its number in
``SCORER_STUDIO_RUNNER_PIPE``); the studio's "Start a runner" button starts one from the
studio process itself. The OTLP receiver ``ui`` starts beside the studio
(:func:`start_attached_receiver`) is attached the same way. :func:`share_keys` hands key
variables set in the studio after the runner started (a key pasted on the Judges page) to
such runners over the same pipe.
Streamlit-free.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

from scorer_runtime.store.engine import DATABASE_URL_ENV

RUNNER_PIPE_ENV = "SCORER_STUDIO_RUNNER_PIPE"
"""The file descriptor, in the studio's process, of the pipe to the runner ``ui`` started."""

_started: list[subprocess.Popen[bytes]] = []
"""Runners this process started (their pipes stay open while this process lives)."""
_lock = threading.Lock()


def cli_program() -> list[str]:
    """How to call ``scorer-studio``: the console script next to this Python, else ``-c``."""
    script = Path(sys.executable).with_name("scorer-studio")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from scorer_runtime.cli import main; main()"]


def start_attached_runner(
    database_url: str, *, environ: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start a runner on ``database_url`` that stops when this process's end of its standard
    input closes; it gets this process's environment (the judges' key variables)."""
    env = {**(os.environ if environ is None else environ)}
    env[DATABASE_URL_ENV] = database_url
    env["PYTHONUNBUFFERED"] = "1"
    env.pop(RUNNER_PIPE_ENV, None)
    # Our own program and fixed options, never a shell or user text.
    process = subprocess.Popen(  # noqa: S603
        [*cli_program(), "worker", "--attached"], stdin=subprocess.PIPE, env=env
    )
    with _lock:
        _started.append(process)
    return process


def start_attached_receiver(
    database_url: str, port: int, *, environ: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start the OTLP receiver (``scorer-studio receive``) on 127.0.0.1:``port`` and
    ``database_url``, stopping, as an attached runner does, when this process's end of its
    standard input closes."""
    env = {**(os.environ if environ is None else environ)}
    env[DATABASE_URL_ENV] = database_url
    env["PYTHONUNBUFFERED"] = "1"
    env.pop(RUNNER_PIPE_ENV, None)
    command = [*cli_program(), "receive", "--port", str(port), "--attached"]
    # Our own program and fixed options, never a shell or user text.
    return subprocess.Popen(command, stdin=subprocess.PIPE, env=env)  # noqa: S603


def started_runners_alive() -> bool:
    """Whether a runner this process started still runs."""
    with _lock:
        return any(p.poll() is None for p in _started)


def stop_started_runners(timeout_s: float = 15) -> None:
    """Close the pipes of the runners this process started and wait for them to stop."""
    with _lock:
        started, _started[:] = list(_started), []
    for process in started:
        with contextlib.suppress(OSError):
            if process.stdin is not None:
                process.stdin.close()
    for process in started:
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _pipes() -> list[int]:
    with _lock:
        fds = [p.stdin.fileno() for p in _started if p.stdin is not None and p.poll() is None]
    inherited = os.environ.get(RUNNER_PIPE_ENV, "")
    if inherited.isdigit():
        fds.append(int(inherited))
    return fds


def share_keys(names: Iterable[str]) -> None:
    """Hand the values of these variables (those set here) to the runners attached to this
    process, so a key set after they started is theirs too. Nothing is written anywhere else."""
    given = {name: os.environ[name] for name in names if os.environ.get(name)}
    if not given:
        return
    line = (json.dumps({"env": given}) + "\n").encode()
    for fd in _pipes():
        with contextlib.suppress(OSError):  # a runner that ended: nothing to tell it
            os.write(fd, line)
