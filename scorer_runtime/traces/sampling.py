"""Deterministic sampling of traces by trace id.

Whether a trace is in a sample depends only on its id and the ratio, never on chance or
on the scorer: every scorer sampling at 10 % scores the same traces, a re-run picks the
same ones again, and a trace in a 10 % sample is also in every larger sample.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable


def sample_value(trace_id: str) -> float:
    """A stable number in [0, 1) for a trace id: the first 8 bytes of its SHA-256."""
    digest = hashlib.sha256(trace_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def check_ratio(ratio: float | None) -> None:
    """Raise ``ValueError`` unless ``ratio`` is None (no sampling) or a number in [0, 1]."""
    if ratio is None:
        return
    if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not math.isfinite(ratio):
        raise ValueError(f"sample must be None or a ratio between 0 and 1, not {ratio!r}")
    if not 0 <= ratio <= 1:
        raise ValueError(f"sample must be a ratio between 0 and 1 (0.1 for 10 %), not {ratio}")


def in_sample(trace_id: str, ratio: float | None) -> bool:
    """Whether the trace is in a sample of ``ratio`` (None: no sampling, every trace is)."""
    check_ratio(ratio)
    return ratio is None or sample_value(trace_id) < ratio


def sample_trace_ids(trace_ids: Iterable[str], ratio: float | None) -> list[str]:
    """The ids in a sample of ``ratio``, in the given order."""
    check_ratio(ratio)
    return [t for t in trace_ids if ratio is None or sample_value(t) < ratio]
