"""What the Results page shows, Streamlit-free: choices, numbers in context, rows (the filter
itself is :class:`studio.widgets.results_filter.ResultsFilter`, shared with other pages).

Every number comes from SQL aggregates over the filtered scores (never from loading the rows;
the queries live in :mod:`scorer_runtime.store`), so the page stays quick with 100,000 scores;
only one page of 50 rows is ever read at a time.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from scorer_runtime.store import (
    NameBook,
    RunInfo,
    ScoreRow,
    ScoreStats,
    Session,
    list_runs,
)
from scorer_runtime.store.views import example_inputs
from studio.widgets.results_filter import Choice

PAGE_SIZE = 50
"""Rows per page of the results table."""
HISTOGRAM_TITLE = "How the scores are spread"
"""The words above the histogram (the benchmark of this page waits for the chart under them)."""
MAX_RUN_CHOICES = 200


# -- choices ---------------------------------------------------------------------------------


def scorer_choices(names: NameBook, titles: Mapping[int, str] | None = None) -> list[Choice]:
    """Scorers by what people call them (``titles``: their display names, else their stored
    names); archived ones last and marked, since their scores are still here."""
    named = {i: (titles or {}).get(i, n) for i, n in names.scorers.items()}
    ordered = sorted(named.items(), key=lambda kv: (kv[0] in names.archived_scorers, kv[1]))
    return [Choice(i, f"{n} (archived)" if i in names.archived_scorers else n) for i, n in ordered]


def version_choices(names: NameBook, scorer_id: int | None) -> list[Choice]:
    """The versions of one scorer, newest first (none when no scorer is chosen)."""
    if scorer_id is None:
        return []
    found = [(n, i) for i, (s, n) in names.versions.items() if s == scorer_id]
    return [Choice(i, f"Version {n}") for n, i in sorted(found, reverse=True)]


def dataset_choices(names: NameBook) -> list[Choice]:
    """Datasets by name."""
    return [Choice(i, n) for i, n in sorted(names.datasets.items(), key=lambda kv: kv[1])]


def run_label(run: RunInfo, names: NameBook, titles: Mapping[int, str] | None = None) -> str:
    """``Run 12 · Politeness v2 on customer_support · 30 Nov 2026 14:02``."""
    when = run.created_at.strftime("%d %b %Y %H:%M")
    version = version_title(names, titles or {}, run.scorer_version_id)
    return f"Run {run.id} · {version} on {names.dataset(run.dataset_id)} · {when}"


def run_choices(
    session: Session,
    names: NameBook,
    *,
    scorer_id: int | None = None,
    version_id: int | None = None,
    dataset_id: int | None = None,
    limit: int = MAX_RUN_CHOICES,
    titles: Mapping[int, str] | None = None,
) -> list[Choice]:
    """Runs matching the other filters, newest first (at most ``limit``); stability checks'
    repeats are not among them."""
    runs = list_runs(
        session,
        scorer_id=scorer_id,
        version_id=version_id,
        dataset_id=dataset_id,
        limit=limit,
        repeats=False,
    )
    return [Choice(int(r.id or 0), run_label(r, names, titles)) for r in runs]


# -- numbers ---------------------------------------------------------------------------------


def score_range(stats: ScoreStats) -> tuple[float, float]:
    """The range charts and the threshold slider use: 0 to 1 when every score lies there
    (most scorers), else the scores' own range."""
    low = 0.0 if stats.min is None else stats.min
    high = 1.0 if stats.max is None else stats.max
    if low >= 0.0 and high <= 1.0:
        return 0.0, 1.0
    return min(low, 0.0), max(high, low + 1.0)


# -- the table --------------------------------------------------------------------------------


def short_text(text: str | None, width: int = 120) -> str:
    """One line of at most ``width`` characters (a long reason is cut with an ellipsis)."""
    if not text:
        return ""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def version_title(names: NameBook, titles: Mapping[int, str], version_id: int) -> str:
    """``Conciseness v2``: the scorer as people call it, and the version."""
    scorer_id, number = names.versions.get(version_id, (None, None))
    if scorer_id is None:
        return "—"
    title = titles.get(scorer_id, names.scorer(scorer_id))
    # Another tool's scores: its name says "(external)", and it has no versions here.
    return title if scorer_id in names.external_scorers else f"{title} v{number}"


def table_rows(
    rows: Sequence[ScoreRow],
    names: NameBook,
    outcome_labels: Mapping[str, str],
    *,
    inputs: Mapping[int, str] | None = None,
    titles: Mapping[int, str] | None = None,
) -> list[dict[str, Any]]:
    """A page of scores as the table shows them: the example's input first (what was asked),
    then who scored it, the score and why (two scorers of one trace or example side by side,
    ours or another tool's); plain column names, numbers as text with "—" for none."""
    inputs, titles = inputs or {}, titles or {}
    return [
        {
            "Input": _input_of(row, inputs),
            "Scorer": version_title(names, titles, row.scorer_version_id),
            "Score": _score_words(row),
            "Outcome": _outcome_words(row, outcome_labels),
            "Reason or problem": short_text(row.error or row.reason),
            "Dataset": names.dataset(row.dataset_id),
            "Run": "—" if row.run_id is None else f"#{row.run_id}",
            "When (UTC)": row.created_at.strftime("%Y-%m-%d %H:%M:%S"),
            "Seconds": _number(None if row.latency_ms is None else row.latency_ms / 1000, 2),
            "Tokens": row.total_tokens,
            "Cost ($)": _number(row.cost, 6),
            "Result": row.id,
        }
        for row in rows
    ]


def _input_of(row: ScoreRow, inputs: Mapping[int, str]) -> str:
    """The example's input in one line; a trace score names its trace."""
    if row.example_id is None:
        return f"(trace {row.trace_id})" if row.trace_id else "—"
    return inputs.get(row.example_id) or "(no input)"


def _outcome_words(row: ScoreRow, outcome_labels: Mapping[str, str]) -> str:
    """The outcome in words; another tool's verdict in words alone is no failure to score."""
    if row.outcome == "not_scorable" and row.label and row.score is None:
        return "Verdict in words"
    return outcome_labels.get(row.outcome, row.outcome)


def _score_words(row: ScoreRow) -> str:
    """The score, with another tool's label beside it ("0.80 · relevant"), or the label alone
    when the tool sent words on a scale we do not know."""
    number = None if row.score is None else _number(row.score, 2)
    return " · ".join(part for part in (number, row.label) if part) or "—"


def _number(value: float | None, digits: int) -> str:
    """A number as the table shows it; "—" for none (a table would print "None")."""
    return "—" if value is None else f"{value:.{digits}f}"


def row_label(
    row: ScoreRow, outcome_labels: Mapping[str, str], inputs: Mapping[int, str] | None = None
) -> str:
    """How one row reads in the "open a result" picker: the input first, then the outcome."""
    asked = short_text(_input_of(row, inputs or {}), 70)
    outcome = _outcome_words(row, outcome_labels)
    score = f" {row.score:.2f}" if row.score is not None else ""
    if row.label:
        score += f" “{row.label}”"
    return f"“{asked}” · {outcome}{score} · result {row.id}"


def example_previews(session: Session, *, ids: Sequence[int], width: int = 80) -> dict[int, str]:
    """A one-line preview of each example's input (for the comparison table)."""
    inputs = example_inputs(session, ids=ids)
    return {i: short_text(_as_text(value), width) for i, value in inputs.items()}


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)
