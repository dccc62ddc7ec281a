"""Writing a run's results as they complete: batched commits, heartbeat and cancel polling.

A result that arrives alone after ``flush_interval_s`` without a commit is committed at
once, so a slow or small run shows each score as it lands; results that arrive faster are
buffered and committed every ``flush_every`` results or ``flush_interval_s``, whichever comes
first, so a big run makes few commits. A crash loses at most the examples in flight and the
last short interval. Each commit (and, when nothing lands, a beat every half second) beats
the run's heartbeat and reads its cancel flag, which is how another process (the studio)
stops a run: within half a second.

New judge answers (an execution in the evidence carrying a ``cache_key``) are kept in the
judge answer cache in the same commit as their scores, and the run counts its judge
answers, those from the cache and the cost they saved. Under a spend cap the same commit
gives back what the run set aside for those examples (``store.reservations``): their actual
cost counts instead, and a result lost in a crash leaves its worst case counted.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from scorer_runtime.store.answers import store_answers
from scorer_runtime.store.engine import session_scope
from scorer_runtime.store.reservations import settle_spend
from scorer_runtime.store.runs import beat
from scorer_runtime.store.scores import add_scores

if TYPE_CHECKING:
    from scorer_runtime.batch.spend_cap import SpendCap

BACKLOG = 8
"""Commits' worth of rows buffered behind a commit under way before the workers wait."""


@dataclass(slots=True)
class RunCounters:
    """Results stored for a run (those committed, not those in the buffer)."""

    done: int = 0
    failed: int = 0
    cost: float = 0.0


@dataclass(slots=True)
class CacheUse:
    """Judge answers in some results: how many, from the cache, and the cost they saved."""

    answers: int = 0
    cached: int = 0
    saved: float = 0.0


def answers_to_keep(rows: Iterable[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], CacheUse]:
    """The judge answers of score rows to keep in the cache, and the rows' cache use."""
    keep: list[dict[str, Any]] = []
    use = CacheUse()
    for row in rows:
        for execution in (row.get("judge") or {}).values():
            if not isinstance(execution, Mapping) or execution.get("status") != "success":
                continue
            use.answers += 1
            if execution.get("cached"):
                use.cached += 1
                use.saved += float(execution.get("saved_cost") or 0.0)
            key, text = execution.get("cache_key"), execution.get("raw_output")
            if isinstance(key, str) and isinstance(text, str):
                usage = execution.get("usage") or {}
                keep.append(
                    {
                        "key": key,
                        "scorer_id": row.get("scorer_id"),
                        "answer": text,
                        "cost": execution.get("cost"),
                        "input_tokens": int(usage.get("input_tokens") or 0),
                        "output_tokens": int(usage.get("output_tokens") or 0),
                        "total_tokens": int(usage.get("total_tokens") or 0),
                    }
                )
    return keep, use


class ResultWriter:
    """Buffers score rows of one run and commits them in batches, off the event loop."""

    def __init__(
        self,
        engine: Engine,
        *,
        run_id: int,
        counters: RunCounters,
        flush_every: int = 50,
        flush_interval_s: float = 0.2,
        beat_interval_s: float = 0.5,
        pace: Callable[[], dict[str, Any] | None] | None = None,
        spend: SpendCap | None = None,
    ) -> None:
        self.engine = engine
        self.run_id = run_id
        self.counters = counters
        self.flush_every = flush_every
        self.flush_interval_s = flush_interval_s
        self.beat_interval_s = beat_interval_s
        self.backlog = BACKLOG * flush_every
        self.cancel_requested = asyncio.Event()
        self._buffer: list[tuple[dict[str, Any], bool]] = []
        self._lock = asyncio.Lock()
        self._last_beat = time.monotonic()  # starting the run beat its heartbeat
        self._first = True
        self.pace = pace
        """The run's pace as plain data, read on the loop before each commit and stored
        with its heartbeat (see ``batch.pace``)."""
        self._pace_now: dict[str, Any] | None = None
        self.spend = spend
        """The run's spend cap, whose reservations each commit settles (None: no cap)."""

    def add(self, row: dict[str, Any], *, failed: bool) -> bool:
        """Buffer a row; returns True when it should be flushed now: the buffer is full, the
        row is the run's first (someone may be watching for it), or the first since a commit
        older than the interval (results are trickling in: it would wait for nothing). Rows
        that come faster wait for the ticker."""
        lone = not self._buffer
        self._buffer.append((row, failed))
        quiet = lone and time.monotonic() - self._last_beat >= self.flush_interval_s
        first, self._first = self._first, False  # the run's first result shows at once
        return first or quiet or len(self._buffer) >= self.flush_every

    async def flush(self, *, force_beat: bool = False) -> None:
        """Commit the buffered rows (and beat); one flush at a time. While a commit is under
        way, a flush that is not forced returns at once: its rows go with the next commit, so
        the workers go on scoring instead of queueing behind the commit (unless the buffer
        is :data:`BACKLOG` commits behind: then they wait, and memory stays bounded)."""
        if self._lock.locked() and not force_beat and len(self._buffer) < self.backlog:
            return
        async with self._lock:
            rows, self._buffer = self._buffer, []
            due = time.monotonic() - self._last_beat >= self.beat_interval_s
            if not rows and not (due or force_beat):
                return
            # Read here, on the loop that measures it; the commit's thread only writes it.
            self._pace_now = None if self.pace is None else self.pace()
            write = asyncio.ensure_future(asyncio.to_thread(self._write, rows))
            try:
                cancel = await asyncio.shield(write)
            except asyncio.CancelledError:
                # The commit goes on in its thread regardless: wait for it, so rows it
                # committed are never buffered, written and counted a second time.
                await asyncio.wait([write])
                if write.exception() is not None:
                    self._buffer = rows + self._buffer
                else:
                    self._settled(rows)
                raise
            except BaseException:
                self._buffer = rows + self._buffer  # keep them for a last attempt
                raise
            self._settled(rows)
            if cancel:
                self.cancel_requested.set()

    def _settled(self, rows: list[tuple[dict[str, Any], bool]]) -> None:
        """Tell the spend cap that ``rows`` are stored (their reservations given back)."""
        if self.spend is not None and rows:
            self.spend.settled(row["cost"] for row, _ in rows)

    def _write(self, rows: list[tuple[dict[str, Any], bool]]) -> bool:
        counters = self.counters
        keep, use = answers_to_keep(row for row, _ in rows)
        with session_scope(self.engine) as session:
            add_scores(session, rows=[row for row, _ in rows])
            if self.spend is not None:
                example_ids = [row["example_id"] for row, _ in rows]
                settle_spend(
                    session,
                    run_id=self.run_id,
                    runner_token=self.spend.token,
                    example_ids=example_ids,
                )
            store_answers(session, rows=keep)
            done = counters.done + len(rows)
            failed = counters.failed + sum(1 for _, f in rows if f)
            cost = counters.cost + sum(row["cost"] or 0.0 for row, _ in rows)
            cancel = beat(
                session,
                run_id=self.run_id,
                done=done,
                failed=failed,
                cost=cost,
                answers=use.answers,
                cached=use.cached,
                saved=use.saved,
                pace=self._pace_now,
            )
        # Only after the commit: the counters say what is durably stored.
        counters.done, counters.failed, counters.cost = done, failed, cost
        self._last_beat = time.monotonic()
        return cancel

    async def run_ticker(self) -> None:
        """Flush every ``flush_interval_s`` until cancelled (a background task)."""
        while True:
            await asyncio.sleep(self.flush_interval_s)
            await self.flush()
