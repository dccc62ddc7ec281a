"""The host guard (studio.hosts) on its own: which names pass, what a refusal sends."""

from __future__ import annotations

import asyncio

import pytest

from scorer_runtime.cli.app import _allowed
from studio.hosts import ALLOWED_HOSTS_ENV, HostGuard, allowed_hosts, host_name


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("127.0.0.1:8501", "127.0.0.1"),
        ("LocalHost", "localhost"),
        ("[::1]:8501", "::1"),
        ("::1", "::1"),
        ("studio.internal:80", "studio.internal"),
        ("attacker.rebind.example.", "attacker.rebind.example."),
    ],
)
def test_host_name_drops_the_port_and_case(header, name):
    assert host_name(header) == name


def _served(scope_type: str, host: bytes | None, hosts=None) -> tuple[bool, list[dict]]:
    reached, sent = [], []

    async def app(scope, receive, send):
        reached.append(scope)

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request"}

    headers = [] if host is None else [(b"host", host)]
    guard = HostGuard(app, hosts=hosts if hosts is not None else allowed_hosts({}))
    asyncio.run(guard({"type": scope_type, "headers": headers}, receive, send))
    return bool(reached), sent


@pytest.mark.parametrize("host", [b"127.0.0.1:8501", b"localhost:8501", b"[::1]:8501"])
def test_loopback_names_reach_the_studio(host):
    assert _served("http", host) == (True, [])
    assert _served("websocket", host) == (True, [])


@pytest.mark.parametrize("host", [b"attacker.rebind.example:8501", b"127.0.0.1.nip.example", None])
def test_other_names_and_no_name_get_403_and_never_reach_the_studio(host):
    reached, sent = _served("http", host)
    assert not reached
    assert sent[0]["status"] == 403
    assert b"--allow-host" in sent[1]["body"]
    reached, sent = _served("websocket", host)
    assert not reached
    assert sent == [{"type": "websocket.close", "code": 1008}]


def test_lifespan_passes_through():
    assert _served("lifespan", None) == (True, [])


def test_allowed_names_come_from_the_setting_and_the_command():
    hosts = allowed_hosts({ALLOWED_HOSTS_ENV: " Studio.Internal , ,10.0.0.5"})
    assert hosts == {"127.0.0.1", "localhost", "::1", "studio.internal", "10.0.0.5"}
    assert _served("http", b"studio.internal:8501", hosts) == (True, [])
    assert _allowed("", "127.0.0.1", []) == "127.0.0.1"
    assert _allowed("a.example", "0.0.0.0", ["b.example", "a.example"]) == "a.example,b.example"
