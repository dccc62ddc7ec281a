"""Shared helpers for the benchmarks: repeated measurement, medians, the result table."""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The fake OpenAI-compatible server and the browser helpers live with the tests; benchmarks
# reuse them. After the project itself: tests/studio must not hide the studio's package.
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "tests"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")


SMOKE = os.environ.get("SCORER_BENCH_SMOKE") == "1"
"""``bench/run.py --smoke``: every benchmark runs at a tiny size, to prove it still works
(its figures mean nothing then and no target is judged). Read when a module is imported."""


def size(full: int, smoke: int) -> int:
    """``full`` for a real measurement, ``smoke`` in a smoke pass."""
    return smoke if SMOKE else full


@dataclass(frozen=True)
class Figure:
    """One line of the benchmark table."""

    id: str
    measure: str
    value: float
    unit: str
    target: str
    met: bool | None
    note: str = ""


def median_of(runs: int, measure: Callable[[], float]) -> float:
    """The median of ``runs`` calls of ``measure`` (these machines are shared and noisy)."""
    return statistics.median(measure() for _ in range(runs))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def print_table(figures: list[Figure]) -> None:
    header = f"{'id':<5} {'measure':<58} {'value':>12} {'unit':<8} {'target':<12} met"
    print(header)
    print("-" * len(header))
    for f in figures:
        met = "-" if f.met is None else ("yes" if f.met else "NO")
        value = f"{f.value:,.3f}" if f.value < 100 else f"{f.value:,.0f}"
        print(f"{f.id:<5} {f.measure:<58} {value:>12} {f.unit:<8} {f.target:<12} {met}")
        if f.note:
            print(f"      {f.note}")
