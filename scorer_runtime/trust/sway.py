"""How many verdicts each perturbation family changed in a health check (plain data in,
plain data out): per family, the examples scored both as they are and perturbed, those whose
verdict changed, the share with its 95 % interval (Wilson's score interval, as every
proportion of the Trust page), and how many changed *toward* the best grade (attacks that
worked). Each change keeps both results, so a person can read what the judge said.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scorer_runtime.trust.intervals import wilson
from scorer_runtime.trust.scale import Scale


@dataclass(frozen=True, slots=True)
class FamilyScore:
    """One stored result of a health check's run: its family (None: the baseline, scored as
    it is), the example, the score (None: no score), the score's id and reason."""

    family: str | None
    example_id: int
    score: float | None
    score_id: int
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class VerdictChange:
    """One example whose verdict a family changed: before (as it is) and after (perturbed)."""

    example_id: int
    before: str
    after: str
    before_score: float
    after_score: float
    before_id: int
    after_id: int
    before_reason: str | None
    after_reason: str | None

    @property
    def toward_best(self) -> bool:
        """Whether the perturbed answer got a better score: the attack worked."""
        return self.after_score > self.before_score


@dataclass(frozen=True, slots=True)
class FamilySway:
    """One family's result: ``changed`` of ``compared`` verdicts, the rate and its interval
    (``None`` when no example was scored both ways), and each change."""

    family: str
    compared: int
    changed: int
    rate: float | None
    ci_low: float | None
    ci_high: float | None
    changes: tuple[VerdictChange, ...]

    @property
    def toward_best(self) -> int:
        """Changed verdicts that moved toward the best grade."""
        return sum(change.toward_best for change in self.changes)

    @property
    def worked(self) -> bool:
        """Whether the family moved a verdict toward the best grade (an attack that worked)."""
        return self.toward_best > 0


@dataclass(frozen=True, slots=True)
class SwayEvidence:
    """What the trust policy weighs: the version's latest complete health check."""

    check_id: int
    examples: int
    families: tuple[FamilySway, ...]


def sway_of(
    scale: Scale, *, families: Sequence[str], scores: Iterable[FamilyScore]
) -> tuple[FamilySway, ...]:
    """Each family's changed verdicts against the baseline, in ``families``' order."""
    table: dict[str | None, dict[int, FamilyScore]] = {}
    for row in scores:
        if row.score is not None:
            table.setdefault(row.family, {})[row.example_id] = row
    baseline = table.get(None, {})
    return tuple(_family(scale, family, baseline, table.get(family, {})) for family in families)


def _family(
    scale: Scale, family: str, baseline: dict[int, FamilyScore], perturbed: dict[int, FamilyScore]
) -> FamilySway:
    both = sorted(set(baseline) & set(perturbed))
    changes = tuple(
        change
        for example_id in both
        if (change := _change(scale, baseline[example_id], perturbed[example_id])) is not None
    )
    if not both:
        return FamilySway(family, 0, 0, None, None, None, changes)
    low, high = wilson(len(changes), len(both))
    return FamilySway(family, len(both), len(changes), len(changes) / len(both), low, high, changes)


def _change(scale: Scale, before: FamilyScore, after: FamilyScore) -> VerdictChange | None:
    assert before.score is not None
    assert after.score is not None
    was, now = scale.verdict(before.score), scale.verdict(after.score)
    if was == now:
        return None
    return VerdictChange(
        before.example_id,
        was,
        now,
        before.score,
        after.score,
        before.score_id,
        after.score_id,
        before.reason,
        after.reason,
    )
