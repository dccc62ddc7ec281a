"""P3, the score store on SQLite: bulk insert rate, history pages and aggregates.

    python bench/bench_store.py [--rows N] [--scorers K] [--repeat R] [--keep PATH]

Inserts N score rows (default 1,000,000) spread over K scorers (two versions each), five
datasets and 90 days, through the same ``add_scores`` the batch runner uses, then times the
queries the studio makes for one scorer: the newest-50 history page, a deep page (keyset),
and each aggregate. Prints a table; asserts nothing. Targets: >= 50,000 rows/s, p95 <= 50 ms.
``run()`` gives the figures of ``make bench``: the insert rate is the median of three loads
of N rows into a fresh file, the query times are measured on the last one.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from common import Figure, size

from scorer_runtime.spec import ScorerSpec
from scorer_runtime.store import (
    ExampleData,
    ScoreFilter,
    add_examples,
    add_scores,
    create_dataset,
    ensure_schema,
    list_scores,
    make_engine,
    mean_per_day,
    median_score,
    outcome_counts,
    read_session,
    save_scorer_version,
    score_histogram,
    score_stats,
    session_scope,
)

OUTCOMES = ["scored"] * 8 + ["not_scorable", "step_error", "provider_error", "judge_format_error"]
START = datetime(2026, 8, 1, tzinfo=UTC)
CHUNK = 20_000


def _setup(engine: Any, scorers: int) -> tuple[list[tuple[int, int]], list[int]]:
    versions = []
    with session_scope(engine) as session:
        for i in range(scorers):
            for v in range(2):
                spec = {"id": f"scorer-{i}", "description": f"version {v}", "steps": []}
                record = save_scorer_version(session, spec=ScorerSpec.model_validate(spec))
                versions.append((record.scorer_id, record.id))
        datasets = []
        for d in range(5):
            dataset = create_dataset(session, name=f"dataset-{d}")
            add_examples(session, dataset_id=dataset.id, examples=[ExampleData(output="x")])
            datasets.append(dataset.id)
    return versions, datasets


def _rows(
    rng: random.Random,
    n: int,
    versions: list[tuple[int, int]],
    datasets: list[int],
    window: tuple[float, float],
) -> list[dict[str, Any]]:
    """``n`` score rows timed within ``window`` (seconds after START), oldest first."""
    rows = []
    for at in sorted(rng.uniform(*window) for _ in range(n)):
        scorer_id, version_id = rng.choice(versions)
        outcome = rng.choice(OUTCOMES)
        score = round(rng.random(), 4) if outcome == "scored" else None
        rows.append(
            {
                "scorer_id": scorer_id,
                "scorer_version_id": version_id,
                "dataset_id": rng.choice(datasets),
                "outcome": outcome,
                "score": score,
                "reason": "The answer is polite and complete." if score is not None else None,
                "step_results": {"analyze_step_result": {"verdict": "polite"}},
                "prompts": {"analyze": "Label the tone of this answer: ..."},
                "attempts": 1,
                "latency_ms": rng.uniform(200, 2000),
                "input_tokens": 120,
                "output_tokens": 30,
                "total_tokens": 150,
                "cost": 0.0001,
                "created_at": START + timedelta(seconds=at),
            }
        )
    return rows


def insert(engine: Any, rows: int, scorers: int) -> tuple[float, list[tuple[int, int]], float]:
    """Insert ``rows`` scores; return (rows per second, versions, rows per CPU second)."""
    rng = random.Random(42)
    versions, datasets = _setup(engine, scorers)
    elapsed = cpu = 0.0
    done = 0
    span = 90 * 24 * 3600
    while done < rows:
        # Scores arrive over time, as runs finish: each chunk is the next slice of 90 days.
        n = min(CHUNK, rows - done)
        window = (span * done / rows, span * (done + n) / rows)
        batch = _rows(rng, n, versions, datasets, window)
        started, cpu_started = time.perf_counter(), time.process_time()
        with session_scope(engine) as session:  # row generation is not the store's cost
            add_scores(session, rows=batch)
        elapsed += time.perf_counter() - started
        cpu += time.process_time() - cpu_started
        done += len(batch)
        print(f"\r  inserted {done:,} rows", end="", file=sys.stderr, flush=True)
    print("\r" + " " * 40 + "\r", end="", file=sys.stderr, flush=True)
    return rows / elapsed, versions, rows / cpu


def raw_insert_rate(path: Path, rows: int, scorers: int) -> float:
    """The same kind of rows through sqlite3's executemany, no SQLAlchemy: the floor to beat."""
    import json
    import sqlite3

    engine = make_engine(f"sqlite:///{path}")
    ensure_schema(engine)
    versions, datasets = _setup(engine, scorers)
    engine.dispose()
    rng = random.Random(42)
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA synchronous=NORMAL")
    elapsed, done, span = 0.0, 0, 90 * 24 * 3600
    while done < rows:
        n = min(CHUNK, rows - done)
        batch = _rows(rng, n, versions, datasets, (span * done / rows, span * (done + n) / rows))
        columns = list(batch[0])
        sql = f"INSERT INTO scores ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        started = time.perf_counter()
        values = [
            [
                json.dumps(v)
                if isinstance(v, dict)
                else v.strftime("%Y-%m-%d %H:%M:%S.%f")
                if isinstance(v, datetime)
                else v
                for v in row.values()
            ]
            for row in batch
        ]
        with connection:
            connection.executemany(sql, values)
        elapsed += time.perf_counter() - started
        done += n
    connection.close()
    return rows / elapsed


