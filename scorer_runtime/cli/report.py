"""Terminal views of runs, scores, scorers and datasets (rich tables), for the CLI."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from scorer_runtime.batch.summary import BatchSummary
from scorer_runtime.cli.support import styled, visible

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table
    from rich.text import Text

    from scorer_runtime.store import DatasetInfo, ScorerInfo, ScorerVersionInfo
    from scorer_runtime.store.scores import ScoreRow


STATUS_WORDS = {"stopped": "stopped: budget reached"}
"""A run's stored status in words, where the status alone does not say it."""


def _num(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _short(text: str | None, width: int = 60) -> str:
    if not text:
        return ""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _text(value: str) -> Text:
    """Stored text shown as it is: "[redacted]" in an error is not rich markup."""
    from rich.text import Text

    return Text(visible(value))


def run_progress(out: Console) -> Progress:
    """The progress bar of a run on the terminal: description, bar, done of total, failures,
    cost, and its pace in words (a task's ``failures``, ``cost`` and ``pace`` fields: whether
    a judge's rate limit holds the run back, and the time left)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("failures {task.fields[failures]}  cost {task.fields[cost]}"),
        TextColumn("{task.fields[pace]}", markup=False),
    )
    return Progress(*columns, console=out, transient=False)


def summary_table(summary: BatchSummary) -> Table:
    """A run's summary: status, counts, mean/median/pass rate, outcomes, cost, time, verdict."""
    from rich.table import Table

    table = Table(title=f"Run {summary.run_id}", show_header=False, title_justify="left")
    table.add_column("what", style="bold")
    table.add_column("value")
    table.add_row("status", STATUS_WORDS.get(summary.status, summary.status))
    table.add_row("examples", f"{summary.done} of {summary.total} have a result")
    table.add_row("scored", str(summary.scored))
    table.add_row("mean", _num(summary.mean))
    table.add_row("median", _num(summary.median))
    if summary.threshold is not None:
        table.add_row(f"pass rate (≥ {summary.threshold:g})", _num(summary.pass_rate))
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(summary.outcome_counts.items()))
    table.add_row("outcomes", outcomes or "—")
    table.add_row("cost", str(summary.cost_words))
    if summary.cache_words is not None:
        table.add_row("cache", summary.cache_words)
    if summary.wall_time_s is not None:
        table.add_row("wall time", f"{summary.wall_time_s:.1f} s")
    if summary.verdict is not None:
        style = "green" if summary.verdict == "pass" else "red"
        needs = f"needs mean ≥ {summary.threshold:g}"
        table.add_row("verdict", styled(style, summary.verdict, f" ({needs})"))
    if summary.error:
        table.add_row("error", _text(summary.error))
    return table


def scores_table(rows: Sequence[ScoreRow], *, title: str) -> Table:
    """Stored scores, newest first."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for name in ("when (UTC)", "run", "example", "outcome", "score", "reason / error", "ms"):
        table.add_column(name, overflow="fold")
    for row in rows:
        table.add_row(
            row.created_at.strftime("%Y-%m-%d %H:%M:%S"),
            str(row.run_id or "—"),
            str(row.example_id or row.trace_id or "—"),
            row.outcome,
            _num(row.score),
            _text(_short(row.error or row.reason)),
            _num(row.latency_ms, 0),
        )
    return table


def scorers_table(scorers: Sequence[ScorerInfo], latest: Mapping[int, int]) -> Table:
    """Scorers with their latest version number."""
    from rich.table import Table

    table = Table(title="Scorers", title_justify="left")
    for name in ("name", "latest version", "description", "archived"):
        table.add_column(name)
    for scorer in scorers:
        archived = "yes" if scorer.archived_at else ""
        version = str(latest.get(scorer.id or 0, "—"))
        table.add_row(scorer.name, version, _short(scorer.description), archived)
    return table


def versions_table(versions: Sequence[ScorerVersionInfo]) -> Table:
    """A scorer's versions, newest first."""
    from rich.table import Table

    table = Table(title="Versions", title_justify="left")
    for name in ("version", "saved (UTC)", "hash", "note"):
        table.add_column(name)
    for v in versions:
        saved = v.created_at.strftime("%Y-%m-%d %H:%M")
        table.add_row(str(v.version), saved, v.content_hash[:12], _short(v.note))
    return table


def datasets_table(datasets: Sequence[DatasetInfo], counts: Mapping[int, int]) -> Table:
    """Datasets with their number of examples."""
    from rich.table import Table

    table = Table(title="Datasets", title_justify="left")
    for name in ("name", "examples", "created (UTC)", "description"):
        table.add_column(name)
    for dataset in datasets:
        created = dataset.created_at.strftime("%Y-%m-%d %H:%M")
        count = str(counts.get(dataset.id or 0, 0))
        table.add_row(dataset.name, count, created, _short(dataset.description))
    return table
