"""Worker processes for CPU-bound batch runs: one event loop per core instead of one in all.

A judge call costs milliseconds of CPU in the model client, so a single process tops out
at a few hundred calls a second whatever the concurrency. A :class:`WorkerPool` starts
``python -m scorer_runtime.batch.worker`` processes; for a run, each builds the scorer from
its :class:`~scorer_runtime.saved_scorers.ScorerSource` and scores the examples the parent
sends it, with its share of the run's concurrency, and sends each outcome back. The parent
alone reads and writes the store, so results, progress, cancel and resume work exactly as
in one process (and SQLite keeps a single writer).

One machine: these processes. Several machines: Ray (:mod:`~scorer_runtime.batch.ray_engine`,
same seam). On one machine Ray's local mode scores about as fast but starts slower (P2r in
``make bench``) and needs the optional ``ray`` extra, so it does not replace this pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from scorer_runtime.batch.outcome import ExampleInput, ExampleScore
from scorer_runtime.batch.wire import LINE_LIMIT, encode, example_message, receive, score_of
from scorer_runtime.saved_scorers import ScorerSource

T = TypeVar("T")
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


class WorkerError(ChildProcessError):
    """A worker process could not do its part of a run (the message says why and what to do)."""


class WorkerCrashError(WorkerError):
    """A worker process stopped in the middle of a run (killed, out of memory, a crash).

    The results it had sent are kept; the examples it was scoring have no result, so
    resuming the run scores them.
    """


@dataclass(eq=False)
class _Worker:
    process: asyncio.subprocess.Process
    hello: asyncio.Future[None]
    reader: asyncio.Task[None] | None = None
    capacity: int = 0
    outstanding: int = 0
    delivered: int = 0
    ready: asyncio.Future[None] | None = None
    ended: asyncio.Future[None] | None = None
    deliver: Callable[[ExampleScore], None] | None = field(default=None, repr=False)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(encode(message))


def shares(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` whole shares that differ by at most one."""
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


