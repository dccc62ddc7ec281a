"""A batch worker process: scores the examples its parent sends, on its own event loop.

Started by :class:`~scorer_runtime.batch.pool.WorkerPool` as
``python -m scorer_runtime.batch.worker``. It talks to its parent in JSON lines
(:mod:`~scorer_runtime.batch.wire`) on stdin and on the stdout it was started with; its own
stdout is pointed at stderr, so a library that prints cannot garble the conversation. When
the parent goes away its stdin closes and the worker stops at once: no orphan keeps calling
the judge.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import Any

from scorer_runtime.batch.outcome import ExampleInput, score_example
from scorer_runtime.batch.sharding import asks_judge
from scorer_runtime.batch.wire import (
    LINE_LIMIT,
    encode,
    example_of,
    receive,
    result_message,
)
from scorer_runtime.judge.cache import AnswerCache, using_cache
from scorer_runtime.judge.rate import RateLedger, using_ledger
from scorer_runtime.scorer import Scorer


class _Worker:
    """One run at a time: ``run`` builds the scorer and starts the tasks, ``end`` lets them
    finish, ``cancel`` stops them."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.scorers: dict[str, Scorer[Any, Any]] = {}
        self.queue: asyncio.Queue[tuple[ExampleInput, str] | None] = asyncio.Queue()
        self.tasks: list[asyncio.Task[None]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.writer.write(encode(message))

    async def serve(self, reader: asyncio.StreamReader) -> None:
        self.send({"type": "hello", "pid": os.getpid()})
        try:
            while (message := await receive(reader)) is not None:
                kind = message.get("type")
                if kind == "example":
                    self.queue.put_nowait(example_of(message))
                elif kind == "run":
                    await self._start(message)
                elif kind == "end":
                    await self._end()
                elif kind == "cancel":
                    await self._cancel()
        finally:  # the parent is gone (or sent nonsense): stop scoring
            for task in self.tasks:
                task.cancel()

    async def _start(self, message: dict[str, Any]) -> None:
        from scorer_runtime.judge.client import warm
        from scorer_runtime.saved_scorers import ScorerSource
        from scorer_runtime.store.canonical import canonical_json

        key = canonical_json(message["source"])
        try:
            if key not in self.scorers:  # a pool serves many runs, often of one scorer
                self.scorers[key] = ScorerSource.from_data(message["source"]).build()
        except Exception as e:
            self.send({"type": "failed", "error": str(e) or type(e).__name__})
            return
        scorer = self.scorers[key]
        if asks_judge(scorer):
            await warm()  # before the first example's clock: start-up is no example's time
        cache = await _answer_cache(message.get("cache"))
        ledger = _rate_ledger(message.get("ledger"))
        # The tasks' judge steps look answers up there and count their requests there.
        with using_cache(cache), using_ledger(ledger):
            self.tasks = [
                asyncio.create_task(self._work(scorer)) for _ in range(int(message["concurrency"]))
            ]
        self.send({"type": "ready"})

    async def _end(self) -> None:
        for _ in self.tasks:
            self.queue.put_nowait(None)
        await asyncio.gather(*self.tasks)
        self.tasks = []
        self.send({"type": "ended"})
        await self.writer.drain()

    async def _cancel(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.tasks = []
        while not self.queue.empty():  # examples sent ahead: the parent forgets them too
            self.queue.get_nowait()
        self.send({"type": "ended"})
        await self.writer.drain()

    async def _work(self, scorer: Scorer[Any, Any]) -> None:
        while (item := await self.queue.get()) is not None:
            example, label = item
            score = await score_example(scorer, example, run_id=label)
            self.send(result_message(score))
            await self.writer.drain()


_engines: dict[str, Any] = {}
"""The store engines of the runs' caches, by URL (a pool serves many runs of one store)."""


async def _answer_cache(given: Any) -> AnswerCache | None:
    """The judge answer cache a ``run`` message names (its store's URL and scorer id)."""
    if not isinstance(given, dict) or not isinstance(given.get("url"), str):
        return None
    from scorer_runtime.store.answers import StoreAnswerCache

    url = given["url"]
    scorer_id = given.get("scorer_id")
    try:
        cache = StoreAnswerCache(
            _engine(url), scorer_id=scorer_id if isinstance(scorer_id, int) else None
        )
        await asyncio.to_thread(cache.preload)
    except Exception as e:  # the store out of reach: the run asks the judge for every answer
        print(
            f"The judge answer cache could not be read ({e}); the judge is asked.", file=sys.stderr
        )
        return None
    return cache


def _engine(url: str) -> Any:
    from scorer_runtime.store.engine import make_engine

    if url not in _engines:
        _engines[url] = make_engine(url)
    return _engines[url]


def _rate_ledger(url: Any) -> RateLedger | None:
    """The judge rate ledger of the store a ``run`` message names (None: this process's)."""
    if not isinstance(url, str):
        return None
    from scorer_runtime.store.rate_windows import ledger_for

    try:
        return ledger_for(_engine(url))
    except Exception as e:  # the store out of reach: limits hold within this process only
        print(f"The judge rate limits could not be shared ({e}).", file=sys.stderr)
        return None


async def _serve(protocol_fd: int) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    out = os.fdopen(protocol_fd, "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, out)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    try:
        await _Worker(writer).serve(reader)
    finally:
        transport.close()


def main() -> None:
    """Serve the parent until it closes stdin."""
    # Ctrl-C in a terminal reaches the whole process group: the parent decides what stops
    # (it cancels the run, or it exits and this process sees its stdin close).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    protocol_fd = os.dup(1)
    os.dup2(2, 1)  # print() and friends now go to stderr
    sys.stdout = sys.stderr
    asyncio.run(_serve(protocol_fd))
    # Everything is sent; skip the interpreter's teardown, where the model client's exit
    # handlers spend over a second (the parent waits for this process to end).
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
