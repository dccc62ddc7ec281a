"""``scorer-studio receive``: the OTLP/HTTP receiver, storing the traces an application sends
(see ``online.receiver``), until stopped (Ctrl-C) or, started by ``ui``, until the studio
stops."""

from __future__ import annotations

import sys
import threading
from contextlib import ExitStack

import typer

from scorer_runtime.cli.support import console, friendly, url

RECEIVER_BUSY_TIMEOUT_MS = 5_000
"""How long the receiver's write waits for another writer of an SQLite store before it
answers 503 (the exporter sends again after Retry-After, well within its own 10 s timeout)."""


@friendly
def receive(
    port: int = typer.Option(4318, min=0, max=65535, help="Port to listen on (0: any free)."),
    address: str = typer.Option(
        "127.0.0.1", help="Address to bind; the default takes traces from this machine only."
    ),
    allow_host: list[str] = typer.Option(  # noqa: B008 (typer reads its options from defaults)
        [],
        "--allow-host",
        help="Another host name the receiver answers to (besides 127.0.0.1 and localhost); "
        "repeat for several. Requests for any other name are refused (DNS rebinding).",
    ),
    attached: bool = typer.Option(
        False,
        "--attached",
        hidden=True,
        help="Stop when standard input closes (how the studio keeps its receiver).",
    ),
) -> None:
    """Receive OpenTelemetry traces (OTLP over HTTP, protobuf or JSON) and store them.

    Point an application's exporter at it with
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:4318/v1/traces. The stored traces
    are those ``traces list`` shows and ``traces score`` scores.
    """
    from scorer_runtime.hosts import allowed_hosts
    from scorer_runtime.online.receiver import (
        TRACES_PATH,
        ReceiverConfig,
        TraceReceiver,
        running_receiver,
    )
    from scorer_runtime.store import ensure_schema, make_engine

    made = make_engine(url(), busy_timeout_ms=RECEIVER_BUSY_TIMEOUT_MS)
    try:
        ensure_schema(made)
        names = {address.lower(), *(name.strip().lower() for name in allow_host)}
        config = ReceiverConfig(host=address, port=port, hosts=allowed_hosts() | names)
        with ExitStack() as serving:
            try:
                bound = serving.enter_context(running_receiver(TraceReceiver(made, config)))
            except OSError as e:
                raise _cannot_listen(address, port, e) from None
            console().print(
                f"Receiving OpenTelemetry traces on http://{address}:{bound}{TRACES_PATH}",
                markup=False,
            )
            sys.stdout.flush()
            _wait(attached)
    finally:
        made.dispose()


def _wait(attached: bool) -> None:
    """Until standard input closes (attached) or Ctrl-C."""
    if attached:
        while sys.stdin.buffer.read(4096):
            pass
        return
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        console().print("Receiver stopped.")


def _cannot_listen(address: str, port: int, error: OSError) -> typer.Exit:
    from scorer_runtime.cli.support import fail

    return fail(
        f"the receiver cannot listen on {address}:{port} ({error.strerror or error}); another "
        "receiver or Collector may use that port: stop it, or start this one with --port"
    )
