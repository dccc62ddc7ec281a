"""Which graded examples "Improve this judge" may learn from, and which it keeps apart.

The examples a person graded (and the judge scored) are split in two, once per set of grades:

- the **holdout**, a third of them (at least :data:`MIN_HOLDOUT`): the examples every version
  is measured on, which no candidate, nor the request that writes guidelines, ever sees;
- the **tuning part**, the rest: the only examples candidates are built from.

The split is stratified by the person's grade (each grade keeps its share in both parts) and
seeded by the grades themselves (a hash of the example ids and their grades), so the same
grades always give the same split, on any machine, and a new grade gives a new one.

Improving needs at least :data:`MIN_GRADED` graded examples and :data:`MIN_DISAGREEMENTS`
disagreements between the person and the judge: fewer, and there is too little to learn from
or to measure on (:func:`readiness` says how many more).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scorer_runtime.trust.scale import Scale

MIN_GRADED = 20
MIN_DISAGREEMENTS = 5
MIN_HOLDOUT = 10
HOLDOUT_SHARE = 1 / 3


@dataclass(frozen=True, slots=True)
class Graded:
    """One graded example: the person's grade and note beside the judge's score."""

    example_id: int
    human: float
    judge: float
    note: str = ""


@dataclass(frozen=True, slots=True)
class Split:
    """The tuning part and the holdout, each in example order."""

    tuning: tuple[Graded, ...]
    holdout: tuple[Graded, ...]
    seed: int


def disagrees(graded: Graded, scale: Scale) -> bool:
    """Whether the person's verdict and the judge's differ (pass/fail, or the label)."""
    return scale.verdict(graded.human) != scale.verdict(graded.judge)


def readiness(graded: Sequence[Graded], scale: Scale) -> str | None:
    """Why improving cannot start yet, in words (``None`` when it can)."""
    missing: list[str] = []
    if len(graded) < MIN_GRADED:
        more = MIN_GRADED - len(graded)
        missing.append(f"grade {more} more example{'s' * (more != 1)}")
    disagreements = sum(disagrees(g, scale) for g in graded)
    if disagreements < MIN_DISAGREEMENTS:
        more = MIN_DISAGREEMENTS - disagreements
        missing.append(
            f"find {more} more where the judge and the person disagree "
            f"({disagreements} so far: grade more examples, the ones you doubt first)"
        )
    if not missing:
        return None
    return (
        f"Improving needs at least {MIN_GRADED} graded examples with at least "
        f"{MIN_DISAGREEMENTS} disagreements; {len(graded)} graded so far. To start: "
        + " and ".join(missing)
        + "."
    )


def split_seed(graded: Sequence[Graded]) -> int:
    """A seed from the grades themselves: the same grades, the same seed."""
    text = ";".join(f"{g.example_id}:{g.human!r}" for g in sorted(graded, key=_id))
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def holdout_size(n: int) -> int:
    """How many of ``n`` graded examples are held out: a third, at least :data:`MIN_HOLDOUT`."""
    return min(n, max(MIN_HOLDOUT, math.ceil(n * HOLDOUT_SHARE)))


def split_graded(graded: Sequence[Graded], scale: Scale) -> Split:
    """The tuning part and the holdout (see the module's docstring)."""
    seed = split_seed(graded)
    rng = np.random.default_rng(seed)
    strata: dict[str, list[Graded]] = {}
    for g in sorted(graded, key=_id):
        strata.setdefault(scale.verdict(g.human), []).append(g)
    quotas = _quotas({k: len(v) for k, v in strata.items()}, holdout_size(len(graded)))
    held: set[int] = set()
    for name in sorted(strata):
        members = strata[name]
        order = rng.permutation(len(members))
        held.update(members[int(i)].example_id for i in order[: quotas[name]])
    ordered = sorted(graded, key=_id)
    return Split(
        tuple(g for g in ordered if g.example_id not in held),
        tuple(g for g in ordered if g.example_id in held),
        seed,
    )


def _quotas(sizes: dict[str, int], total: int) -> dict[str, int]:
    """Each stratum's share of ``total`` (largest remainder), in proportion to its size."""
    n = sum(sizes.values())
    exact = {k: total * size / n for k, size in sizes.items()}
    quotas = {k: math.floor(v) for k, v in exact.items()}
    left = total - sum(quotas.values())
    for k in sorted(exact, key=lambda k: (quotas[k] - exact[k], k))[:left]:
        quotas[k] += 1
    return quotas


def _id(graded: Graded) -> int:
    return graded.example_id
