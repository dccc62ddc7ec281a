"""While a commit is under way, the workers go on scoring: a flush that is not forced returns
at once and its rows go with the next commit, until the buffer is too far behind."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from scorer_runtime.batch.writer import BACKLOG, ResultWriter, RunCounters


class _HeldWriter(ResultWriter):
    """Commits in its thread only when released, and records each commit's row count."""

    def __init__(self) -> None:
        super().__init__(None, run_id=1, counters=RunCounters(), flush_every=2)  # type: ignore[arg-type]
        self.started = threading.Event()
        self.release = threading.Event()
        self.commits: list[int] = []

    def _write(self, rows: list[tuple[dict[str, Any], bool]]) -> bool:
        self.started.set()
        self.release.wait(10)
        self.commits.append(len(rows))
        return False


def _add(writer: ResultWriter, count: int) -> None:
    for _ in range(count):
        writer.add({"cost": 0.0}, failed=False)


async def test_a_flush_during_a_commit_returns_and_its_rows_go_with_the_next() -> None:
    writer = _HeldWriter()
    _add(writer, 2)
    first = asyncio.create_task(writer.flush())
    await asyncio.to_thread(writer.started.wait, 10)
    _add(writer, 3)
    await asyncio.wait_for(writer.flush(), 1)  # does not wait for the commit under way
    writer.release.set()
    await first
    await writer.flush(force_beat=True)  # the run's last flush takes what was left
    assert writer.commits == [2, 3]


async def test_a_buffer_too_far_behind_waits_for_the_commit() -> None:
    writer = _HeldWriter()
    _add(writer, 2)
    first = asyncio.create_task(writer.flush())
    await asyncio.to_thread(writer.started.wait, 10)
    _add(writer, BACKLOG * writer.flush_every)
    behind = asyncio.create_task(writer.flush())
    await asyncio.sleep(0.1)
    assert not behind.done()  # it waits: memory stays bounded
    writer.release.set()
    await asyncio.gather(first, behind)
    assert writer.commits == [2, BACKLOG * writer.flush_every]
