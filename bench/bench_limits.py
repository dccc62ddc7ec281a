"""P11: big runs at the provider's rate limit.

The fake judge (the tests' server, in its own process) admits R requests a second, a token
bucket holding one second's worth, and answers 429 with ``Retry-After: 1`` above it, counting
every request of each second as it arrives. A scorer with one prompt step (retries as the
demo judges have them: 2, honouring Retry-After) scores N examples at concurrency 32 through
the batch runner and its warm worker processes (as a runner does), the answer cache off:

- with no limit set on the judge (the runner slows down after 429s by itself);
- with the judge profile's limit set to the provider's (R x 60 requests a minute);
- two runners on one store (this process and another), with one profile's limit, each
  scoring half.

``--smoke`` scores 40 examples, in this process rather than worker processes.

The floor is N / R seconds: no run can be faster at the provider. Each figure is a ratio
of one run (the bench is long enough that one run is many seconds at the limit).

    python bench/bench_limits.py [--examples N] [--rate R]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_batch import KEY_ENV, judge_spec
from common import SMOKE, Figure, print_table, size
from sqlalchemy import text

from scorer_runtime.batch import BatchRunner, WorkerPool
from scorer_runtime.judge.client import warm
from scorer_runtime.runs import run_batch
from scorer_runtime.saved_scorers import scorer_source
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ExampleData,
    add_examples,
    create_dataset,
    create_run,
    ensure_schema,
    get_version_by_id,
    make_engine,
    save_judge_profile,
    save_scorer_version,
    session_scope,
)

HERE = Path(__file__).resolve().parent
LATENCY_S = 0.05
CONCURRENCY = 32


@dataclass
class Provider:
    """The fake provider's process: its URL, and its per-second counts."""

    process: subprocess.Popen[str]
    url: str

    def ask(self, line: str) -> str:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.process.stdout.readline().strip()

    def reset(self) -> None:
        self.ask("reset")

    def seconds(self) -> list[tuple[int, int, int]]:
        return [tuple(s) for s in json.loads(self.ask("counts"))]


