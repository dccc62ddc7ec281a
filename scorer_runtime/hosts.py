"""Which host names a local server answers to: a guard against DNS rebinding, shared by the
studio (``studio.hosts``) and the OTLP receiver (``online.receiver``).

A web page the person visits can point its own host name at 127.0.0.1 and then talk to a
server on this machine from the browser as if it were the page's own: the browser sends that
name as ``Host``. Both servers therefore answer only requests addressed to 127.0.0.1,
localhost, ::1, the address they bind, and the names a person allows
(``SCORER_STUDIO_ALLOWED_HOSTS``, filled by ``--allow-host``). Plain functions, no server.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, MutableMapping

ALLOWED_HOSTS_ENV = "SCORER_STUDIO_ALLOWED_HOSTS"
"""Comma-separated host names the servers answer to, besides the loopback names."""
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def allowed_hosts(environ: MutableMapping[str, str] | None = None) -> frozenset[str]:
    """The loopback names and those listed in ``SCORER_STUDIO_ALLOWED_HOSTS``, lower-cased."""
    listed = (environ if environ is not None else os.environ).get(ALLOWED_HOSTS_ENV, "")
    return LOOPBACK_HOSTS | {name.strip().lower() for name in listed.split(",") if name.strip()}


def host_name(header: str) -> str:
    """The name in a ``Host`` header, without its port (``[::1]:8501`` → ``::1``)."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def host_allowed(headers: Iterable[tuple[bytes, bytes]], hosts: frozenset[str]) -> bool:
    """Whether a request's ``Host`` header names one of ``hosts`` (no header: refused)."""
    for name, value in headers:
        if name.lower() == b"host":
            return host_name(value.decode("latin-1")) in hosts
    return False
