"""``scorer-studio receive`` in a process of its own (for the kill -9 test and the benchmark):
started on a free port, its address read from the line it prints once it listens."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_LISTENING = re.compile(r"on (http://\S+/v1/traces)")


@dataclass
class ReceiverProcess:
    """A running receiver: its process and where to send traces."""

    process: subprocess.Popen[str]
    endpoint: str


def start_receiver(db_url: str) -> ReceiverProcess:
    """Start a receiver on ``db_url`` and return once it listens (its first line says where).

    It is started as the studio starts its own (``--attached``): it stops when its standard
    input closes (:func:`stop_receiver`).
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-c", "from scorer_runtime.cli import main; main()"]
    command += ["--database-url", db_url, "receive", "--port", "0", "--attached"]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    found = _LISTENING.search(line)
    if found is None:
        process.kill()
        process.wait()
        raise RuntimeError(f"the receiver did not start: {line!r}")
    return ReceiverProcess(process, found.group(1))


@contextmanager
def receiver_process(db_url: str) -> Iterator[ReceiverProcess]:
    """A receiver for the block; stopped (its standard input closed, then killed if it
    lingers) at the end."""
    started = start_receiver(db_url)
    try:
        yield started
    finally:
        stop_receiver(started)


def stop_receiver(started: ReceiverProcess) -> None:
    """Close the receiver's standard input (it stops), kill it if it does not."""
    process = started.process
    if process.poll() is None and process.stdin is not None:
        process.stdin.close()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stdout is not None:
        process.stdout.close()