class WorkerPool:
    """``processes`` worker processes, started on first use and reusable across runs.

    A worker spends a few seconds importing its model client when it starts, so keep one
    pool for several runs (``BatchRunner(..., pool=pool)``) where that matters; a sharded
    run without a pool starts and closes its own. Use it as an async context manager. It
    serves one run at a time (another waits for its turn).
    """

    def __init__(self, processes: int, *, prefetch: int | None = None) -> None:
        if processes < 1:
            raise ValueError("a worker pool needs at least one process")
        self.processes = processes
        self.remote = False
        """The processes are on this machine (a run too small for them stays in-process)."""
        self.prefetch = prefetch
        """Examples queued in a worker beyond its concurrency (default: as many again)."""
        self._workers: list[_Worker] = []
        self._failure: asyncio.Future[None] | None = None
        self._credit: asyncio.Event | None = None
        self._closing = False
        self._turn = asyncio.Lock()

    async def __aenter__(self) -> WorkerPool:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def pids(self) -> list[int]:
        """The process ids of the running workers."""
        return [w.process.pid for w in self._workers]

    @property
    def delivered(self) -> dict[int, int]:
        """How many outcomes each running worker has sent since it started, by process id."""
        return {w.process.pid: w.delivered for w in self._workers}

    async def start(self) -> None:
        """Start the workers (if not running) and wait until each has said hello.

        A pool belongs to the event loop that started it (its pipes do).
        """
        if self._workers and self._failure is not None and not self._failure.done():
            return
        if self._workers:  # one died since the last run: start afresh
            await self._stop_all()
        self._closing = False
        self._failure = asyncio.get_running_loop().create_future()
        # A worker may die between runs, when no one awaits this: the next run sees it.
        self._failure.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._credit = asyncio.Event()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(_python_path())}
        for _ in range(self.processes):
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "scorer_runtime.batch.worker",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                env=env,
                limit=LINE_LIMIT,
            )
            worker = _Worker(process, asyncio.get_running_loop().create_future())
            worker.reader = asyncio.create_task(self._read(worker), name="batch-pool-reader")
            self._workers.append(worker)
        await self._until(asyncio.gather(*(w.hello for w in self._workers)))

    async def close(self) -> None:
        """Let the workers exit (closing their stdin), killing any that do not in 5 s."""
        workers, self._workers = self._workers, []
        self._closing = True
        for worker in workers:
            if worker.process.stdin is not None:
                worker.process.stdin.close()
        await self._reap(workers, timeout_s=5.0)

    def kill(self) -> None:
        """Stop every worker at once (their examples in flight are dropped)."""
        self._closing = True
        for worker in self._workers:
            with contextlib.suppress(ProcessLookupError):
                worker.process.kill()

    async def _reap(self, workers: list[_Worker], *, timeout_s: float) -> None:
        for worker in workers:
            try:
                await asyncio.wait_for(worker.process.wait(), timeout_s)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    worker.process.kill()
                await worker.process.wait()
            if worker.reader is not None:
                await asyncio.gather(worker.reader, return_exceptions=True)

    async def score(
        self,
        source: ScorerSource,
        examples: asyncio.Queue[ExampleInput | None],
        *,
        deliver: Callable[[ExampleScore], None],
        concurrency: int,
        label: Callable[[ExampleInput], str],
        cache: Mapping[str, Any] | None = None,
        ledger: str | None = None,
    ) -> None:
        """Score each example taken from ``examples`` (until a None) and hand each outcome to
        ``deliver`` as it arrives; return once every outcome is in. At most ``concurrency``
        examples are scored at once over all workers; each looks judge answers up in the
        store named by ``cache`` (its new answers come back in the outcomes' evidence), and
        counts its judge requests in the rate ledger of the store ``ledger`` names.
        Raises :class:`WorkerCrashError` when a worker dies (the others are stopped too, and
        all restart on next use). When this is
        cancelled, the workers drop what they were doing and stay ready for the next run.
        """
        async with self._turn:
            await self.start()
            run = {"cache": cache, "ledger": ledger}
            await self._score(source, examples, deliver, concurrency, label, run)

    async def _score(
        self,
        source: ScorerSource,
        examples: asyncio.Queue[ExampleInput | None],
        deliver: Callable[[ExampleScore], None],
        concurrency: int,
        label: Callable[[ExampleInput], str],
        stores: Mapping[str, Any],
    ) -> None:
        active = self._workers[: max(1, min(len(self._workers), concurrency))]
        try:
            for worker, share in zip(active, shares(concurrency, len(active)), strict=True):
                self._begin(worker, source, share, deliver, stores)
            await self._until(asyncio.gather(*(w.ready for w in active if w.ready)))
            await self._until(self._dispatch(active, examples, label))
            await self._end(active, "end")
        except asyncio.CancelledError:
            await self._abandon(active)
            raise
        except BaseException:
            await self._stop_all()
            raise

    async def _end(self, active: list[_Worker], how: Literal["end", "cancel"]) -> None:
        for worker in active:
            worker.send({"type": how})
        await self._until(asyncio.gather(*(w.ended for w in active if w.ended)))

    async def _abandon(self, active: list[_Worker]) -> None:
        """Make the workers drop the run (cancelling their judge calls); kill them if they
        do not answer within 5 s."""
        try:
            await asyncio.wait_for(self._end(active, "cancel"), 5.0)
        except Exception:
            await self._stop_all()

    def _begin(
        self,
        worker: _Worker,
        source: ScorerSource,
        share: int,
        deliver: Callable[[ExampleScore], None],
        stores: Mapping[str, Any],
    ) -> None:
        loop = asyncio.get_running_loop()
        prefetch = share if self.prefetch is None else self.prefetch
        worker.capacity, worker.outstanding = share + prefetch, 0
        worker.ready, worker.ended = loop.create_future(), loop.create_future()
        worker.deliver = deliver
        worker.send({"type": "run", "source": source.to_data(), "concurrency": share, **stores})

    async def _dispatch(
        self,
        active: list[_Worker],
        examples: asyncio.Queue[ExampleInput | None],
        label: Callable[[ExampleInput], str],
    ) -> None:
        while (example := await examples.get()) is not None:
            worker = await self._free(active)
            worker.outstanding += 1
            worker.send(example_message(example, label(example)))
            assert worker.process.stdin is not None
            await worker.process.stdin.drain()

    async def _free(self, active: list[_Worker]) -> _Worker:
        """The least loaded worker with room for another example (waits for one)."""
        while True:
            free = [w for w in active if w.outstanding < w.capacity]
            if free:
                return min(free, key=lambda w: w.outstanding / w.capacity)
            assert self._credit is not None
            self._credit.clear()
            await self._credit.wait()

    async def _until(self, awaitable: Awaitable[T]) -> T:
        """``awaitable``'s result, unless a worker fails first (then raise why)."""
        failure = self._failure
        assert failure is not None
        work = asyncio.ensure_future(awaitable)
        waiters: list[asyncio.Future[Any]] = [work, failure]
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            work.cancel()
            raise
        if not failure.done() and isinstance(work.exception() if work.done() else None, OSError):
            # A pipe broke under us: the worker died; its reader is about to say how.
            await asyncio.wait([failure], timeout=5.0)
        if failure.done():
            work.cancel()
            await asyncio.gather(work, return_exceptions=True)
            failure.result()  # raises
        return await work

    async def _stop_all(self) -> None:
        workers = list(self._workers)
        self.kill()
        self._workers = []
        await asyncio.shield(self._reap(workers, timeout_s=5.0))

    async def _read(self, worker: _Worker) -> None:
        assert worker.process.stdout is not None
        problem: str | None = None
        try:
            while (message := await receive(worker.process.stdout)) is not None:
                self._handle(worker, message)
        except (ValueError, KeyError, TypeError) as e:
            problem = f"it sent a message that is not understood ({e})"
        code = await worker.process.wait()
        if not self._closing:
            self._fail(worker, code, problem)

    def _handle(self, worker: _Worker, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "result":
            assert worker.deliver is not None
            worker.outstanding -= 1
            worker.delivered += 1
            worker.deliver(score_of(message))
            assert self._credit is not None
            self._credit.set()
        elif kind == "hello":
            _settle(worker.hello)
        elif kind == "ready" and worker.ready is not None:
            _settle(worker.ready)
        elif kind == "ended" and worker.ended is not None:
            _settle(worker.ended)
        elif kind == "failed" and self._failure is not None and not self._failure.done():
            error = message.get("error") or "unknown error"
            self._failure.set_exception(
                WorkerError(
                    f"a worker process could not build the scorer: {error}; "
                    "run the batch in one process (processes=1) to see the problem there"
                )
            )

    def _fail(self, worker: _Worker, code: int, problem: str | None) -> None:
        if self._failure is None or self._failure.done():
            return
        pid, why = worker.process.pid, problem or f"exit code {code}"
        if not worker.hello.done():
            self._failure.set_exception(
                WorkerError(
                    f"batch worker process {pid} could not start ({why}); its error is printed "
                    "above. Run the batch in one process (processes=1) to go on meanwhile"
                )
            )
            return
        lost = f"; {worker.outstanding} example(s) it had were not scored"
        lost = lost if worker.outstanding else ""
        message = (
            f"batch worker process {pid} stopped unexpectedly ({why}){lost}; the results "
            "already received are kept: resume the run to score the rest"
        )
        self._failure.set_exception(WorkerCrashError(message))


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _python_path() -> list[str]:
    # The worker imports this package the way the parent did, even from a source checkout.
    existing = os.environ.get("PYTHONPATH", "")
    return [_PACKAGE_ROOT, *(p for p in existing.split(os.pathsep) if p)]
