"""What the Trust page shows, as plain data (Streamlit-free, tested without the UI)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from scorer_runtime.trust.agreement import Agreement, Estimate
from scorer_runtime.trust.policy import VersionTrust

STABILITY_HERE = "in the Stability tab below"
"""Where a stability check is run, said on the Trust page itself (its banner and badges)."""


def figure(estimate: Estimate | None, *, percent: bool = False, interval: bool = True) -> str:
    """A figure with its interval in words ("0.72 (0.55 to 0.86)"); "—" when unmeasured."""
    if estimate is None or estimate.value is None:
        return "—"

    def shown(x: float) -> str:
        return f"{x:.0%}" if percent else f"{x:.2f}"

    if not interval or estimate.low is None or estimate.high is None:
        return shown(estimate.value)
    return f"{shown(estimate.value)} ({shown(estimate.low)} to {shown(estimate.high)})"


def rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def confusion_frame(found: Agreement) -> pd.DataFrame:
    """One row per cell of the confusion matrix: the person's grade, the judge's, the count."""
    rows = [
        {"People": person, "Judge": judge, "Examples": count}
        for person, counts in zip(found.categories, found.confusion, strict=True)
        for judge, count in zip(found.categories, counts, strict=True)
    ]
    return pd.DataFrame(rows, columns=["People", "Judge", "Examples"])


def over_time_frame(trusts: Sequence[tuple[Any, VersionTrust]]) -> pd.DataFrame:
    """Kappa with its interval per version (those where it could be measured), by date."""
    rows = [
        {
            "Version": f"v{line.version}",
            "Saved": line.created_at,
            "Kappa": t.agreement.kappa.value,
            "Low": t.agreement.kappa.low,
            "High": t.agreement.kappa.high,
            "Examples": t.agreement.n,
        }
        for line, t in trusts
        if t.agreement.kappa.value is not None and t.agreement.kappa.low is not None
    ]
    return pd.DataFrame(rows, columns=["Version", "Saved", "Kappa", "Low", "High", "Examples"])


def disagreement_rows(found: VersionTrust) -> list[dict[str, Any]]:
    """The examples where people and the judge disagree: ids, both grades in words."""
    verdict = found.scale.verdict
    return [
        {
            "example_id": p.example_id,
            "score_id": p.score_id,
            "people": f"{verdict(p.human)} ({p.human:g})",
            "judge": f"{verdict(p.judge)} ({p.judge:g})",
            "by": p.labeller,
            "note": p.note,
        }
        for p in found.disagreements()
    ]
