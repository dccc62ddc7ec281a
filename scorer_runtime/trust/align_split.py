"""The grades an alignment starts from: whether there are enough, and the held-out split.

"Improve this judge" needs :data:`MIN_GRADED` examples that a person graded and the version
scored, :data:`MIN_DISAGREEMENTS` of them where the two disagree (:func:`readiness`, which
says how many more are needed). They are split (:func:`split_graded`), stratified by the
person's grade and seeded, into a tuning part that candidates are built from and a holdout
of one third (at least :data:`MIN_HOLDOUT`) they are measured on: the same grades and seed
always give the same split.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from scorer_runtime.counts import plural

MIN_GRADED = 20
MIN_DISAGREEMENTS = 5
MIN_HOLDOUT = 10
HOLDOUT_SHARE = 1 / 3


@dataclass(frozen=True, slots=True)
class GradedExample:
    """One example a person graded and the current version scored."""

    example_id: int
    grade: float
    """The person's latest grade (a score value on the scorer's scale)."""
    grade_label: str
    """The grade in words on the scale ("pass", "fail", a label)."""
    note: str
    score: float
    """The current version's score."""
    agrees: bool
    """Whether the version's verdict is the person's."""


@dataclass(frozen=True, slots=True)
class Readiness:
    """Whether the grades are enough to improve the judge, and what is missing if not."""

    graded: int
    disagreements: int

    @property
    def more_graded(self) -> int:
        return max(0, MIN_GRADED - self.graded)

    @property
    def more_disagreements(self) -> int:
        return max(0, MIN_DISAGREEMENTS - self.disagreements)

    @property
    def ready(self) -> bool:
        return self.more_graded == 0 and self.more_disagreements == 0

    def words(self) -> str:
        """What the grades allow, or how many more are needed, in plain words."""
        have = (
            f"{plural(self.graded, 'example')} graded by a person and scored by this version, "
            f"{plural(self.disagreements, 'disagreement')}"
        )
        if self.ready:
            return f"Ready: {have}."
        needs = []
        if self.more_graded:
            needs.append(f"grade {plural(self.more_graded, 'more example')}")
        if self.more_disagreements:
            needs.append(
                f"find {plural(self.more_disagreements, 'more example')} where the judge and "
                "the person disagree (grade examples the judge may get wrong)"
            )
        return (
            f"Not enough grades to improve this judge yet ({have}; it needs at least "
            f"{MIN_GRADED} graded examples with {MIN_DISAGREEMENTS} disagreements): "
            f"{' and '.join(needs)} on the Review page."
        )


def readiness(graded: Mapping[int, GradedExample]) -> Readiness:
    """How many graded examples and disagreements there are, against what is needed."""
    return Readiness(len(graded), sum(not g.agrees for g in graded.values()))


@dataclass(frozen=True, slots=True)
class Split:
    """The graded examples in two parts that share no example, each in id order."""

    tuning: tuple[int, ...]
    holdout: tuple[int, ...]
    seed: int


def holdout_size(n: int) -> int:
    """One third of ``n`` graded examples, at least :data:`MIN_HOLDOUT`."""
    return max(MIN_HOLDOUT, math.ceil(n * HOLDOUT_SHARE))


def split_graded(grades: Mapping[int, str], *, seed: int = 0) -> Split:
    """Split examples (by id, with the person's grade in words) into a tuning part and a
    holdout of :func:`holdout_size`, stratified by grade: each grade's share of the holdout
    is its share of the grades (largest remainder), its examples drawn by a generator seeded
    by ``seed`` and the grade's place. ValueError below :data:`MIN_GRADED` examples."""
    if len(grades) < MIN_GRADED:
        raise ValueError(f"a split needs at least {MIN_GRADED} graded examples")
    strata = {
        g: sorted(i for i, grade in grades.items() if grade == g) for g in set(grades.values())
    }
    order = sorted(strata)
    quotas = _quotas([len(strata[g]) for g in order], holdout_size(len(grades)))
    holdout: list[int] = []
    for place, (grade, quota) in enumerate(zip(order, quotas, strict=True)):
        ids = np.array(strata[grade], dtype=np.int64)
        drawn = np.random.default_rng([seed, place]).permutation(ids)[:quota]
        holdout.extend(int(i) for i in drawn)
    held = set(holdout)
    return Split(tuple(sorted(set(grades) - held)), tuple(sorted(held)), seed)


def _quotas(sizes: list[int], total: int) -> list[int]:
    """``total`` shared in proportion to ``sizes`` by largest remainder (ties to the first),
    never more than a stratum holds, and leaving each stratum of 2 or more one example."""
    n = sum(sizes)
    exact = [total * s / n for s in sizes]
    quotas = [min(math.floor(e), max(s - 1, 0)) for e, s in zip(exact, sizes, strict=True)]
    by_remainder = sorted(range(len(sizes)), key=lambda i: (quotas[i] - exact[i], i))
    while sum(quotas) < total:
        room = [i for i in by_remainder if quotas[i] < sizes[i] - (sizes[i] > 1)]
        room = room or [i for i in by_remainder if quotas[i] < sizes[i]]
        quotas[room[0]] += 1
        by_remainder = sorted(range(len(sizes)), key=lambda i: (quotas[i] - exact[i], i))
    return quotas
