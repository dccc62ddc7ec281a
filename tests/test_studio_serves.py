"""`scorer-studio ui` (what `make run` starts) serves the studio on 127.0.0.1 only, and only to
requests addressed to it: a foreign ``Host`` (DNS rebinding) gets 403 on HTTP and on the
websocket upgrade."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from http.client import HTTPConnection
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


def _healthy(studio) -> int:
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
    return port


def test_the_studio_serves_on_loopback_only(studio):
    port = _healthy(studio)
    assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1, and nothing else


def _status(port: int, host: str, path: str = "/", headers: dict[str, str] | None = None) -> int:
    connection = HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest("GET", path, skip_host=True)
        for name, value in {"Host": host, **(headers or {})}.items():
            connection.putheader(name, value)
        connection.endheaders()
        return connection.getresponse().status
    finally:
        connection.close()


def _upgrade(port: int, host: str) -> int:
    """The status of a websocket upgrade of the studio's stream with ``Host``/``Origin`` host."""
    headers = {
        "Origin": f"http://{host}",
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    }
    return _status(port, host, "/_stcore/stream", headers)


def test_a_foreign_host_name_gets_403_on_http_and_on_the_websocket(studio):
    port = _healthy(studio)
    rebound = "attacker.rebind.example"
    assert _status(port, rebound) == 403
    assert _status(port, f"{rebound}:{port}", "/_stcore/health") == 403
    assert _upgrade(port, f"{rebound}:{port}") == 403
    assert _status(port, f"localhost:{port}") == 200
    assert _status(port, f"127.0.0.1:{port}") == 200
    assert _upgrade(port, f"127.0.0.1:{port}") == 101