@contextmanager
def provider(rate: float) -> Iterator[Provider]:
    process = subprocess.Popen(
        [sys.executable, str(HERE / "fake_limited_server.py"), str(rate), str(LATENCY_S)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        yield Provider(process, process.stdout.readline().strip())
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=10)


def _profile(url: str, requests_per_minute: int | None) -> dict[str, Any]:
    judge = dict(judge_spec(url)["judge"])
    judge["retry"] = {"max_retries": 2}  # the demo judges' policy
    if requests_per_minute is not None:
        judge["requests_per_minute"] = requests_per_minute
    return judge


@dataclass(frozen=True)
class Store:
    engine: Any
    url: str
    versions: dict[str, int]
    datasets: dict[str, int]


@contextmanager
def store(url: str, rate: float, examples: int) -> Iterator[Store]:
    os.environ.setdefault(KEY_ENV, "sk-bench")  # the workers inherit it
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'p11.db'}"
        engine = make_engine(db)
        ensure_schema(engine)
        versions, datasets = {}, {}
        with session_scope(engine) as session:
            for name, limit in (("open", None), ("limited", round(rate * 60))):
                judge = _profile(url, limit)
                save_judge_profile(
                    session,
                    name=name,
                    model=judge.pop("model"),
                    api_base=judge.pop("api_base"),
                    api_key_env=judge.pop("api_key_env"),
                    settings=judge,
                )
                spec = {**judge_spec(url), "id": f"p11-{name}", "judge": name}
                version = save_scorer_version(session, spec=load_spec(spec))
                assert version.id is not None
                versions[name] = version.id
            sets = (("all", examples), ("half-a", examples // 2), ("warm-up", 4))
            for name, count in sets:
                dataset = create_dataset(session, name=name)
                assert dataset.id is not None
                rows = [ExampleData(output=f"{name} answer {i}") for i in range(count)]
                add_examples(session, dataset_id=dataset.id, examples=rows)
                datasets[name] = dataset.id
            dataset = create_dataset(session, name="half-b")
            assert dataset.id is not None
            rows = [ExampleData(output=f"half-b answer {i}") for i in range(examples // 2)]
            add_examples(session, dataset_id=dataset.id, examples=rows)
            datasets["half-b"] = dataset.id
        try:
            yield Store(engine, db, versions, datasets)
        finally:
            engine.dispose()


@dataclass(frozen=True)
class Outcome:
    wall_s: float
    failed: int
    received: int
    refused: int
    busiest: int

    @property
    def refused_share(self) -> float:
        return self.refused / self.received if self.received else 0.0


def _outcome(wall: float, failed: int, seconds: list[tuple[int, int, int]]) -> Outcome:
    received = sum(r for _, r, _ in seconds)
    refused = sum(f for _, _, f in seconds)
    return Outcome(wall, failed, received, refused, max((r for _, r, _ in seconds), default=0))


async def _one_run(
    bench: Store, fake: Provider, profile: str, pool: WorkerPool | None, dataset: str = "all"
) -> Outcome:
    with session_scope(bench.engine) as session:
        version = get_version_by_id(session, version_id=bench.versions[profile])
        source = scorer_source(session, version)
    fake.reset()
    started = time.perf_counter()
    summary = await run_batch(
        bench.engine,
        source.build(),
        scorer_version_id=bench.versions[profile],
        dataset_id=bench.datasets[dataset],
        concurrency=CONCURRENCY,
        source=source,
        pool=pool,
        processes=1 if pool is None else None,
        use_cache=False,
    )
    wall = time.perf_counter() - started
    failed = summary.done - summary.scored
    return _outcome(wall, failed, fake.seconds())


def _start_runner(url: str, run_id: int) -> subprocess.Popen[str]:
    """A runner process for ``run_id``, its model client loaded, waiting for "go"."""
    other = subprocess.Popen(
        [sys.executable, str(HERE / "limits_runner.py"), url, str(run_id)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert other.stdout is not None
    if other.stdout.readline().strip() != "ready":
        raise RuntimeError("the second P11 runner did not start")
    return other


async def _two_runners(bench: Store, fake: Provider) -> Outcome:
    """This process and a runner process, each scoring half, on one store and one profile."""
    run_ids = []
    with session_scope(bench.engine) as session:
        for half in ("half-a", "half-b"):
            run = create_run(
                session,
                scorer_version_id=bench.versions["limited"],
                dataset_id=bench.datasets[half],
                concurrency=CONCURRENCY // 2,
                use_cache=False,
            )
            run_ids.append(run.id)
        version = get_version_by_id(session, version_id=bench.versions["limited"])
        scorer = scorer_source(session, version).build()
    other = await asyncio.to_thread(_start_runner, bench.url, run_ids[1])
    assert other.stdin is not None
    fake.reset()
    started = time.perf_counter()
    other.stdin.write("go\n")
    other.stdin.flush()
    here = BatchRunner(bench.engine, scorer, run_id=run_ids[0], processes=1)
    _, (out, _) = await asyncio.gather(
        here.run(), asyncio.to_thread(other.communicate, timeout=600)
    )
    wall = time.perf_counter() - started
    if other.returncode:
        raise RuntimeError(f"the second P11 runner failed (exit {other.returncode}): {out[-500:]}")
    with bench.engine.connect() as connection:
        failed = connection.execute(
            text("SELECT count(*) FROM scores WHERE outcome != 'scored' AND run_id IN (:a, :b)"),
            {"a": run_ids[0], "b": run_ids[1]},
        ).scalar_one()
    return _outcome(wall, int(failed), fake.seconds())


async def _measure(bench: Store, fake: Provider) -> dict[str, Outcome]:
    await warm()
    if SMOKE:  # in this process: no worker to start
        found = {"open": await _one_run(bench, fake, "open", None)}
        found["limited"] = await _one_run(bench, fake, "limited", None)
    else:
        async with WorkerPool(os.cpu_count() or 1) as pool:
            await pool.start()
            await _one_run(bench, fake, "limited", pool, "warm-up")  # workers load their client
            found = {"open": await _one_run(bench, fake, "open", pool)}
            found["limited"] = await _one_run(bench, fake, "limited", pool)
    found["two"] = await _two_runners(bench, fake)
    return found


def run(examples: int = size(1000, 40), rate: float = 20.0) -> list[Figure]:
    with provider(rate) as fake, store(fake.url, rate, examples) as bench:
        found = asyncio.run(_measure(bench, fake))
    floor = examples / rate
    return _figures(found, floor, examples, rate)


def _figures(found: dict[str, Outcome], floor: float, examples: int, rate: float) -> list[Figure]:
    open_, limited, two = found["open"], found["limited"], found["two"]
    head = f"{examples} examples, conc. {CONCURRENCY}, provider {rate:g}/s"
    figures = []
    for outcome, what, wall_target, share_target in (
        (open_, "no limit set", 1.3, 0.10),
        (limited, "limit set to the provider's", 1.15, 0.01),
    ):
        ratio = outcome.wall_s / floor
        figures.append(
            Figure(
                "P11",
                f"{head}, {what}: wall",
                ratio,
                "x floor",
                f"<= {wall_target}",
                ratio <= wall_target and outcome.failed == 0,
                f"{outcome.wall_s:.1f} s for a floor of {floor:.0f} s; {outcome.failed} failed "
                f"(target 0); busiest second {outcome.busiest} requests",
            )
        )
        figures.append(
            Figure(
                "P11",
                f"same, {what}: 429s of all requests",
                100 * outcome.refused_share,
                "%",
                f"<= {100 * share_target:g}",
                outcome.refused_share <= share_target,
                f"{outcome.refused} of {outcome.received} requests",
            )
        )
    busiest = two.busiest / rate
    figures.append(
        Figure(
            "P11",
            "two runners on one store, one profile: busiest second",
            busiest,
            "x limit",
            "<= 1.2",
            busiest <= 1.2 and two.failed == 0,
            f"{two.received} requests, {two.refused} refused, {two.failed} failed, "
            f"wall {two.wall_s / floor:.2f}x the floor",
        )
    )
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=size(1000, 40))
    parser.add_argument("--rate", type=float, default=20.0)
    args = parser.parse_args()
    print_table(run(args.examples, args.rate))
