"""P8, agreement with people: kappa and its intervals (50,000 Dirichlet draws) on 10,000 examples.

    python bench/bench_agreement.py [--examples N] [--resamples B] [--repeat R]

Times ``scorer_runtime.trust.agreement.measure`` (what the Trust page, ``agreement`` and
``gate`` call) on N pairs of a person's grade and the judge's score, for a pass/fail scale, a
three-label scale (quadratic-weighted kappa) and a number scale (Spearman and the mean absolute
error as well, with ties as people grade in quarters). Prints the median of R runs; asserts
nothing. Target: <= 1 s for the labelled scales.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from common import Figure, print_table, size

from scorer_runtime.trust import Scale
from scorer_runtime.trust.agreement import RESAMPLES, measure

TARGET_S = 1.0
SCALES = {
    "pass/fail": Scale("pass_fail"),
    "three labels": Scale("labels", (("polite", 1.0), ("neutral", 0.5), ("rude", 0.0))),
    "numbers": Scale("number"),
}


def _pairs(scale: Scale, n: int, rng: np.random.Generator) -> list[tuple[float, float]]:
    if scale.kind == "number":
        human = np.round(rng.random(n) * 4) / 4
        judge = np.clip(human + rng.normal(0, 0.15, n), 0, 1)
    else:
        values = np.array([score for _, score in scale.choices()])
        human = values[rng.integers(0, values.size, n)]
        judge = np.where(rng.random(n) < 0.8, human, values[rng.integers(0, values.size, n)])
    return list(zip(human.tolist(), judge.tolist(), strict=True))


def _seconds(pairs: list[tuple[float, float]], scale: Scale, resamples: int, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        measure(pairs, scale, resamples=resamples)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(
    examples: int = size(10_000, 200),
    resamples: int = size(RESAMPLES, 20),
    repeat: int = size(5, 1),
) -> list[Figure]:
    """The figures of ``make bench``: seconds per agreement, one line per scale."""
    rng = np.random.default_rng(0)
    figures = []
    for name, scale in SCALES.items():
        pairs = _pairs(scale, examples, rng)
        measure(pairs[:100], scale, resamples=10)  # imports and first calls, not timed
        seconds = _seconds(pairs, scale, resamples, repeat)
        extra = ", Spearman and MAE too" if scale.kind == "number" else ""
        figures.append(
            Figure(
                "P8",
                f"agreement, {name}, {examples:,} examples, {resamples:,} draws",
                seconds,
                "s",
                f"<= {TARGET_S:g}",
                seconds <= TARGET_S,
                f"{seconds / TARGET_S:.2f} of the target{extra}",
            )
        )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=10_000)
    parser.add_argument("--resamples", type=int, default=RESAMPLES)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print_table(run(args.examples, args.resamples, args.repeat))


if __name__ == "__main__":
    main()
