"""Running a scorer over a dataset: bounded concurrency, progress, cancel, resume.

The work per example is :func:`~scorer_runtime.batch.outcome.score_example`; storing the
results is the :class:`~scorer_runtime.batch.writer.ResultWriter`'s job. A run only ever
scores examples that have no stored result yet, so resuming a crashed or cancelled run
picks up where it stopped, and the unique (run, example) constraint rules out duplicates.

A big run of a scorer with judge steps is CPU-bound in the model client, so it is spread
over worker processes (:mod:`~scorer_runtime.batch.pool`): they score, this process still
reads the examples, writes every result, reports progress and watches for cancel.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import Engine, exists
from sqlmodel import col, select

from scorer_runtime.batch.outcome import ExampleInput, ExampleScore, score_example
from scorer_runtime.batch.pace import PaceMeter, RunPace
from scorer_runtime.batch.pool import WorkerPool
from scorer_runtime.batch.sharding import Shards, asks_judge, check_processes, choose_processes
from scorer_runtime.batch.spend_cap import SpendCap, open_spend_cap
from scorer_runtime.batch.summary import BatchSummary, summarize_run
from scorer_runtime.batch.writer import ResultWriter, RunCounters
from scorer_runtime.costs.cap import CapError, budget_words
from scorer_runtime.judge.cache import using_cache
from scorer_runtime.judge.client import warm
from scorer_runtime.judge.rate import using_ledger
from scorer_runtime.saved_scorers import ScorerSource
from scorer_runtime.scorer import Scorer
from scorer_runtime.store.aggregates import CostTotal, cost_total
from scorer_runtime.store.answers import StoreAnswerCache
from scorer_runtime.store.datasets import count_examples
from scorer_runtime.store.engine import read_session, session_scope
from scorer_runtime.store.health import health_example_ids
from scorer_runtime.store.rate_windows import ledger_for
from scorer_runtime.store.reservations import mark_lost
from scorer_runtime.store.runs import (
    RunInfo,
    alignment_example_ids,
    finish_run,
    get_run,
    mark_running,
    run_counts,
)
from scorer_runtime.store.scores import ScoreFilter
from scorer_runtime.store.stability import check_example_ids
from scorer_runtime.store.tables import ExampleRecord, ScoreRecord
from scorer_runtime.trust.perturb import Perturbation, perturbed_values
from scorer_runtime.types import RunStatus

_CHUNK = 200


@dataclass(frozen=True, slots=True)
class BatchProgress:
    """Where a run is: examples with a result, of how many; failures; cost so far.

    ``cost`` sums the known costs only: ``unpriced`` results called the judge but have no
    price, so when it is above zero the cost is a lower bound (say it with
    :func:`~scorer_runtime.batch.summary.describe_cost`).
    """

    run_id: int
    done: int
    total: int
    failures: int
    cost: float
    priced: int = 0
    """Results so far with a positive cost."""
    unpriced: int = 0
    """Results so far that called the judge without a known price."""
    pace: RunPace | None = None
    """How fast the run goes, and whether a judge's rate limit holds it back."""


ProgressCallback = Callable[[BatchProgress], None]


def _pending_chunk(engine: Engine, run: RunInfo, after_id: int) -> list[ExampleInput]:
    """The next examples of the run's dataset that have no stored result in this run."""
    scored = exists().where(
        col(ScoreRecord.run_id) == run.id, col(ScoreRecord.example_id) == col(ExampleRecord.id)
    )
    query = (
        select(ExampleRecord)
        .where(ExampleRecord.dataset_id == run.dataset_id, col(ExampleRecord.id) > after_id)
        .where(~scored)
        .order_by(col(ExampleRecord.id))
        .limit(_CHUNK)
    )
    with read_session(engine) as session:
        if run.stability_check_id is not None:  # a repeat of a stability check: its sample
            sample = check_example_ids(session, check_id=run.stability_check_id)
            query = query.where(col(ExampleRecord.id).in_(sample))
        if run.health_check_id is not None:  # a health check's run: its sample
            sample = health_example_ids(session, check_id=run.health_check_id)
            query = query.where(col(ExampleRecord.id).in_(sample))
        if run.alignment_id is not None:  # an alignment's run: its graded examples
            graded = alignment_example_ids(session, run.alignment_id, dataset_id=run.dataset_id)
            query = query.where(col(ExampleRecord.id).in_(graded))
        examples = [
            ExampleInput(e.id, e.input, e.output, e.ground_truth, e.request_context)
            for e in session.exec(query).all()
        ]
    if run.perturbation is None:
        return examples
    return [_perturbed(Perturbation.from_json(run.perturbation), e) for e in examples]


