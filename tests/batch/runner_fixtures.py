"""Runner processes for the tests: ``scorer-studio worker`` on a test's database, each killed
(or stopped) at the end of the test whatever happened, and a runner attached to this process
(what the studio starts), stopped by closing its pipe."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping

import pytest

from scorer_runtime.batch.local_runner import cli_program, stop_started_runners
from scorer_runtime.store import live_runners, make_engine, read_session

__all__ = ["attached_runner", "runner_processes", "wait_for_runners"]

StartRunner = Callable[..., subprocess.Popen[bytes]]


def wait_for_runners(database_url: str, count: int, *, timeout_s: float = 180) -> None:
    """Wait until ``count`` runners beat on the database (they beat before warming up)."""
    engine = make_engine(database_url)
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            with read_session(engine) as session:
                if len(live_runners(session)) >= count:
                    return
            if time.monotonic() > deadline:
                pytest.fail(f"{count} runner(s) did not start in {timeout_s} s")
            time.sleep(0.1)
    finally:
        engine.dispose()


@pytest.fixture
def runner_processes() -> Iterator[StartRunner]:
    """Start ``scorer-studio worker`` processes: ``start(database_url, env={...})``."""
    started: list[subprocess.Popen[bytes]] = []

    def start(database_url: str, env: Mapping[str, str] | None = None) -> subprocess.Popen[bytes]:
        environment = {**os.environ, **(env or {}), "SCORER_STUDIO_DATABASE_URL": database_url}
        process = subprocess.Popen(
            [*cli_program(), "worker"], env=environment, stdin=subprocess.DEVNULL
        )
        started.append(process)
        return process

    yield start
    for process in started:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        process.wait(timeout=30)


@pytest.fixture
def attached_runner() -> Iterator[Callable[[str], None]]:
    """Start runners attached to this process (as the studio does); stopped at the end."""
    from scorer_runtime.batch.local_runner import start_attached_runner

    def start(database_url: str) -> None:
        start_attached_runner(database_url)

    yield start
    stop_started_runners()
