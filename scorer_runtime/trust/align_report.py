"""What an alignment found, in figures and in words: each version's agreement with people
on the holdout and the tuning part, McNemar's test, what was saved and what it cost."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scorer_runtime.money import CostWords
from scorer_runtime.trust.agreement import Agreement
from scorer_runtime.trust.align_plan import AlignPlan

HOLDOUT_IN_WORDS = (
    "The holdout is a third of the graded examples that no candidate was built from: a "
    "candidate is measured only on those, so a better figure there is not learnt by heart."
)
NOT_APPROVED_IN_WORDS = (
    "The new version is saved but not approved: approve it under the trust policy, as any "
    "version, once its own checks have run."
)


@dataclass(frozen=True, slots=True)
class Figures:
    """Agreement with people on one part (holdout or tuning) for one version."""

    n: int
    agreed: int
    agreement: Agreement

    def as_json(self) -> dict[str, Any]:
        k = self.agreement.kappa
        return {
            "n": self.n,
            "agreed": self.agreed,
            "kappa": k.value,
            "ci_low": k.low,
            "ci_high": k.high,
        }


@dataclass(frozen=True, slots=True)
class CandidateResult:
    """One candidate's figures beside the current version's, and its saved version."""

    kind: str
    what_changed: str
    holdout: Figures
    tuning: Figures
    mcnemar_p: float | None
    better: bool
    version: int | None = None


@dataclass(frozen=True, slots=True)
class AlignReport:
    """What an alignment found: the split, each version's figures, what was saved, cost."""

    plan: AlignPlan
    alignment_id: int
    current_holdout: Figures
    current_tuning: Figures
    candidates: tuple[CandidateResult, ...]
    chosen_version: int | None
    cost: float
    guidelines: tuple[str, ...]
    skipped: Mapping[str, str]
    cost_said: CostWords
    cut_short: tuple[int, ...] = ()
    """The runs that stopped before scoring everything (their cap, a cancel, a failure):
    then nothing is saved, whatever the figures say."""
    """The cost in words: "unknown" when no judge call was priced, never a plain $0."""

    def evidence(self, chosen: CandidateResult) -> str:
        """The evidence saved with a chosen candidate."""
        return evidence_words(self.current_holdout, chosen)

    def words(self) -> str:
        """The outcome in sentences a PM reads."""
        said = [HOLDOUT_IN_WORDS]
        chosen = next((c for c in self.candidates if c.version is not None), None)
        if self.cut_short:
            runs = ", ".join(str(i) for i in self.cut_short)
            said.append(
                f"Run(s) {runs} stopped before scoring every example (a spend cap, a cancel "
                "or a failure), so the figures are incomplete and nothing was saved: run it "
                "again with a higher --max-cost."
            )
        elif chosen is None:
            said.append(
                "No candidate agreed with people better than the current version on the "
                "holdout: nothing was saved."
            )
        else:
            said.append(
                f"Saved version {chosen.version} ({chosen.what_changed}): "
                f"{evidence_words(self.current_holdout, chosen)}. {_chance_words(chosen)}"
                f"{NOT_APPROVED_IN_WORDS}"
            )
        said.append(f"Judge calls cost {self.cost_said}.")
        return " ".join(said)

    def as_json(self) -> dict[str, Any]:
        current = self.current_holdout.as_json()
        return {
            "scorer": self.plan.scorer_name,
            "version": self.plan.version,
            "alignment_id": self.alignment_id,
            "tuning_n": len(self.plan.split.tuning),
            "holdout_n": len(self.plan.split.holdout),
            "holdout_example_ids": list(self.plan.split.holdout),
            "current": {**current, "tuning": self.current_tuning.as_json()},
            "candidates": [
                {
                    "kind": c.kind,
                    "what_changed": c.what_changed,
                    "holdout": c.holdout.as_json(),
                    "tuning": c.tuning.as_json(),
                    "mcnemar_p": c.mcnemar_p,
                    "better": c.better,
                    "version": c.version,
                }
                for c in self.candidates
            ],
            "guidelines": list(self.guidelines),
            "skipped": dict(self.skipped),
            "chosen_version": self.chosen_version,
            "cut_short_runs": list(self.cut_short),
            "cost": self.cost,
            "cost_words": str(self.cost_said),
            "summary": self.words(),
        }


def _chance_words(chosen: CandidateResult) -> str:
    """Whether the holdout alone rules out chance (McNemar's p below 0.05)."""
    if chosen.mcnemar_p is not None and chosen.mcnemar_p < 0.05:
        return "On the holdout the difference is more than chance would explain. "
    return (
        "On a holdout this size the difference could still be chance: its own agreement "
        "check, on more graded examples, will tell. "
    )


def evidence_words(current: Figures, chosen: CandidateResult) -> str:
    """ "holdout kappa 0.52 → 0.71 (95 % interval 0.48 to 0.88), McNemar p = 0.031"."""
    before, after = current.agreement.kappa, chosen.holdout.agreement.kappa
    p = "not testable" if chosen.mcnemar_p is None else f"{chosen.mcnemar_p:.3g}"
    return (
        f"holdout kappa {_k(before.value)} → {_k(after.value)} (95 % interval "
        f"{_k(after.low)} to {_k(after.high)}; agreed with people on {chosen.holdout.agreed} "
        f"of {chosen.holdout.n} held-out examples, was {current.agreed}), McNemar p = {p}"
    )


def _k(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"
