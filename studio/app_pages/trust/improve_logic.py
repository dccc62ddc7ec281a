"""Words and rows of the Improve tab, Streamlit-free so tests check them."""

from __future__ import annotations

from typing import Any

from scorer_runtime.trust.align_candidates import GUIDELINES_HEADING
from scorer_runtime.trust.align_report import AlignReport, Figures

WHAT_IT_DOES = (
    "**Improve this judge** learns from the examples people graded. It builds candidates "
    "from two thirds of them: **worked examples** (the judge is shown some examples with the "
    "person's grade and note), **guidelines** (a judge model reads where the judge and people "
    "disagreed and writes a few rules, which you can edit first), and **both**. Each is then "
    "measured on the other third, which no candidate ever saw. The best one, if it agrees "
    "with people better there, is saved as a new version — never approved: you approve it "
    "like any version."
)
KIND_WORDS = {
    "current": "now",
    "worked_examples": "Worked examples",
    "guidelines": "Guidelines",
    "both": "Worked examples and guidelines",
}


def read_lines(text: str) -> list[str]:
    """The guidelines a person typed, one a line (bullets and blank lines dropped)."""
    found = []
    for line in text.splitlines():
        cleaned = line.strip().lstrip("-*•").strip()
        if cleaned:
            found.append(cleaned)
    return found


def added_instructions(lines: list[str]) -> str:
    """What the guidelines add to the judge's instructions, as a diff's added lines."""
    if not lines:
        return ""
    block = [GUIDELINES_HEADING, *(f"- {line}" for line in lines)]
    return "\n".join(f"+ {line}" for line in block)


def figures_text(figures: Figures) -> str:
    """A part's kappa with its interval, in a cell."""
    kappa = figures.agreement.kappa
    if kappa.value is None:
        return f"not measured ({figures.n} examples)"
    interval = ""
    if kappa.low is not None and kappa.high is not None:
        interval = f" ({kappa.low:.2f} to {kappa.high:.2f})"
    return f"{kappa.value:.2f}{interval}"


def result_rows(report: AlignReport) -> list[dict[str, Any]]:
    """One row per version tried: the current one first, then each candidate."""
    rows = [
        {
            "Version": f"Version {report.plan.version} (now)",
            "Agreement on examples it never saw": figures_text(report.current_holdout),
            "Agreement on examples it learnt from": figures_text(report.current_tuning),
            "Could the difference be chance?": "",
        }
    ]
    for c in report.candidates:
        saved = f" → saved as version {c.version}" if c.version else ""
        rows.append(
            {
                "Version": KIND_WORDS.get(c.kind, c.kind) + saved,
                "Agreement on examples it never saw": figures_text(c.holdout),
                "Agreement on examples it learnt from": figures_text(c.tuning),
                "Could the difference be chance?": _chance(c.mcnemar_p),
            }
        )
    return rows


def _chance(p: float | None) -> str:
    if p is None:
        return "no verdict changed"
    if p < 0.05:
        return f"unlikely (McNemar p = {p:.3g})"
    return f"it could (McNemar p = {p:.3g})"
