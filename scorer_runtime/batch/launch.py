"""Runs in the background: a detached ``scorer-studio run --resume ID`` process per run.

The caller (the studio's Runs page) creates the run row first (so it knows the id), then
starts the command line in its own session, with its output in a log file under the system
temp dir. The process outlives whoever started it; the run row in the database is how it is
followed. A small record next to the log (pid and launch time) tells whether the process that
was started for a run is still alive — before it has marked the run running, that is the only
sign it exists — and lets the caller stop a run that has not begun. Whether the process a
running run names as its runner has ended is :func:`scorer_runtime.process.runner_is_gone`.
Streamlit-free.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from scorer_runtime.process import pid_alive
from scorer_runtime.secrets import environment_secrets, redact
from scorer_runtime.store import DATABASE_URL_ENV

RUNS_DIR_NAME = "scorer-studio-runs"
"""The folder under the system temp dir that holds the runs' logs and launch records."""


@dataclass(frozen=True, slots=True)
class Launcher:
    """The process started for a run: its id, when it started, and whether it is alive."""

    pid: int
    launched_at: datetime
    alive: bool


def runs_dir() -> Path:
    """Where logs and launch records go (the system temp dir, read when called)."""
    return Path(tempfile.gettempdir()) / RUNS_DIR_NAME


def _stem(database_url: str, run_id: int) -> str:
    # Run ids repeat across databases; the URL's hash keeps their files apart.
    digest = hashlib.sha256(database_url.encode()).hexdigest()[:12]
    return f"run-{digest}-{run_id}"


def log_path(database_url: str, run_id: int) -> Path:
    """The file the run's process writes its output to."""
    return runs_dir() / f"{_stem(database_url, run_id)}.log"


def record_path(database_url: str, run_id: int) -> Path:
    """The launch record of the run's process (pid and launch time, as JSON)."""
    return runs_dir() / f"{_stem(database_url, run_id)}.json"


def cli_program() -> list[str]:
    """How to call ``scorer-studio``: the console script next to this Python, else ``-c``."""
    script = Path(sys.executable).with_name("scorer-studio")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from scorer_runtime.cli import main; main()"]


def cli_command(*, run_id: int, scorer: str, dataset: str, concurrency: int) -> list[str]:
    """The command that runs (or resumes) ``run_id``. Names come after ``--``, so a name
    that starts with a dash is never read as an option."""
    options = ["run", "--resume", str(run_id), "--concurrency", str(concurrency)]
    return [*cli_program(), *options, "--", scorer, dataset]


def launch_run(
    *,
    database_url: str,
    run_id: int,
    scorer: str,
    dataset: str,
    concurrency: int,
    environ: Mapping[str, str] | None = None,
) -> Launcher:
    """Start the run's process in its own session and return at once.

    The process gets the studio's environment (so the judges' key variables), with the
    database URL set to ``database_url``. A thread waits for it, so it never lingers as a
    zombie that would look alive.
    """
    runs_dir().mkdir(parents=True, exist_ok=True)
    env = {**(os.environ if environ is None else environ)}
    env[DATABASE_URL_ENV] = database_url
    env["PYTHONUNBUFFERED"] = "1"
    command = cli_command(run_id=run_id, scorer=scorer, dataset=dataset, concurrency=concurrency)
    with log_path(database_url, run_id).open("ab") as log:
        # The command is our own program and the ids and names of stored rows, never a shell.
        process = subprocess.Popen(  # noqa: S603
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    threading.Thread(target=process.wait, name=f"reap-run-{run_id}", daemon=True).start()
    launched = datetime.now(UTC)
    record = {"pid": process.pid, "launched_at": launched.isoformat()}
    record_path(database_url, run_id).write_text(json.dumps(record), encoding="utf-8")
    return Launcher(process.pid, launched, alive=True)


def launcher(database_url: str, run_id: int) -> Launcher | None:
    """The process started for the run from this machine (None when there is no record)."""
    try:
        record = json.loads(record_path(database_url, run_id).read_text(encoding="utf-8"))
        pid = int(record["pid"])
        launched = datetime.fromisoformat(record["launched_at"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return Launcher(pid, launched, alive=pid_alive(pid))


def stop_launcher(database_url: str, run_id: int) -> bool:
    """End the run's process and its children (SIGTERM to its session); False if none runs."""
    found = launcher(database_url, run_id)
    if found is None or not found.alive:
        return False
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(found.pid, signal.SIGTERM)
        return True
    return False


def log_tail(database_url: str, run_id: int, *, lines: int = 30) -> str:
    """The last lines the run's process wrote ("" when there is no log), redacted: what the
    process printed was redacted already, this also covers what a library printed."""
    try:
        text = log_path(database_url, run_id).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return redact("\n".join(text.splitlines()[-lines:]), environment_secrets())


def launch_error(database_url: str, run_id: int) -> str | None:
    """The error the command line reported (its last ``error:`` line), or None."""
    for line in reversed(log_tail(database_url, run_id, lines=200).splitlines()):
        if line.startswith("error:"):
            return line.removeprefix("error:").strip()
    return None
