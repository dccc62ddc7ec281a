"""P14: what the crash-safe spend cap costs a run: a capped run against the same run uncapped.

A capped run writes each example's worst case to the store before it is sent (one short
transaction with the cap check) and deletes it in the commit that stores the result. The run
is P2's (stored spec with one prompt step, the fake judge 50 ms away in its own process, a
real SQLite file), in one process at concurrency 8, each way; the figure is the capped run's
wall time over the uncapped one's (1.0: the cap costs nothing). The judge's model has no
price, so the run is capped with ``allow_unpriced``: it sets aside $0 per example, the
same store writes as a priced run, and never stops at the cap.

    python bench/bench_spend_cap.py [--examples N] [--repeat R]
"""

from __future__ import annotations

import argparse
import asyncio

from bench_batch import LATENCY_S, Bench, fake_server, setup
from common import Figure, print_table, size

CONCURRENCY = 8
CAP = 1_000.0


async def _measure(bench: Bench, repeat: int) -> tuple[float, float]:
    options = {"concurrency": CONCURRENCY, "processes": 1}
    capped = {**options, "max_cost": CAP, "allow_unpriced": True}
    await bench.wall(**options)  # warm-up: this process imports its client
    free, held = [], []
    for _ in range(repeat):  # interleaved: a busy moment of the machine hits both
        free.append(await bench.wall(**options))
        held.append(await bench.wall(**capped))
    return sorted(free)[len(free) // 2], sorted(held)[len(held) // 2]


def run(examples: int = size(400, 20), repeat: int = size(3, 1)) -> list[Figure]:
    with fake_server(LATENCY_S) as url, setup(url, examples) as bench:
        free, held = asyncio.run(_measure(bench, repeat))
    ratio = held / free
    per_example_ms = (held - free) / examples * 1000
    return [
        Figure(
            "P14",
            f"{examples} examples, 50 ms judge, conc. {CONCURRENCY}: capped / uncapped wall",
            ratio,
            "x",
            "<= 1.10",
            ratio <= 1.10,
            f"uncapped {free:.2f} s, capped {held:.2f} s: {per_example_ms:+.2f} ms per example "
            "(a reservation written before each example, given back in its result's commit)",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print_table(run(args.examples, args.repeat))


if __name__ == "__main__":
    main()