def _perturbed(perturbation: Perturbation, example: ExampleInput) -> ExampleInput:
    """The example as a health check's run scores it (changed before any prompt is built)."""
    output, ground_truth = perturbed_values(
        perturbation,
        example_id=example.example_id or 0,
        output=example.output,
        ground_truth=example.ground_truth,
    )
    return replace(example, output=output, ground_truth=ground_truth)


class BatchRunner:
    """Runs ``scorer`` for the stored run ``run_id``; create one per run and await :meth:`run`.

    ``concurrency`` defaults to the run's setting. The progress callback is called after
    every example, on the event loop. Cancel from anywhere with
    :func:`scorer_runtime.store.request_cancel`, or cancel the task awaiting :meth:`run`;
    either way the finished results are committed and the run is marked cancelled.

    ``source`` (see :func:`~scorer_runtime.saved_scorers.scorer_source`) is how worker
    processes build the same scorer; with it, ``processes=None`` spreads a big run of a
    scorer with judge steps over one process per CPU core (see
    :func:`~scorer_runtime.batch.sharding.choose_processes`), ``processes=N`` forces N
    (1: everything in this process). ``pool`` lends warm
    worker processes (:class:`~scorer_runtime.batch.pool.WorkerPool`) instead of starting
    new ones for this run (how many work is then the pool's size); a
    :class:`~scorer_runtime.batch.ray_engine.RayPool` scores the run on a Ray cluster.
    """

    def __init__(
        self,
        engine: Engine,
        scorer: Scorer[Any, Any],
        *,
        run_id: int,
        concurrency: int | None = None,
        progress: ProgressCallback | None = None,
        threshold: float | None = None,
        flush_every: int = 50,
        flush_interval_s: float = 0.2,
        processes: int | None = None,
        source: ScorerSource | None = None,
        pool: Shards | None = None,
    ) -> None:
        check_processes(processes, source, pool)
        self.engine = engine
        self.scorer = scorer
        self.run_id = run_id
        self.concurrency = concurrency
        self.progress = progress
        self.threshold = threshold
        self.flush_every = flush_every
        self.flush_interval_s = flush_interval_s
        self.processes = processes
        self.source = source
        self.pool = pool
        self.spend_cap: SpendCap | None = None
        """The run's spend cap as it is kept while the run runs (None: no cap)."""

    async def run(self) -> BatchSummary:
        """Score every example without a result; return the run's summary."""
        started = time.perf_counter()
        processes = await asyncio.to_thread(self._processes)
        sharded = processes > 1 or (self.pool is not None and self.pool.remote)
        if not sharded and asks_judge(self.scorer):
            # Before the run is marked running: the model client's start-up (seconds of
            # imports) shows as the run starting, and is no example's or judge call's time.
            await warm()
        try:  # before the run is marked running: a run that may not start never does
            self.spend_cap = await open_spend_cap(self.engine, self.scorer, run_id=self.run_id)
        except CapError as e:
            await asyncio.to_thread(self._finish, "failed", str(e))
            raise
        run, counters, known = await asyncio.to_thread(self._start)
        live = _Live(counters.done, counters.failed, counters.cost, known.priced, known.unpriced)
        writer = ResultWriter(
            self.engine,
            run_id=self.run_id,
            counters=counters,
            flush_every=self.flush_every,
            flush_interval_s=self.flush_interval_s,
            pace=live.pace_data,
            spend=self.spend_cap,
        )
        status: RunStatus = "done"
        try:
            if sharded:
                status = await self._score_sharded(run, writer, live, processes)
            else:
                status = await self._score_all(run, writer, live)
        except asyncio.CancelledError:
            await self._close(writer, "cancelled", None)
            raise
        except Exception as e:
            await self._close(writer, "failed", f"the run stopped: {e}")
            raise
        error = None
        cap = self.spend_cap
        if cap is not None and cap.reached:
            status, error = "stopped", budget_words(cap.spent, cap.cap, lost=cap.lost_words())
        await self._close(writer, status, error)
        summary = await asyncio.to_thread(self._summary)
        return replace(summary, wall_time_s=time.perf_counter() - started)

    def _processes(self) -> int:
        """How many processes score the run (read before it starts; see choose_processes)."""
        with read_session(self.engine) as session:
            run = get_run(session, run_id=self.run_id)
            done, _, _ = run_counts(session, run_id=self.run_id)
            total = run.total  # a trust check's run scores its sample, not the dataset
            if not run.of_check:
                total = count_examples(session, dataset_id=run.dataset_id)
        return choose_processes(
            self.scorer,
            processes=self.processes,
            source=self.source,
            pool=self.pool,
            concurrency=self.concurrency or run.concurrency,
            pending=total - done,
        )

    def _start(self) -> tuple[RunInfo, RunCounters, CostTotal]:
        with session_scope(self.engine) as session:
            run = mark_running(session, run_id=self.run_id)
            # What an earlier runner set aside and never stored is lost: it counts as spent.
            mark_lost(session, run_id=self.run_id)
            done, failed, cost = run_counts(session, run_id=self.run_id)
            # What a resumed run already stored, so progress counts the whole run.
            known = cost_total(session, filter=ScoreFilter(run_id=self.run_id))
        return run, RunCounters(done, failed, cost), known

    def _summary(self) -> BatchSummary:
        with read_session(self.engine) as session:
            return summarize_run(session, run_id=self.run_id, threshold=self.threshold)

    async def _close(self, writer: ResultWriter, status: RunStatus, error: str | None) -> None:
        # Shielded: even when our task is being cancelled, what finished gets committed.
        async def close() -> None:
            with contextlib.suppress(Exception):
                await writer.flush(force_beat=True)
            await asyncio.to_thread(self._finish, status, error)

        await asyncio.shield(close())

    def _finish(self, status: RunStatus, error: str | None) -> None:
        with session_scope(self.engine) as session:
            finish_run(session, run_id=self.run_id, status=status, error=error)
            # Examples this runner set aside and did not store (a cancel, an error) may have
            # been paid for: they stay counted as spent.
            mark_lost(session, run_id=self.run_id)

    def _queue_size(self) -> int:
        """How many admitted examples may wait for a worker: under a cap, one (each holds
        its worst case in the store until it is scored; a crash counts it as spent)."""
        return _CHUNK if self.spend_cap is None else 1

    async def _score_all(self, run: RunInfo, writer: ResultWriter, live: _Live) -> RunStatus:
        queue: asyncio.Queue[ExampleInput | None] = asyncio.Queue(maxsize=self._queue_size())
        width = self.concurrency or run.concurrency
        idle = asyncio.Semaphore(0)  # workers waiting for an example
        feed = self._feed(run, queue, width, idle=idle)
        tasks = [asyncio.create_task(feed, name="batch-feed")]
        cache = StoreAnswerCache(self.engine, scorer_id=run.scorer_id) if run.use_cache else None
        if cache is not None:
            await asyncio.to_thread(cache.preload)
        # The workers' judge steps look answers up there, and count their requests in the
        # store's rate ledger with every other run and runner of the store.
        with using_cache(cache), using_ledger(ledger_for(self.engine)):
            tasks += [
                asyncio.create_task(
                    self._work(run, queue, writer, live, idle), name=f"batch-worker-{i}"
                )
                for i in range(width)
            ]
        return await self._until_done(asyncio.gather(*tasks), tasks, writer)

    async def _score_sharded(
        self, run: RunInfo, writer: ResultWriter, live: _Live, processes: int
    ) -> RunStatus:
        source = self.source
        assert source is not None
        examples: asyncio.Queue[ExampleInput | None] = asyncio.Queue(maxsize=self._queue_size())
        results: asyncio.Queue[ExampleScore | None] = asyncio.Queue()
        pool = self.pool or WorkerPool(processes)

        async def score() -> None:
            width = self.concurrency or run.concurrency
            label = functools.partial(_label, run)
            await pool.score(
                source,
                examples,
                deliver=results.put_nowait,
                concurrency=width,
                label=label,
                cache=self._cache_source(run),
                ledger=self.engine.url.render_as_string(hide_password=False),
            )
            results.put_nowait(None)  # every outcome is in: the collector may finish

        tasks = [
            asyncio.create_task(self._feed(run, examples, 1), name="batch-feed"),
            asyncio.create_task(score(), name="batch-shards"),
            asyncio.create_task(self._collect(run, results, writer, live), name="batch-collect"),
        ]
        try:
            return await self._until_done(asyncio.gather(*tasks), tasks, writer)
        finally:
            # Outcomes that arrived but were not recorded when the run stopped: keep them.
            while (left := results.get_nowait() if not results.empty() else None) is not None:
                self._record(run, left, writer, live)
            if self.pool is None:
                await asyncio.shield(pool.close())

    def _cache_source(self, run: RunInfo) -> dict[str, Any] | None:
        """Where worker processes look judge answers up (None: the run asks for every one)."""
        if not run.use_cache:
            return None
        url = self.engine.url.render_as_string(hide_password=False)
        return {"url": url, "scorer_id": run.scorer_id}

    async def _until_done(
        self, work: asyncio.Future[Any], tasks: list[asyncio.Task[None]], writer: ResultWriter
    ) -> RunStatus:
        """Wait for ``work``, a cancel request or a writer failure; then stop ``tasks``."""
        ticker = asyncio.create_task(writer.run_ticker(), name="batch-writer")
        cancel = asyncio.create_task(writer.cancel_requested.wait(), name="batch-cancel")
        try:
            waiters: list[asyncio.Future[Any]] = [work, cancel, ticker]
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            if ticker.done():  # the writer failed: stop and report why
                ticker.result()
            if work.done():
                work.result()  # a worker that failed (the store, never an example) stops the run
                return "done"
            return "cancelled"
        finally:
            for task in (*tasks, ticker, cancel):
                task.cancel()
            await asyncio.gather(work, *tasks, ticker, cancel, return_exceptions=True)

    async def _feed(
        self,
        run: RunInfo,
        queue: asyncio.Queue[ExampleInput | None],
        width: int,
        *,
        idle: asyncio.Semaphore | None = None,
    ) -> None:
        after = 0
        while chunk := await asyncio.to_thread(_pending_chunk, self.engine, run, after):
            if not await self._hand_out(chunk, queue, idle):
                break  # the cap is reached: what is in flight finishes, nothing starts
            after = chunk[-1].example_id or after
        for _ in range(width):
            await queue.put(None)

    async def _hand_out(
        self,
        chunk: list[ExampleInput],
        queue: asyncio.Queue[ExampleInput | None],
        idle: asyncio.Semaphore | None,
    ) -> bool:
        """Queue ``chunk``'s examples, each once the spend cap lets it start; False when the
        cap stops the run first (see :class:`~scorer_runtime.batch.spend_cap.SpendCap`).
        Under a cap, with ``idle`` (workers waiting), an example is admitted only once a
        worker waits for it: what a crash leaves set aside is then what was being scored."""
        for example in chunk:
            if self.spend_cap is not None and idle is not None:
                await idle.acquire()
            assert example.example_id is not None  # a run's examples are stored ones
            if self.spend_cap is not None and not await self.spend_cap.admit(example.example_id):
                return False
            await queue.put(example)
        return True

    async def _work(
        self,
        run: RunInfo,
        queue: asyncio.Queue[ExampleInput | None],
        writer: ResultWriter,
        live: _Live,
        idle: asyncio.Semaphore,
    ) -> None:
        while True:
            idle.release()  # this worker waits: the feed may admit an example for it
            if (example := await queue.get()) is None:
                return
            result = await score_example(self.scorer, example, run_id=_label(run, example))
            if self._record(run, result, writer, live):
                await writer.flush()

    async def _collect(
        self,
        run: RunInfo,
        results: asyncio.Queue[ExampleScore | None],
        writer: ResultWriter,
        live: _Live,
    ) -> None:
        while (result := await results.get()) is not None:
            if self._record(run, result, writer, live):
                await writer.flush()

    def _record(
        self, run: RunInfo, result: ExampleScore, writer: ResultWriter, live: _Live
    ) -> bool:
        """Buffer one outcome and report progress; True when the buffer should be flushed."""
        row = result.row(
            run_id=run.id,
            scorer_id=run.scorer_id,
            scorer_version_id=run.scorer_version_id,
            dataset_id=run.dataset_id,
        )
        full = writer.add(row, failed=result.failed)  # its commit settles the spend cap
        live.count(result)
        if self.progress is not None:
            self.progress(live.progress(self.run_id, run.total))
        return full


def _label(run: RunInfo, example: ExampleInput) -> str:
    """The scorer run id of one example of a batch run."""
    return f"run-{run.id}-example-{example.example_id}"


@dataclass(slots=True)
class _Live:
    """Results seen so far, stored or still buffered (what progress shows)."""

    done: int
    failed: int
    cost: float
    priced: int = 0
    unpriced: int = 0
    meter: PaceMeter = field(default_factory=PaceMeter)

    def count(self, result: ExampleScore) -> None:
        self.meter.count(result)
        self.done += 1
        self.failed += int(result.failed)
        self.cost += result.cost or 0.0
        # As the store counts them (score_stats): NULL is unpriced, a positive cost priced.
        if result.cost is None:
            self.unpriced += 1
        elif result.cost > 0:
            self.priced += 1

    def pace_data(self) -> dict[str, Any] | None:
        pace = self.meter.pace()
        return None if pace is None else pace.to_data()

    def progress(self, run_id: int, total: int) -> BatchProgress:
        return BatchProgress(
            run_id,
            self.done,
            total,
            self.failed,
            self.cost,
            self.priced,
            self.unpriced,
            self.meter.pace(),
        )
