"""Two runs side by side, for the Compare runs page: the comparison as CSV, and verdicts and
changes in words. The comparison itself (rows, counts, summary, what to compare) is computed
in SQL by :mod:`scorer_runtime.store.views.compare`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import IO, Any

from scorer_runtime.store import Engine, Session, read_session
from scorer_runtime.store.views import (
    MISSING,
    CompareRow,
    RunPair,
    iter_comparison,
)
from studio.widgets.csv_export import CSV_CAP, CsvExport, csv_bytes, write_rows

# -- download --------------------------------------------------------------------------------

COMPARE_CSV_COLUMNS = (
    "example_id",
    "change",
    "before_verdict",
    "before_score",
    "before_outcome",
    "after_verdict",
    "after_score",
    "after_outcome",
    "delta",
    "before_result_id",
    "after_result_id",
)


def _csv_cells(r: CompareRow) -> tuple[Any, ...]:
    before, after = r.before, r.after
    return (
        *(r.example_id, r.change),
        *(before.verdict, before.score, before.outcome),
        *(after.verdict, after.score, after.outcome),
        *(r.delta, before.score_id, after.score_id),
    )


def write_comparison_csv(
    session: Session, *, pair: RunPair, threshold: float, out: IO[str], cap: int = CSV_CAP
) -> CsvExport:
    """Write the comparison, in page order, to ``out`` as CSV (at most ``cap`` examples)."""
    rows = (
        _csv_cells(r) for r in iter_comparison(session, pair=pair, threshold=threshold, cap=cap + 1)
    )
    # One row past the cap is read (never written) to tell "exactly cap rows" from "cut short".
    written = write_rows(out, COMPARE_CSV_COLUMNS, itertools.islice(rows, cap))
    return CsvExport(written, truncated=next(rows, None) is not None)


def comparison_csv_file(engine: Engine, *, pair: RunPair, threshold: float) -> bytes:
    """The CSV download of a comparison (what the page's download button calls)."""
    with read_session(engine) as session:
        return csv_bytes(
            lambda out: write_comparison_csv(session, pair=pair, threshold=threshold, out=out)
        )


# -- words and facts for the page -------------------------------------------------------------


def verdict_words(verdict: str, outcome_labels: Mapping[str, str]) -> str:
    """``Pass``, ``Fail``, ``No result``, or the outcome's label (``Judge unavailable``)."""
    fixed = {"pass": "Pass", "fail": "Fail", MISSING: "No result"}
    return fixed.get(verdict) or outcome_labels.get(verdict, verdict)


def change_words(row: CompareRow, outcome_labels: Mapping[str, str]) -> str:
    """What happened to an example's verdict, in a few words."""
    if row.change == "same":
        return "Same verdict"
    if row.change == "flipped":
        return "Now passes" if row.after.verdict == "pass" else "Now fails"
    before = verdict_words(row.before.verdict, outcome_labels)
    return f"{before} → {verdict_words(row.after.verdict, outcome_labels)}"
