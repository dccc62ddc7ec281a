"""CSV files of results and comparisons, written page by page from the database.

Rows are streamed from one query's cursor in pages (never loaded all at once) and written as
they come, up to a cap. Text cells that a spreadsheet would run as a formula are defused, so a
judge's answer can never become one.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from scorer_runtime.store import (
    Engine,
    NameBook,
    ScoreFilter,
    ScoreRow,
    Session,
    iter_score_rows,
    read_session,
)

CSV_CAP = 100_000
"""The most rows one download holds; narrower filters export the rest."""
CSV_PAGE = 2_000
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

SCORE_CSV_COLUMNS = (
    "result_id",
    "created_at_utc",
    "scorer",
    "scorer_version",
    "dataset",
    "run_id",
    "example_id",
    "trace_id",
    "span_id",
    "outcome",
    "score",
    "reason",
    "error",
    "latency_ms",
    "total_tokens",
    "cost",
)


@dataclass(frozen=True, slots=True)
class CsvExport:
    """What a CSV file holds: how many rows, and whether the cap cut it short."""

    rows: int
    truncated: bool


def cap_note(
    total: int, *, cap: int = CSV_CAP, noun: str = "results", which: str = "newest"
) -> str | None:
    """The sentence shown next to a download that will not hold every row."""
    if total <= cap:
        return None
    return (
        f"The file holds the {which} {cap:,} of {total:,} {noun}. "
        "Narrow the filters (for example by date) to download the rest."
    )


def safe_cell(value: Any) -> Any:
    """A cell as written: text that starts like a spreadsheet formula gets a leading quote."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def write_rows(out: IO[str], header: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """Write ``header`` and ``rows`` as CSV; returns the number of rows written."""
    writer = csv.writer(out)
    writer.writerow(header)
    count = 0
    for row in rows:
        writer.writerow([safe_cell(v) for v in row])
        count += 1
    return count


def _score_cells(row: ScoreRow, names: NameBook) -> list[Any]:
    return [
        row.id,
        row.created_at.isoformat(),
        names.scorer(row.scorer_id),
        names.version(row.scorer_version_id, with_scorer=False).removeprefix("v"),
        names.dataset(row.dataset_id) if row.dataset_id is not None else "",
        row.run_id,
        row.example_id,
        row.trace_id,
        row.span_id,
        row.outcome,
        row.score,
        row.reason,
        row.error,
        None if row.latency_ms is None else round(row.latency_ms, 1),
        row.total_tokens,
        row.cost,
    ]


def write_scores_csv(
    session: Session,
    *,
    filter: ScoreFilter,
    names: NameBook,
    out: IO[str],
    cap: int = CSV_CAP,
    page_size: int = CSV_PAGE,
) -> CsvExport:
    """Write the filtered scores (newest first, at most ``cap``) to ``out`` as CSV."""
    # One row past the cap is read (never written) to tell "exactly cap rows" from "cut short".
    source = iter(iter_score_rows(session, filter=filter, cap=cap + 1, page_size=page_size))
    head = itertools.islice(source, cap)
    written = write_rows(out, SCORE_CSV_COLUMNS, (_score_cells(r, names) for r in head))
    return CsvExport(written, truncated=next(source, None) is not None)


def csv_bytes(write: Callable[[IO[str]], object]) -> bytes:
    """Run ``write`` on a UTF-8 text stream, with the byte-order mark spreadsheets look for to
    read UTF-8 (Excel shows accented text wrongly without it); return the file's bytes.

    Streamlit's download button holds the file in memory anyway, so the rows are streamed
    from the database but the (capped) file is handed over whole.
    """
    raw = io.BytesIO()
    text = io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")
    write(text)
    text.flush()
    text.detach()
    return raw.getvalue()


def scores_csv_file(engine: Engine, *, filter: ScoreFilter, names: NameBook) -> bytes:
    """The CSV download of the filtered scores (what the page's download button calls)."""
    with read_session(engine) as session:
        return csv_bytes(lambda out: write_scores_csv(session, filter=filter, names=names, out=out))
