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
    yield from _studio(tmp_path, "--no-receiver")


@pytest.fixture
def studio_with_receiver(tmp_path):
    yield from _studio(tmp_path, "--receiver-port", str(_free_port()), "--no-runner")


def _studio(tmp_path, *options):
    port = _free_port()
    env = {**os.environ, "SCORER_STUDIO_DATABASE_URL": f"sqlite:///{tmp_path / 'studio.db'}"}
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "scorer-studio"), "ui", "--port", str(port), *options],
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


def _receiver_of(studio_pid: int) -> tuple[int, int]:
    """The pid and port of the receiver ``ui`` started (a child of the studio's process)."""
    children = Path(f"/proc/{studio_pid}/task/{studio_pid}/children").read_text().split()
    for child in children:
        words = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
        if b"receive" in words:
            return int(child), int(words[words.index(b"--port") + 1])
    raise AssertionError(f"no receiver among the studio's children {children}")


def test_ui_starts_the_receiver_on_loopback_and_it_stops_with_the_studio(studio_with_receiver):
    import select

    _healthy(studio_with_receiver)
    studio_pid = studio_with_receiver[1].pid
    receiver_pid, receiver_port = _receiver_of(studio_pid)
    deadline = time.monotonic() + 60
    while receiver_port not in map(_port_of, _listening()) and time.monotonic() < deadline:
        time.sleep(0.2)  # the receiver's start-up, as _healthy waits for the studio's
    assert _listening_addresses(receiver_port) == {"0100007F"}
    request = urllib.request.Request(
        f"http://127.0.0.1:{receiver_port}/v1/traces",
        data=b'{"resourceSpans": []}',
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert (answer.status, answer.read()) == (200, b"{}")

    watch = os.pidfd_open(receiver_pid)
    try:
        os.kill(studio_pid, signal.SIGKILL)  # the studio only: its pipe to the receiver closes
        poller = select.poll()  # not select(): in a long test session descriptors pass 1024
        poller.register(watch, select.POLLIN)
        ready = poller.poll(30_000)
    finally:
        os.close(watch)
    assert ready, f"the receiver (pid {receiver_pid}) outlived the studio"


def _listening() -> list[str]:
    rows = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if path.exists():
            rows += [
                line.split()[1]
                for line in path.read_text().splitlines()[1:]
                if line.split()[3] == "0A"
            ]
    return rows


def _port_of(local: str) -> int:
    return int(local.rsplit(":", 1)[1], 16)
