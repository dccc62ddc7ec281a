"""Measured evidence about a scorer version that the trust policy weighs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class FlipEvidence:
    """How often a version's verdict flipped when the same examples were scored again.

    ``rate`` is ``flipped / examples``; ``ci_low``/``ci_high`` its 95 % interval.
    """

    scorer_version_id: int
    examples: int
    repeats: int
    flipped: int
    rate: float
    ci_low: float
    ci_high: float
    checked_at: datetime
