"""Which scorers name a judge profile, so deleting one can say what it affects.

Scorer specs refer to a profile by name, on the scorer (``"judge": "strict-gpt"``) or on a
prompt step. A version naming a deleted profile can no longer be run or compiled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from scorer_runtime.store import ScorerRecord, ScorerVersionRecord


def spec_uses_profile(spec: Mapping[str, Any], name: str) -> bool:
    """Whether a spec (plain data) names the profile, on the scorer or on any step."""
    return name in _profile_names(spec)


@dataclass(frozen=True, slots=True)
class ProfileUse:
    """A scorer whose versions name the profile."""

    scorer: str
    versions: list[int]
    latest: bool
    """Whether the scorer's latest version names it (so its next run needs the profile)."""

    def sentence(self) -> str:
        """'support-style (versions 2, 3, latest)'."""
        listed = ", ".join(str(v) for v in self.versions)
        noun = "version" if len(self.versions) == 1 else "versions"
        return f"{self.scorer} ({noun} {listed}{', the latest' if self.latest else ''})"


def profile_uses(session: Session, *, name: str) -> list[ProfileUse]:
    """The scorers (archived ones too) with a version naming the profile ``name``."""
    return profile_uses_by_name(session).get(name, [])


def profile_uses_by_name(session: Session) -> dict[str, list[ProfileUse]]:
    """For every profile name a spec refers to, the scorers that do (one read of the specs)."""
    query = (
        select(ScorerRecord.name, ScorerVersionRecord.version, ScorerVersionRecord.spec)
        .join(ScorerRecord, col(ScorerRecord.id) == col(ScorerVersionRecord.scorer_id))
        .order_by(col(ScorerRecord.name), col(ScorerVersionRecord.version))
    )
    found: dict[str, dict[str, list[int]]] = {}
    latest: dict[str, int] = {}
    for scorer, version, spec in session.exec(query).all():
        latest[scorer] = version
        for name in _profile_names(spec):
            found.setdefault(name, {}).setdefault(scorer, []).append(version)
    return {
        name: [
            ProfileUse(scorer, versions, versions[-1] == latest[scorer])
            for scorer, versions in scorers.items()
        ]
        for name, scorers in found.items()
    }


def _profile_names(spec: Any) -> set[str]:
    if not isinstance(spec, Mapping):
        return set()
    refs = [spec.get("judge")]
    steps = spec.get("steps")
    if isinstance(steps, list):
        refs += [step.get("judge") for step in steps if isinstance(step, Mapping)]
    return {ref for ref in refs if isinstance(ref, str)}
