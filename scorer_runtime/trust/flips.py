"""Whether a judge's verdicts flip when the same examples are scored again: per example,
the verdict of each repeat and the spread of its scores; over the sample, the flip rate with
its 95 % interval (Wilson's, from scipy).

Plain data in, plain data out: the store reads the scores, this module only counts, so the
same figures come out wherever the scores were read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scorer_runtime.trust.scale import Scale


@dataclass(frozen=True, slots=True)
class RepeatScore:
    """One stored score of one repeat: the run it belongs to, the example, the score
    (``None`` when the example got no score in that repeat, e.g. the judge failed)."""

    run_id: int
    example_id: int
    score: float | None


@dataclass(frozen=True, slots=True)
class ExampleStability:
    """One example across the repeats: each repeat's verdict and score (``None``: no
    score), whether the verdict flipped, and how far apart its scores were."""

    example_id: int
    verdicts: tuple[str | None, ...]
    scores: tuple[float | None, ...]

    @property
    def compared(self) -> bool:
        """Whether at least two repeats gave a score, so a flip could be seen."""
        return sum(v is not None for v in self.verdicts) >= 2

    @property
    def flipped(self) -> bool:
        """Whether two repeats gave different verdicts."""
        return len({v for v in self.verdicts if v is not None}) > 1

    @property
    def spread(self) -> float | None:
        """Highest minus lowest score over the repeats; ``None`` below two scores."""
        known = [s for s in self.scores if s is not None]
        return max(known) - min(known) if len(known) >= 2 else None


@dataclass(frozen=True, slots=True)
class FlipSummary:
    """The flip rate of a sample: ``flipped`` of ``compared`` examples, with its 95 %
    interval; ``rate`` and the interval are ``None`` when no example could be compared."""

    examples: tuple[ExampleStability, ...]
    compared: int
    flipped: int
    rate: float | None
    ci_low: float | None
    ci_high: float | None

    @property
    def unstable(self) -> tuple[ExampleStability, ...]:
        """The examples whose verdict flipped, in id order."""
        return tuple(e for e in self.examples if e.flipped)

    @property
    def not_compared(self) -> int:
        """Examples with fewer than two scores (a repeat failed on them)."""
        return len(self.examples) - self.compared


def flip_interval(flipped: int, compared: int) -> tuple[float, float]:
    """The 95 % Wilson interval of ``flipped / compared`` (``compared`` ≥ 1)."""
    from scipy.stats import binomtest  # loaded on first use: the store imports this module

    interval = binomtest(flipped, compared).proportion_ci(confidence_level=0.95, method="wilson")
    return float(interval.low), float(interval.high)


def flips_of(
    scale: Scale,
    *,
    example_ids: Sequence[int],
    run_ids: Sequence[int],
    scores: Iterable[RepeatScore],
) -> FlipSummary:
    """Each sampled example's verdict in each repeat (``run_ids``, in repeat order) and the
    flip rate over the examples that two repeats or more scored."""
    column = {run_id: i for i, run_id in enumerate(run_ids)}
    table: dict[int, list[float | None]] = {e: [None] * len(run_ids) for e in example_ids}
    for row in scores:
        if row.example_id in table and row.run_id in column:
            table[row.example_id][column[row.run_id]] = row.score
    examples = tuple(
        ExampleStability(
            example_id,
            tuple(None if s is None else scale.verdict(s) for s in row_scores),
            tuple(row_scores),
        )
        for example_id, row_scores in sorted(table.items())
    )
    compared = sum(e.compared for e in examples)
    flipped = sum(e.flipped for e in examples if e.compared)
    if compared == 0:
        return FlipSummary(examples, 0, 0, None, None, None)
    low, high = flip_interval(flipped, compared)
    return FlipSummary(examples, compared, flipped, flipped / compared, low, high)
