"""A flush cancelled while its rows commit (the run ending, the writer's ticker cancelled)
must not buffer those rows again: a second write would count their judge answers twice."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

from scorer_runtime.batch.writer import ResultWriter, RunCounters


class _SlowWriter(ResultWriter):
    """Commits in its thread only when released, and records each commit."""

    def __init__(self, *, fail: bool = False) -> None:
        super().__init__(None, run_id=1, counters=RunCounters())  # type: ignore[arg-type]
        self.started = threading.Event()
        self.release = threading.Event()
        self.commits: list[int] = []
        self.fail = fail

    def _write(self, rows: list[tuple[dict[str, Any], bool]]) -> bool:
        self.started.set()
        self.release.wait(10)
        if self.fail:
            raise RuntimeError("the database is gone")
        self.commits.append(len(rows))
        return False


async def _cancel_mid_write(writer: _SlowWriter) -> None:
    writer.add({"cost": 0.0}, failed=False)
    writer.add({"cost": 0.0}, failed=False)
    flushing = asyncio.create_task(writer.flush())
    await asyncio.to_thread(writer.started.wait, 10)
    flushing.cancel()
    await asyncio.sleep(0.05)
    writer.release.set()
    with contextlib.suppress(asyncio.CancelledError):
        await flushing


async def test_rows_committed_by_a_cancelled_flush_are_not_written_again() -> None:
    writer = _SlowWriter()
    await _cancel_mid_write(writer)
    await writer.flush(force_beat=True)  # the run's last flush
    assert writer.commits == [2, 0]  # the rows once; the last flush only beats


async def test_rows_of_a_cancelled_flush_whose_commit_failed_are_kept_for_a_last_attempt() -> None:
    writer = _SlowWriter(fail=True)
    await _cancel_mid_write(writer)
    writer.fail = False
    await writer.flush()
    assert writer.commits == [2]
