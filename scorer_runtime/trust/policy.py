"""A scorer's trust policy, each version's badge, and approving a version.

The policy asks for enough graded examples (default 30), a kappa whose 95 % interval's lower
end reaches a minimum (default 0.6), and a flip rate between repeats at most a maximum
(default 10 %). A version is **Trusted** when all hold, **Failing** when its measured
agreement or stability is below the policy, and **Not enough evidence** otherwise; each badge
comes with its reasons in words. Approving a version that is not Trusted needs a written
override reason, which is recorded and shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from scorer_runtime.trust.agreement import Agreement, measure
from scorer_runtime.trust.attacks import BY_ID
from scorer_runtime.trust.evidence import FlipEvidence
from scorer_runtime.trust.scale import Scale
from scorer_runtime.trust.sway import SwayEvidence

if TYPE_CHECKING:
    from scorer_runtime.store import AgreementData, ApprovalInfo, GradedScore, Session

Badge = Literal["trusted", "not_enough_evidence", "failing"]
BADGE_WORDS: dict[Badge, str] = {
    "trusted": "Trusted",
    "not_enough_evidence": "Not enough evidence",
    "failing": "Failing",
}


@dataclass(frozen=True, slots=True)
class TrustPolicy:
    """What a version must show before it is trusted."""

    min_graded: int = 30
    min_kappa_low: float = 0.6
    max_flip_rate: float = 0.10
    pass_mark: float | None = None
    """The pass mark of a number scale (None: the scale's own, the middle of its range)."""
    max_swayed_rate: float | None = None
    """The share of verdicts each health check family may change, at most (None: off)."""


@dataclass(frozen=True, slots=True)
class TrustVerdict:
    """A version's badge and why."""

    badge: Badge
    reasons: tuple[str, ...]

    @property
    def words(self) -> str:
        """The badge as people read it."""
        return BADGE_WORDS[self.badge]

    def reasons_for(self, *, stability_where: str) -> tuple[str, ...]:
        """The reasons, naming the place a stability check is run as ``stability_where``
        says it where they are read: "in the Stability tab below" on the Trust page itself,
        a command on the command line (elsewhere :data:`STABILITY_WHERE`)."""
        general = no_stability_check()
        return tuple(
            no_stability_check(stability_where) if reason == general else reason
            for reason in self.reasons
        )


STABILITY_WHERE = "on the Trust page's Stability tab"
"""Where a stability check is run, said from any other page of the studio."""


def no_stability_check(where: str = STABILITY_WHERE) -> str:
    """Why a version has no stability evidence, and where to get it (``where``)."""
    return (
        f"No complete stability check yet: run one {where} to see whether the judge gives "
        "the same verdict when asked again."
    )


@dataclass(frozen=True, slots=True)
class VersionTrust:
    """Everything the trust of one version rests on."""

    scorer_version_id: int
    version: int
    scale: Scale
    agreement: Agreement
    flips: FlipEvidence | None
    verdict: TrustVerdict
    left_out: tuple[str, ...]
    """Labels not measured (off the scale, or of examples that no longer exist), in words."""
    pairs: tuple[GradedScore, ...] = ()
    """The graded examples measured (each with the score it was compared with)."""

    def disagreements(self) -> list[GradedScore]:
        """The measured examples where the person's grade and the judge's verdict differ."""
        verdict = self.scale.verdict
        return [p for p in self.pairs if verdict(p.human) != verdict(p.judge)]


def flip_evidence(session: Session, scorer_version_id: int) -> FlipEvidence | None:
    """The flip rate of the version's latest ended stability check (None: none yet)."""
    from scorer_runtime.store import latest_flip_evidence

    return latest_flip_evidence(session, scorer_version_id)


NO_JUDGE_WORDS = (
    "It asks no judge: the same example always gets the same score, so there is no "
    "stability to check."
)
"""Why a version without a judge step needs no stability check."""


def evaluate(
    policy: TrustPolicy,
    agreement: Agreement,
    flips: FlipEvidence | None,
    *,
    asks_judge: bool = True,
    sways: SwayEvidence | None = None,
) -> TrustVerdict:
    """The badge of a version with this agreement and flip evidence under ``policy``. A
    version that asks no judge (``asks_judge`` False) cannot flip: its stability is not
    asked for."""
    failing: list[str] = []
    missing: list[str] = []
    _judge_agreement(policy, agreement, failing, missing)
    if asks_judge:
        _stability(policy, flips, failing, missing)
        _health(policy, sways, failing, missing)
    if failing:
        return TrustVerdict("failing", tuple(failing + missing))
    if missing:
        return TrustVerdict("not_enough_evidence", tuple(missing))
    holds = "Every check of the trust policy holds."
    return TrustVerdict("trusted", (holds,) if asks_judge else (holds, NO_JUDGE_WORDS))


def _stability(
    policy: TrustPolicy, flips: FlipEvidence | None, failing: list[str], missing: list[str]
) -> None:
    """Add the reasons about the judge's stability to ``failing`` or ``missing``."""
    if flips is None:
        missing.append(no_stability_check())
    elif flips.rate > policy.max_flip_rate:
        failing.append(
            f"The verdict flipped on {flips.rate:.0%} of examples scored again "
            f"({flips.flipped} of {flips.examples}); the policy allows at most "
            f"{policy.max_flip_rate:.0%}."
        )


NO_HEALTH_CHECK = (
    "No complete health check yet: run one on the Trust page's Health tab to see whether the "
    "judged text can sway the judge."
)


def _health(
    policy: TrustPolicy, sways: SwayEvidence | None, failing: list[str], missing: list[str]
) -> None:
    """Add the reasons about the health check (when the policy asks for one)."""
    limit = policy.max_swayed_rate
    if limit is None:
        return
    if sways is None:
        missing.append(NO_HEALTH_CHECK)
        return
    for family in sways.families:
        if family.rate is not None and family.rate > limit:
            failing.append(
                f"{BY_ID[family.family].name} changed {family.rate:.0%} of verdicts in the "
                f"health check ({family.changed} of {family.compared}); the policy allows at "
                f"most {limit:.0%}."
            )


def _judge_agreement(
    policy: TrustPolicy, agreement: Agreement, failing: list[str], missing: list[str]
) -> None:
    """Add the reasons about agreement with people to ``failing`` or ``missing``."""
    if agreement.n < policy.min_graded:
        missing.append(
            f"{agreement.n} of the {policy.min_graded} graded examples the policy asks for: "
            f"grade {policy.min_graded - agreement.n} more on the Review page."
        )
    kappa = agreement.kappa
    if kappa.value is None or kappa.low is None:
        if agreement.n >= 2:
            missing.append(agreement.reading)
        return
    if kappa.value < policy.min_kappa_low:
        failing.append(
            f"Agreement with people is too low: kappa is {kappa.value:.2f}, and the policy "
            f"asks for its interval's lower end to reach {policy.min_kappa_low:.2f}."
        )
    elif kappa.low < policy.min_kappa_low and agreement.n >= policy.min_graded:
        more = _to_clear(agreement.n, kappa.value, kappa.low, policy.min_kappa_low)
        missing.append(
            f"Kappa is {kappa.value:.2f}, but its interval reaches down to {kappa.low:.2f}, "
            f"below the {policy.min_kappa_low:.2f} the policy asks for: grade about {more} "
            "more examples to narrow it."
        )


def _to_clear(n: int, value: float, low: float, target: float) -> int:
    """About how many more grades bring the lower end up to ``target`` (the interval's
    half-width shrinks with the square root of n)."""
    half, room = value - low, value - target
    if room <= 0:
        return 0
    return max(1, int(n * (half / room) ** 2) + 1 - n)


def policy_of(session: Session, scorer_id: int) -> TrustPolicy:
    """The scorer's saved policy, else the default one."""
    from scorer_runtime.store import get_trust_policy

    saved = get_trust_policy(session, scorer_id=scorer_id)
    if saved is None:
        return TrustPolicy()
    return TrustPolicy(
        saved.min_graded,
        saved.min_kappa_low,
        saved.max_flip_rate,
        saved.pass_mark,
        saved.max_swayed_rate,
    )


def version_trust(
    session: Session, *, scorer_version_id: int, run_id: int | None = None
) -> VersionTrust:
    """Agreement, flip evidence and badge of a version (measured on one run when given)."""
    from scorer_runtime.store import agreement_data, get_version_by_id, graded_scale

    version = get_version_by_id(session, version_id=scorer_version_id)
    policy = policy_of(session, version.scorer_id)
    scale = graded_scale(session, scorer_version_id=scorer_version_id)
    data = agreement_data(
        session,
        scorer_id=version.scorer_id,
        scorer_version_id=None if run_id is not None else scorer_version_id,
        run_id=run_id,
    )
    used, left_out = usable_pairs(data, scale)
    agreement = measure([(p.human, p.judge) for p in used], scale)
    flips = flip_evidence(session, scorer_version_id)
    asks_judge = bool(version.spec.prompt_steps())
    sways = None
    if policy.max_swayed_rate is not None:
        from scorer_runtime.store import latest_sway_evidence

        sways = latest_sway_evidence(session, scorer_version_id)
    verdict = evaluate(policy, agreement, flips, asks_judge=asks_judge, sways=sways)
    return VersionTrust(
        scorer_version_id, version.version, scale, agreement, flips, verdict, left_out, used
    )


def usable_pairs(
    data: AgreementData, scale: Scale
) -> tuple[tuple[GradedScore, ...], tuple[str, ...]]:
    """The graded examples on the scale, and why the other labels are left out."""
    pairs: list[GradedScore] = []
    off: list[str] = []
    for graded in data.pairs:
        problem = scale.problem(graded.human)
        if problem is None:
            pairs.append(graded)
        else:
            off.append(f"example {graded.example_id}: {problem}")
    left_out: list[str] = []
    if off:
        left_out.append(
            f"{len(off)} grade{'s are' if len(off) > 1 else ' is'} not on this scorer's "
            f"scale and {'were' if len(off) > 1 else 'was'} left out ({'; '.join(off[:3])}"
            f"{'; …' if len(off) > 3 else ''}). Grade those examples again on the Review page."
        )
    if data.gone:
        shown = ", ".join(str(i) for i in data.gone[:5])
        left_out.append(
            f"{len(data.gone)} graded example{'s' if len(data.gone) > 1 else ''} no longer "
            f"exist{'' if len(data.gone) > 1 else 's'} (example {shown}) and "
            f"{'were' if len(data.gone) > 1 else 'was'} left out."
        )
    return tuple(pairs), tuple(left_out)


def approve(
    session: Session, *, scorer_version_id: int, approver: str, override_reason: str = ""
) -> ApprovalInfo:
    """Approve the version: allowed when it is Trusted, else only with a written reason."""
    from scorer_runtime.store import ConflictError, add_approval

    trust = version_trust(session, scorer_version_id=scorer_version_id)
    if trust.verdict.badge != "trusted" and not override_reason.strip():
        raise ConflictError(
            f"Version {trust.version} is not trusted ({trust.verdict.words.lower()}): "
            "write why it should be approved anyway, or gather the evidence first."
        )
    return add_approval(
        session,
        scorer_version_id=scorer_version_id,
        approver=approver,
        badge=trust.verdict.badge,
        override_reason="" if trust.verdict.badge == "trusted" else override_reason,
    )
