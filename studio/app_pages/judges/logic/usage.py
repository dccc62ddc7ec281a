"""Which scorers name a judge profile, in words, so deleting one can say what it affects.

Scorer specs refer to a profile by name, on the scorer (``"judge": "strict-gpt"``) or on a
prompt step. A version naming a deleted profile can no longer be run or compiled. The
reading is :func:`scorer_runtime.store.views.profile_usage_by_name`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scorer_runtime.store import Session
from scorer_runtime.store.views import profile_usage_by_name
from studio.words import noun


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
        versions = noun(len(self.versions), "version")
        return f"{self.scorer} ({versions} {listed}{', the latest' if self.latest else ''})"


def profile_uses(session: Session, *, name: str) -> list[ProfileUse]:
    """The scorers (archived ones too) with a version naming the profile ``name``."""
    return profile_uses_by_name(session).get(name, [])


def profile_uses_by_name(session: Session) -> dict[str, list[ProfileUse]]:
    """For every profile name a spec refers to, the scorers that do (one read of the specs)."""
    return {
        name: [ProfileUse(u.scorer, list(u.versions), u.latest) for u in usages]
        for name, usages in profile_usage_by_name(session).items()
    }


def opening_judge(names: Sequence[str], uses: Mapping[str, Sequence[ProfileUse]]) -> str | None:
    """The judge the Judges page opens on in a new session: the first saved judge (by name)
    that a scorer's latest version uses, else the first saved judge; None when none is saved
    (then the page opens on a new judge)."""
    in_use = [name for name in names if any(use.latest for use in uses.get(name, ()))]
    first = in_use or list(names)
    return first[0] if first else None
