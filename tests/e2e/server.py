"""The real studio server for the browser tests and the studio benchmark: seed a database
with the real command, start `scorer-studio ui` on a free port of 127.0.0.1, stop it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
JUDGE_KEY_ENV = "E2E_JUDGE_KEY"
"""The environment variable that holds the fake judge's key in the tests' studio process."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def sqlite_url(path: Path) -> str:
    """The database URL of a SQLite file."""
    return f"sqlite:///{path}"


def seed_database(database_url: str) -> None:
    """Load the demo scorers and datasets of data/ with the real command (what `make run` does)."""
    env = {**os.environ, "SCORER_STUDIO_DATABASE_URL": database_url}
    command = [str(BIN / "scorer-studio"), "seed", "--data-dir", str(ROOT / "data")]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"`scorer-studio seed` failed:\n{done.stdout}{done.stderr}")


@dataclass
class StudioServer:
    """A running ``scorer-studio ui`` process (in its own process group) and its address."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def log_tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""

    def stop(self) -> None:
        """Stop the server and everything it started (Streamlit runs as a child process)."""
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def start_studio(
    database_url: str,
    *,
    log: Path,
    env: Mapping[str, str] | None = None,
    timeout_s: float = 60,
    unset: Collection[str] = (),
    cwd: Path | None = None,
    receiver_port: int | None = None,
) -> StudioServer:
    """Start ``scorer-studio ui`` on a free port; return once ``/_stcore/health`` answers ok.

    ``env`` is added to this process's environment, without the variables named in
    ``unset``; ``cwd`` is the studio's working folder (default: this process's). The OTLP
    receiver listens on ``receiver_port`` when one is given (none by default: most browser
    tests send no traces, and several studios may run at once).
    """
    port = free_port()
    receiver = (
        ["--no-receiver"] if receiver_port is None else ["--receiver-port", str(receiver_port)]
    )
    command = [str(BIN / "scorer-studio"), "ui", "--port", str(port), *receiver]
    environment = {**(env or {}), "SCORER_STUDIO_DATABASE_URL": database_url}
    return _start(
        command, port, log=log, env=environment, timeout_s=timeout_s, unset=unset, cwd=cwd
    )


def start_streamlit_app(app: Path, *, log: Path, timeout_s: float = 60) -> StudioServer:
    """Any Streamlit script, served the way `scorer-studio ui` serves the studio (for checking
    the browser helpers themselves on a page made to misbehave)."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app),
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
    ]
    return _start(command, port, log=log, env={}, timeout_s=timeout_s)


def _start(
    command: list[str],
    port: int,
    *,
    log: Path,
    env: Mapping[str, str],
    timeout_s: float,
    unset: Collection[str] = (),
    cwd: Path | None = None,
) -> StudioServer:
    environment = {k: v for k, v in os.environ.items() if k not in unset} | dict(env)
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            env=environment,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # one process group: stopping it stops Streamlit too
        )
    server = StudioServer(f"http://127.0.0.1:{port}", process, log)
    try:
        wait_healthy(server, timeout_s)
    except BaseException:
        server.stop()
        raise
    return server


def wait_healthy(server: StudioServer, timeout_s: float) -> None:
    """Return once the server's health check answers ok; fail with its log if it dies."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=2) as reply:
                if reply.read() == b"ok":
                    return
        except OSError:
            pass
        if server.process.poll() is not None:
            raise RuntimeError(f"the studio exited at start:\n{server.log_tail()}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"the studio did not answer in {timeout_s} s:\n{server.log_tail()}")
        time.sleep(0.02)  # polling a port that is not open yet: there is no event to wait on


@contextmanager
def running_studio(
    database_url: str,
    *,
    log: Path,
    env: Mapping[str, str] | None = None,
    unset: Collection[str] = (),
    cwd: Path | None = None,
    receiver_port: int | None = None,
) -> Iterator[StudioServer]:
    """The studio for the length of a ``with`` block (arguments as :func:`start_studio`'s)."""
    server = start_studio(
        database_url, log=log, env=env, unset=unset, cwd=cwd, receiver_port=receiver_port
    )
    try:
        yield server
    finally:
        server.stop()
