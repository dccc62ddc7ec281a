"""A warm runner: one long-lived process that claims queued runs and scores them.

``scorer-studio worker`` imports the judge client once, then polls the store several times a
second (a cheap read; the claim itself is one atomic ``UPDATE`` — see
:mod:`scorer_runtime.store.queue`) and runs each claimed run with :class:`BatchRunner`, up to
``max_runs`` at once, with the resume, cancel and writer semantics of any run. It beats its
row in ``runners`` every second, idle or not, and takes over running runs whose runner
stopped beating (or, on this host, was killed). Several runners, on several machines, may
serve one PostgreSQL store. Beside the queue it scores the new traces of every scoring rule
as they are stored (:mod:`scorer_runtime.batch.rule_scoring`). Given the actors of a Ray
cluster (``pool``), a runner has each claimed run scored there, one run at a time, and
stores the scores itself as always.

When it stops (SIGTERM, Ctrl-C, or — when *attached* — its standard input closing because
the studio that started it ended), it stops its runs, keeps what they finished and puts them
back in the queue for the next runner. An attached runner also reads key variables the
studio hands it on that pipe (a key pasted in the studio after the runner started): one JSON
object per line, ``{"env": {"NAME": "value"}}``; they live in its memory only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
import threading
import time
from dataclasses import dataclass, field

from sqlalchemy import Engine

from scorer_runtime.batch.rule_alerts import RuleAlerts
from scorer_runtime.batch.rule_scoring import RuleScoring
from scorer_runtime.batch.runner import BatchRunner
from scorer_runtime.batch.sharding import Shards
from scorer_runtime.judge.client import warm
from scorer_runtime.process import this_runner
from scorer_runtime.saved_scorers import check_judges, scorer_source
from scorer_runtime.store.engine import read_session, session_scope
from scorer_runtime.store.queue import (
    claim_queued,
    claim_stalled,
    hand_back,
    queued_run_waiting,
    remove_runner,
    runner_beat,
    stalled_runs,
)
from scorer_runtime.store.runs import finish_run, get_run
from scorer_runtime.store.scorers import get_version_by_id
from scorer_runtime.traces.evaluation_events import EvaluationSender

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
RULES_STOP_S = 10.0
"""How long a stopping runner lets the scoring rules' poll under way store its scores; past
it the poll is stopped (the traces it took and did not store stay counted, never scored)."""


@dataclass
class QueueRunner:
    """Claims and runs queued runs of ``engine``'s store until :meth:`stop` (or its stop
    event) is set. ``poll_s``: how often it looks for a queued run; ``beat_s``: how often it
    beats its row and looks for runs whose runner died; ``pool``: the Ray actors (or worker
    processes) that score every claimed run, one run at a time (None: this process)."""

    engine: Engine
    max_runs: int = 4
    pool: Shards | None = None
    poll_s: float = 0.1
    beat_s: float = 1.0
    say: bool = True
    rules: bool = True
    """Whether it also scores the new traces of the scoring rules (see ``rule_scoring``)."""
    rules_poll_s: float = 0.2
    export_otlp: str | None = None
    """The collector each rule's score is also sent to, as an evaluation event (None: not)."""
    name: str = field(default_factory=this_runner)
    active: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    _stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def serve(self) -> None:
        """Beat, warm the judge client, then serve until stopped; hand unfinished runs back."""
        beating = threading.Event()
        await asyncio.to_thread(self._beat)  # alive for the studio before the slow warm-up
        beater = threading.Thread(target=self._keep_beating, args=(beating,), daemon=True)
        beater.start()
        try:
            await warm()
            where = "" if self.pool is None else f" (scored by {self.pool.processes} actors)"
            self._say(f"Runner {self.name} is waiting for runs{where}.")
            rules = asyncio.create_task(self._serve_rules()) if self.rules else None
            try:
                await self._serve_queue()
            finally:
                if rules is not None:  # let a poll store what it scored, for a while
                    with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                        await asyncio.wait_for(rules, RULES_STOP_S)
        finally:
            beating.set()
            await self._shutdown()

    async def _serve_queue(self) -> None:
        last_look = time.monotonic()
        while not self._stop.is_set():
            if time.monotonic() - last_look >= self.beat_s:
                last_look = time.monotonic()
                await self._take_over_stalled()
            if await self._claim_one():
                continue  # there may be more waiting: look again at once
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self.poll_s)

    async def _serve_rules(self) -> None:
        """Score the new traces of every rule, looking again at once after a poll that
        scored something, else every ``rules_poll_s``."""
        events = None if self.export_otlp is None else EvaluationSender(self.export_otlp)
        alerts = RuleAlerts(self.engine, self.name, say=self._say)
        scoring = RuleScoring(self.engine, self.name, say=self._say, alerts=alerts, events=events)
        try:
            while not self._stop.is_set():
                try:
                    scored = await scoring.poll()
                except Exception as error:  # a busy or unreachable store: the next poll will do
                    self._say(f"The scoring rules could not be served just now: {error}")
                    scored = 0
                if scored:
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), self.rules_poll_s)
        finally:
            if events is not None:  # send what is queued before stopping
                await asyncio.to_thread(events.close)
                self._say(_events_words(events))

    def _keep_beating(self, done: threading.Event) -> None:
        """Beat every ``beat_s`` on its own thread: a busy event loop never looks dead."""
        while not done.wait(self.beat_s):
            with contextlib.suppress(Exception):  # a busy database: the next beat will do
                self._beat()

    def stop(self) -> None:
        """Ask the runner to stop (from its event loop's thread)."""
        self._stop.set()

    def _say(self, text: str) -> None:
        if self.say:
            print(text, flush=True)  # the runner's log is what it prints

    def _beat(self) -> None:
        with session_scope(self.engine) as session:
            runner_beat(session, name=self.name)

    def _room(self) -> bool:
        for run_id in [i for i, task in self.active.items() if task.done()]:
            del self.active[run_id]
        # A pool scores one run at a time: a second claimed run would only wait for it.
        return len(self.active) < (self.max_runs if self.pool is None else 1)

    async def _claim_one(self) -> bool:
        if not self._room():
            return False
        run_id = await asyncio.to_thread(self._claim_queued)
        if run_id is None:
            return False
        self._start(run_id)
        return True

    def _claim_queued(self) -> int | None:
        with read_session(self.engine) as session:
            if not queued_run_waiting(session):
                return None
        with session_scope(self.engine) as session:
            return claim_queued(session, runner=self.name)

    async def _take_over_stalled(self) -> None:
        with read_session(self.engine) as session:
            stalled = stalled_runs(session)
        for run in stalled:
            if not self._room():
                return
            with session_scope(self.engine) as session:
                taken = claim_stalled(session, run=run, runner=self.name)
            if taken:
                self._say(f"Run {run.id}: its runner stopped; resuming it here.")
                self._start(run.id)

    def _start(self, run_id: int) -> None:
        self.active[run_id] = asyncio.create_task(self._run(run_id), name=f"queued-run-{run_id}")

    async def _run(self, run_id: int) -> None:
        try:
            runner = await asyncio.to_thread(self._prepare, run_id)
            if runner is None:
                return
            self._say(f"Run {run_id}: started.")
            summary = await runner.run()
            self._say(f"Run {run_id}: {summary.done} of {summary.total} have a result.")
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the run is marked failed with it; the runner goes on
            self._say(f"Run {run_id} stopped: {error}")

    def _prepare(self, run_id: int) -> BatchRunner | None:
        """The run's BatchRunner; None (and the run failed, saying why) when it cannot run."""
        with session_scope(self.engine) as session:
            run = get_run(session, run_id=run_id)
            try:
                version = get_version_by_id(session, version_id=run.scorer_version_id)
                source = scorer_source(session, version, candidate_spec=run.candidate_spec)
                compiled = source.build()
                check_judges(compiled)
            except ValueError as error:  # the spec no longer compiles, a key is not set
                said = f"the runner could not start it: {error}"
                finish_run(session, run_id=run_id, status="failed", error=said)
                self._say(f"Run {run_id} did not start: {error}")
                return None
        return BatchRunner(self.engine, compiled, run_id=run_id, source=source, pool=self.pool)

    async def _shutdown(self) -> None:
        tasks = list(self.active.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.to_thread(self._leave, list(self.active))
        self._say(f"Runner {self.name} stopped.")

    def _leave(self, run_ids: list[int]) -> None:
        with session_scope(self.engine) as session:
            for run_id in run_ids:
                hand_back(session, run_id=run_id, runner=self.name)
            remove_runner(session, name=self.name)


def _events_words(events: EvaluationSender) -> str:
    words = f"Sent {events.delivered} evaluation events to {events.endpoint}."
    if events.failed:
        words += f" {events.failed} could not be sent: is the collector running there?"
    return words


def apply_env_line(line: bytes) -> None:
    """Set the variables of one line the studio sent (``{"env": {...}}``); other lines,
    and names that are not variable names, are ignored."""
    with contextlib.suppress(ValueError, AttributeError, TypeError):
        given = json.loads(line)["env"]
        for name, value in given.items():
            if _ENV_NAME.fullmatch(name) and isinstance(value, str) and value:
                os.environ[name] = value


def _watch_stdin(loop: asyncio.AbstractEventLoop, runner: QueueRunner) -> None:
    """Read what the studio sends until the pipe closes (the studio ended), then stop."""
    for line in sys.stdin.buffer:
        apply_env_line(line)
    loop.call_soon_threadsafe(runner.stop)


async def _serve(runner: QueueRunner, *, attached: bool) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, runner.stop)
    if attached:
        watcher = threading.Thread(target=_watch_stdin, args=(loop, runner), daemon=True)
        watcher.start()
    await runner.serve()


def serve_forever(
    engine: Engine,
    *,
    max_runs: int = 4,
    attached: bool = False,
    pool: Shards | None = None,
    export_otlp: str | None = None,
) -> None:
    """Run a :class:`QueueRunner` in this process until it is stopped (see the module)."""
    runner = QueueRunner(engine, max_runs=max_runs, pool=pool, export_otlp=export_otlp)
    asyncio.run(_serve(runner, attached=attached))
