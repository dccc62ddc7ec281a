"""`scorer-studio ui` (what `make run` starts) serves the studio on 127.0.0.1 only."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening_addresses(port: int) -> set[str]:
    """Local addresses listening on ``port``, read from the kernel's socket tables."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, port_hex = local.rsplit(":", 1)
            if state == "0A" and int(port_hex, 16) == port:  # 0A = LISTEN
                found.add(address)
    return found


@pytest.fixture
def studio(tmp_path):
    port = _free_port()
    env = {**os.environ, "SCORER_STUDIO_DATABASE_URL": f"sqlite:///{tmp_path / 'studio.db'}"}
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "scorer-studio"), "ui", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        yield port, process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


def test_the_studio_serves_on_loopback_only(studio):
    port, process = studio
    deadline = time.monotonic() + 60
    body = b""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                body = r.read()
                break
        except OSError:
            if process.poll() is not None:
                pytest.fail(f"the studio exited: {process.stdout.read().decode()[-2000:]}")
            time.sleep(0.2)
    assert body == b"ok"
    assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1, and nothing else