def _time(fn: Callable[[Any, int], Any], engine: Any, keys: list[int], repeat: int) -> list[float]:
    times = []
    with read_session(engine) as session:
        fn(session, keys[0])  # warm the page cache and the statement cache
        for i in range(repeat):
            started = time.perf_counter()
            fn(session, keys[i % len(keys)])
            times.append((time.perf_counter() - started) * 1000)
    return times


def _deep_page(session: Any, scorer_id: int) -> Any:
    query = ScoreFilter(scorer_id=scorer_id)
    first = list_scores(session, filter=query, limit=50)
    cursor = first.next_cursor
    assert cursor is not None
    # Jump far down the history (as after many "next page" clicks) and read one page there.
    at = cursor[0] - timedelta(days=60)
    return list_scores(session, filter=query, after=(at, cursor[1]), limit=50)


QUERIES: dict[str, Callable[[Any, int], Any]] = {
    "history: newest 50": lambda s, k: list_scores(s, filter=ScoreFilter(scorer_id=k), limit=50),
    "history: a page 60 days back": _deep_page,
    "stats (count/mean/median/pass/outcomes/cost)": lambda s, k: score_stats(
        s, filter=ScoreFilter(scorer_id=k), threshold=0.5
    ),
    "median": lambda s, k: median_score(s, filter=ScoreFilter(scorer_id=k)),
    "histogram (10 bins)": lambda s, k: score_histogram(
        s, filter=ScoreFilter(scorer_id=k), lo=0.0, hi=1.0
    ),
    "mean per day": lambda s, k: mean_per_day(s, filter=ScoreFilter(scorer_id=k)),
    "outcome counts": lambda s, k: outcome_counts(s, filter=ScoreFilter(scorer_id=k)),
    "stats of one version, last 7 days": lambda s, k: score_stats(
        s,
        filter=ScoreFilter(scorer_version_id=k * 2, since=START + timedelta(days=83)),
        threshold=0.5,
    ),
}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--scorers", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--keep", type=Path, help="Write the database here and keep it.")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "bench.db"
        engine = make_engine(f"sqlite:///{path}")
        ensure_schema(engine)
        rate, versions, _ = insert(engine, args.rows, args.scorers)
        scorer_ids = sorted({s for s, _ in versions})
        size_mb = path.stat().st_size / 1e6
        print(f"\nSQLite store: {args.rows:,} scores, {args.scorers} scorers, {size_mb:,.0f} MB")
        raw = raw_insert_rate(Path(tmp) / "raw.db", args.rows, args.scorers)
        print(f"bulk insert: {rate:,.0f} rows/s (target >= 50,000)")
        print(f"  same rows through raw sqlite3 executemany: {raw:,.0f} rows/s")
        print(f"  store / raw: {rate / raw:.2f}\n")
        title = f"query (one scorer, ~{args.rows // args.scorers:,} rows)"
        print(f"{title:<48} {'p50 ms':>8} {'p95 ms':>8}")
        for name, fn in QUERIES.items():
            times = _time(fn, engine, scorer_ids, args.repeat)
            print(f"{name:<48} {statistics.median(times):>8.2f} {_pct(times, 0.95):>8.2f}")
        print("\ntarget: p95 <= 50 ms")
        engine.dispose()


FIGURES = (
    "history: newest 50",
    "stats (count/mean/median/pass/outcomes/cost)",
    "median",
    "histogram (10 bins)",
    "mean per day",
    "outcome counts",
    "stats of one version, last 7 days",
)


def run(
    rows: int = size(1_000_000, 2_000),
    scorers: int = size(20, 2),
    loads: int = size(3, 1),
    repeat: int = size(40, 2),
) -> list[Figure]:
    """The P3 figures (see the module docstring)."""
    rates, cpu_rates = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for load in range(loads):
            path = Path(tmp) / f"bench-{load}.db"
            engine = make_engine(f"sqlite:///{path}")
            ensure_schema(engine)
            rate, versions, cpu_rate = insert(engine, rows, scorers)
            rates.append(rate)
            cpu_rates.append(cpu_rate)
            if load < loads - 1:
                engine.dispose()
                path.unlink()
        scorer_ids = sorted({s for s, _ in versions})
        times = {name: _time(QUERIES[name], engine, scorer_ids, repeat) for name in FIGURES}
        engine.dispose()
    rate, cpu_rate = statistics.median(rates), statistics.median(cpu_rates)
    figures = [
        Figure(
            "P3",
            f"bulk insert of {rows:,} scores (add_scores, 20,000 a batch)",
            rate,
            "rows/s",
            ">= 50,000",
            rate >= 50_000,
            f"{cpu_rate:,.0f} rows per CPU second (what an idle core would give)",
        )
    ]
    for name in FIGURES:
        p95, p50 = _pct(times[name], 0.95), statistics.median(times[name])
        per_scorer = f"~{rows // scorers:,} rows of one scorer"
        figures.append(
            Figure(
                "P3",
                f"{name}, p95",
                p95,
                "ms",
                "<= 50",
                p95 <= 50,
                f"p50 {p50:.1f} ms; {per_scorer}",
            )
        )
    return figures


if __name__ == "__main__":
    main()
