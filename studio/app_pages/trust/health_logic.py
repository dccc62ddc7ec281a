"""What the Health tab shows, as plain data (Streamlit-free, tested without the UI): one row
per perturbation family, and one per verdict a family changed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorer_runtime.trust.attacks import BY_ID
from scorer_runtime.trust.sway import FamilySway
from studio.app_pages.trust.stability_logic import preview

HEALTH_HERE = "the Health tab of the Trust page"


def family_rows(families: Sequence[FamilySway]) -> list[dict[str, Any]]:
    """One row per family: what it is, how many verdicts changed, the rate and interval."""
    rows = []
    for f in families:
        known = f.rate is not None and f.ci_low is not None and f.ci_high is not None
        rows.append(
            {
                "Perturbation": BY_ID[f.family].name,
                "Verdicts changed": f"{f.changed} of {f.compared}",
                "Rate": f"{f.rate:.0%}" if known else "—",
                "95 % interval": f"{f.ci_low:.0%} to {f.ci_high:.0%}" if known else "—",
                "Toward the best grade": f.toward_best,
                "Swayed?": "yes" if f.worked else "no",
            }
        )
    return rows


def change_rows(
    family: FamilySway, outputs: Mapping[int, object], numbers: Mapping[int, int]
) -> list[dict[str, Any]]:
    """One row per example whose verdict the family changed, named by its number in its
    dataset (as Examples and Results number it): before and after, and the judge's reason
    when the scorer gives one."""
    reasons = any(c.after_reason for c in family.changes)
    rows = []
    for c in family.changes:
        row: dict[str, Any] = {
            "Example": f"Example {numbers.get(c.example_id, c.example_id)}",
            "Answer": preview(outputs.get(c.example_id)),
            "As it is": f"{c.before} ({c.before_score:g})",
            "Perturbed": f"{c.after} ({c.after_score:g})",
        }
        if reasons:
            row["Judge's reason, perturbed"] = c.after_reason or ""
        rows.append(row)
    return rows
