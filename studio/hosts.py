"""Which hosts the studio answers to: a guard against DNS rebinding.

A web page the person visits can point its own host name at 127.0.0.1 and then talk to the
studio from the browser as if it were the page's own server: the browser sends that name as
``Host`` (and as ``Origin``), so the studio's data and its Start buttons would be one script
away. The studio therefore answers only requests addressed to the names it was started for:
127.0.0.1, localhost, ::1, the address it binds, and the names a person allows
(``scorer-studio ui --allow-host NAME``, kept in ``SCORER_STUDIO_ALLOWED_HOSTS``). Any other
``Host`` gets 403, on plain HTTP and on the websocket upgrade alike.

This module is plain ASGI (no Streamlit), so it is tested without a server; which names
pass is decided in ``scorer_runtime.hosts``, shared with the OTLP receiver.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from scorer_runtime.hosts import ALLOWED_HOSTS_ENV, allowed_hosts, host_allowed, host_name

__all__ = ["ALLOWED_HOSTS_ENV", "HostGuard", "allowed_hosts", "host_allowed", "host_name"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_REFUSED = (
    b"This address is not one Scorer Studio answers to. Open the studio at "
    b"http://127.0.0.1 (or localhost); to allow another name, start it with "
    b"'scorer-studio ui --allow-host NAME'."
)


class HostGuard:
    """ASGI middleware: 403 for any request or websocket whose ``Host`` is not allowed."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str] | None = None) -> None:
        self.app = app
        self.hosts = frozenset(hosts) if hosts is not None else allowed_hosts()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope.get("type")
        if kind not in ("http", "websocket") or host_allowed(scope.get("headers", ()), self.hosts):
            await self.app(scope, receive, send)
            return
        if kind == "websocket":
            # Closing before accepting: the server answers the upgrade with 403.
            await send({"type": "websocket.close", "code": 1008})
            return
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")],
            }
        )
        await send({"type": "http.response.body", "body": _REFUSED})
