"""Runs bigger than one machine: a batch run's scoring on the actors of a Ray cluster.

One machine: worker processes (:class:`~scorer_runtime.batch.pool.WorkerPool`). Several
machines: Ray. A :class:`RayPool` offers the pool's seam (``score(source, examples,
deliver=…, concurrency=…, label=…)``): each actor is an async Ray actor with its own event
loop that builds the scorer from its :class:`~scorer_runtime.saved_scorers.ScorerSource` once per
run and scores the chunks of examples it is sent with its share of the run's concurrency.
The process that runs the batch still reads the examples and writes every result, so
progress, cancel, resume, verdict and cost are those of a run in one process; the actors
never open the store: the judge answer cache is read by this process once per run and
shipped to the actors (``ray.put``), which look answers up in memory; their new answers come
back in the outcomes' evidence, and this process stores them with the scores.

An actor that dies mid-run (a lost machine, out of memory, ``ray.kill``) is replaced, and
the chunk it had is sent to the replacement: a chunk's outcomes come back all together or
not at all, so no example is lost or scored into the store twice.

Ray is an optional extra (``scorer-studio[ray]``): this module is the only one that
imports it, and the runner imports this module only for ``--engine ray``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import socket
import threading
from asyncio import Semaphore
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import ray
from ray.exceptions import RayActorError

from scorer_runtime.batch.outcome import ExampleInput, ExampleScore, score_example
from scorer_runtime.batch.pool import WorkerCrashError, shares
from scorer_runtime.judge.cache import CachedAnswer, using_cache
from scorer_runtime.judge.rate import RateLedger, using_ledger
from scorer_runtime.saved_scorers import ScorerSource
from scorer_runtime.scorer import Scorer
from scorer_runtime.store.answers import scorer_answers
from scorer_runtime.store.engine import make_engine

CONNECT_TIMEOUT_S = 8.0
"""How long joining a cluster may take before the run gives up (and stays not started)."""

_LANES = 4
"""Chunks in flight per actor: while it scores some, the next ones are on their way."""

_log = logging.getLogger(__name__)


class RayUnreachableError(ConnectionError):
    """The Ray cluster named could not be joined (the message says why and what to do)."""


class RayCrashError(WorkerCrashError):
    """Ray actors kept dying in one run; the results received are kept, resume the rest."""


class ScoringActor:
    """What one Ray actor does (made remote by :class:`RayPool`): build the scorer once per
    run, then score chunks of examples on its event loop, at most its share at once."""

    def __init__(self) -> None:
        self._scorers: dict[str, Scorer[Any, Any]] = {}
        self._scorer: Scorer[Any, Any] | None = None
        self._gate = Semaphore(1)
        self._answers: dict[str, CachedAnswer] | None = None
        self._ledger: RateLedger | None = None

    async def prepare(
        self,
        source: dict[str, Any],
        share: int,
        answers: dict[str, CachedAnswer] | None,
        ledger: str | None = None,
    ) -> str | None:
        """Get ready for a run whose judge answer cache holds ``answers`` (None: the run
        uses no cache) and whose judge requests count in the rate ledger of the store
        ``ledger`` names (None, or a store out of reach: this actor's own memory); the
        problem in words when the scorer cannot run here."""
        from scorer_runtime.batch.sharding import asks_judge
        from scorer_runtime.judge.client import warm
        from scorer_runtime.saved_scorers import check_judges
        from scorer_runtime.store.canonical import canonical_json

        key = canonical_json(source)
        try:
            if key not in self._scorers:  # actors serve many runs, often of one scorer
                self._scorers[key] = ScorerSource.from_data(source).build()
            check_judges(self._scorers[key])  # the judge key is read on this machine
        except Exception as e:
            return f"{socket.gethostname()}: {e or type(e).__name__}"
        self._scorer, self._gate, self._answers = self._scorers[key], Semaphore(share), answers
        self._ledger = _store_ledger(ledger)
        if asks_judge(self._scorer):
            await warm()  # before the first example's clock: start-up is no example's time
        return None

    async def score(self, chunk: list[tuple[ExampleInput, str]]) -> list[ExampleScore]:
        """The outcomes of a chunk of (example, label) pairs, in order."""
        scorer = self._scorer
        assert scorer is not None, "prepare comes first"

        async def one(example: ExampleInput, label: str) -> ExampleScore:
            async with self._gate:
                return await score_example(scorer, example, run_id=label)

        # Answers looked up in memory (new ones go back); requests counted in the ledger.
        with using_cache(self._answers), using_ledger(self._ledger):
            return list(await asyncio.gather(*(one(e, label) for e, label in chunk)))


_ACTOR_ENGINES: dict[str, Any] = {}
"""The store engines of an actor's runs' rate ledgers, by URL."""


def _store_ledger(url: str | None) -> RateLedger | None:
    if url is None:
        return None
    from scorer_runtime.store.engine import make_engine
    from scorer_runtime.store.rate_windows import ledger_for

    try:
        if url not in _ACTOR_ENGINES:  # an actor serves many runs of one store
            _ACTOR_ENGINES[url] = make_engine(url)
        return ledger_for(_ACTOR_ENGINES[url])
    except Exception as e:  # an SQLite file of another machine: limits hold per actor
        _log.warning("The judge rate limits cannot be shared from this actor (%s).", e)
        return None


@dataclass(frozen=True)
class _Job:
    """What every actor of a run is given: the scorer's source and the ``ray.put``
    reference of the run's cached judge answers (None: the run uses no cache)."""

    source: dict[str, Any]
    answers: Any
    ledger: str | None = None


@dataclass(eq=False)
class _Slot:
    """One actor place of the pool: the actor there now and how often it was replaced."""

    actor: Any
    share: int = 1
    restarts: int = 0
    delivered: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class _Chunks:
    """Chunks of up to ``size`` examples taken from the runner's queue (until its None)."""

    def __init__(self, examples: asyncio.Queue[ExampleInput | None], size: int) -> None:
        self.examples, self.size, self.done = examples, size, False

    async def next(self) -> list[ExampleInput] | None:
        if self.done:
            return None
        first = await self.examples.get()
        chunk = [] if first is None else [first]
        while first is not None and len(chunk) < self.size and not self.examples.empty():
            item = self.examples.get_nowait()
            if item is None:
                first = None
                break
            chunk.append(item)
        if first is None:
            self.done = True
            self.examples.put_nowait(None)  # the next lane waiting for examples sees the end
        return chunk or None


class RayPool:
    """``actors`` scoring actors on the Ray cluster this process joined; reusable across
    runs (one at a time), like a WorkerPool. Make one with :meth:`join`."""

    remote = True
    """A run given this pool is always scored by its actors (never in this process)."""

    def __init__(self, actors: int, *, max_restarts: int = 3) -> None:
        if actors < 1:
            raise ValueError("a Ray run needs at least one actor")
        self.processes = actors
        self.max_restarts = max_restarts
        """Replacements allowed per actor place in one run before the run stops."""
        self._slots: list[_Slot] = []
        self._turn = asyncio.Lock()
        self._remote: Any = None

    @classmethod
    def join(
        cls, address: str | None, *, actors: int | None = None, timeout_s: float = CONNECT_TIMEOUT_S
    ) -> RayPool:
        """A pool on the cluster at ``address`` ("auto": the one started on this machine
        with ``ray start --head``; ``ray://host:10001``; None: a local cluster for this
        process), with one actor per CPU of the cluster unless ``actors`` is given.
        Raises :class:`RayUnreachableError` within about ``timeout_s`` seconds."""
        connect(address, timeout_s=timeout_s)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        return cls(actors or max(1, cpus))

    @property
    def actors(self) -> list[Any]:
        """The actor handles working now (for ``ray.kill`` in fault tests)."""
        return [slot.actor for slot in self._slots]

    @property
    def delivered(self) -> list[int]:
        """Outcomes received per actor place since the pool started."""
        return [slot.delivered for slot in self._slots]

    async def __aenter__(self) -> RayPool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Stop the actors (their work in flight is dropped)."""
        slots, self._slots = self._slots, []
        for slot in slots:
            with contextlib.suppress(Exception):
                ray.kill(slot.actor)

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
        """Score each example taken from ``examples`` (until a None), handing each outcome
        to ``deliver``; at most ``concurrency`` at once over all actors. Raises
        :class:`RayCrashError` when an actor place keeps losing its actor. When cancelled,
        the actors drop their chunks (their judge calls are cancelled) and stay ready.

        ``cache`` (the store's ``url`` and the run's ``scorer_id``; None: no cache): the
        scorer's stored judge answers are read here once and shipped to every actor."""
        async with self._turn:
            while len(self._slots) < self.processes:
                self._slots.append(_Slot(self._spawn()))
            active = self._slots[: max(1, min(len(self._slots), concurrency))]
            data = _Job(source.to_data(), await _shipped_answers(cache), ledger)
            for slot, share in zip(active, shares(concurrency, len(active)), strict=True):
                slot.share, slot.restarts = share, 0
            await _together(self._prepare(slot, slot.actor, data) for slot in active)
            size = max(1, math.ceil(2 * max(s.share for s in active) / _LANES))
            chunks = _Chunks(examples, size)
            await _together(
                self._lane(slot, chunks, data, deliver, label)
                for slot in active
                for _ in range(_LANES)
            )

    def _spawn(self) -> Any:
        if self._remote is None:
            self._remote = ray.remote(ScoringActor)
        options = {"num_cpus": 1, "max_concurrency": _LANES + 4, "max_restarts": 0}
        return self._remote.options(**options).remote()

    async def _prepare(self, slot: _Slot, actor: Any, data: _Job) -> None:
        problem = await actor.prepare.remote(data.source, slot.share, data.answers, data.ledger)
        if problem is not None:
            raise WorkerCrashError(
                f"a Ray actor cannot run the scorer ({problem}); every machine of the "
                "cluster needs the scorer's judge key in its environment before `ray start`"
            )

    async def _lane(
        self,
        slot: _Slot,
        chunks: _Chunks,
        data: _Job,
        deliver: Callable[[ExampleScore], None],
        label: Callable[[ExampleInput], str],
    ) -> None:
        while (chunk := await chunks.next()) is not None:
            outcomes = await self._send(slot, [(e, label(e)) for e in chunk], data)
            slot.delivered += len(outcomes)
            for outcome in outcomes:
                deliver(outcome)

    async def _send(
        self, slot: _Slot, items: list[tuple[ExampleInput, str]], data: _Job
    ) -> list[ExampleScore]:
        """The chunk's outcomes, sent again to a replacement while its actor dies."""
        while True:
            actor = slot.actor
            ref = actor.score.remote(items)
            try:
                outcomes: list[ExampleScore] = await ref
                return outcomes
            except RayActorError:
                await self._replace(slot, actor, data)
            except asyncio.CancelledError:  # the run stops: so do the chunk's judge calls
                with contextlib.suppress(Exception):
                    ray.cancel(ref)
                with contextlib.suppress(TimeoutError):  # until the actor has stopped them
                    await asyncio.wait_for(_settled(ref), 5.0)
                raise

    async def _replace(self, slot: _Slot, dead: Any, data: _Job) -> None:
        """Put a new actor in ``slot`` (once, whichever of its lanes saw ``dead`` die)."""
        async with slot.lock:
            if slot.actor is not dead:
                return
            while True:
                if slot.restarts >= self.max_restarts:
                    raise RayCrashError(
                        f"a Ray actor of the run died {slot.restarts + 1} times; the results "
                        "already received are kept: check the cluster (`ray status`) and "
                        "resume the run to score the rest"
                    )
                slot.restarts += 1
                with contextlib.suppress(Exception):
                    ray.kill(slot.actor)  # maybe only unreachable: not beside its heir
                slot.actor = self._spawn()
                with contextlib.suppress(RayActorError):  # the heir died too: another
                    await self._prepare(slot, slot.actor, data)
                    return


async def _shipped_answers(cache: Mapping[str, Any] | None) -> Any:
    """The run's judge answer cache read from the store named by ``cache`` and put in Ray's
    object store once for all actors (None: the run uses no cache)."""
    if cache is None or not isinstance(url := cache.get("url"), str):
        return None
    scorer_id = cache.get("scorer_id")
    engine = make_engine(url)
    try:
        known = await asyncio.to_thread(
            scorer_answers, engine, scorer_id=scorer_id if isinstance(scorer_id, int) else None
        )
    except Exception as e:  # the answers cannot be read: they are asked (and stored) anew
        _log.warning("The judge answer cache could not be read (%s); the judge is asked.", e)
        known = {}
    finally:
        engine.dispose()
    return ray.put(known)


async def _settled(ref: Any) -> None:
    """Wait for a Ray task to end, however it ends."""
    with contextlib.suppress(Exception):
        await ref


async def _together(work: Iterable[Awaitable[None]]) -> None:
    """Await all of ``work``; the first failure cancels the rest and is raised as itself."""
    tasks = [asyncio.ensure_future(w) for w in work]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            if (error := task.exception()) is not None:
                raise error
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def connect(address: str | None, *, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Join the Ray cluster at ``address`` (see :meth:`RayPool.join`) unless joined already;
    :class:`RayUnreachableError` in words when it does not answer within ``timeout_s``."""
    if ray.is_initialized():
        return
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # nothing leaves the cluster
    where = "a new local Ray cluster" if address is None else f"the Ray cluster at {address}"
    _check_reachable(address, where, timeout_s)
    failure: list[BaseException] = []

    def init() -> None:
        try:
            options: dict[str, Any] = {"log_to_driver": False, "logging_level": "WARNING"}
            if address is None:
                options["include_dashboard"] = False
            # "local": a new cluster even when RAY_ADDRESS or a `ray start` of this machine
            # names another (Ray would join that one when given no address).
            ray.init(address=address or "local", **options)
        except BaseException as e:
            failure.append(e)

    if address is None:
        # Starting a cluster here: Ray ties its processes' lives to the starting thread's.
        init()
        _raise_failure(failure, where)
        return
    thread = threading.Thread(target=init, name="ray-connect", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        raise RayUnreachableError(
            f"{where} did not answer within {timeout_s:g} s; check the address and that the "
            "cluster is up (`ray status` on its head machine). The run was not started"
        )
    _raise_failure(failure, where)


def _raise_failure(failure: list[BaseException], where: str) -> None:
    if failure:
        first = (str(failure[0]).strip().splitlines() or [type(failure[0]).__name__])[0]
        hint = (
            "start one with `ray start --head`, or give its address with --address. "
            "The run was not started"
        )
        raise RayUnreachableError(f"could not join {where} ({first}); {hint}")


def _check_reachable(address: str | None, where: str, timeout_s: float) -> None:
    """Fail at once when nothing listens at a host:port address (Ray would retry for long)."""
    if address is None or address == "auto":
        return
    parts = urlsplit(address if "://" in address else f"ray://{address}")
    if parts.hostname is None or parts.port is None:
        return
    try:
        socket.create_connection((parts.hostname, parts.port), timeout=min(3.0, timeout_s)).close()
    except OSError as e:
        raise RayUnreachableError(
            f"nothing answers at {where} ({e.strerror or e}); start the cluster there with "
            "`ray start --head` or check the address. The run was not started"
        ) from None
