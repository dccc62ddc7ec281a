"""``scorer-studio traces import|list|expect|score``: agent traces kept in the store, scored
later.

``import`` keeps every good trace of a file and lists what it left out (line, span, JSON
path); ``expect`` gives a trace its expected answer (what scorers that compare read as the
ground truth); ``score`` scores stored traces with a stored scorer, skipping the traces its version
already scored, so running it after each import scores only what is new.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scorer_runtime.cli.support import console, engine, fail, friendly, session, styled
from scorer_runtime.counts import plural

if TYPE_CHECKING:
    from rich.table import Table

    from scorer_runtime.spec import ScorerSpec
    from scorer_runtime.store import Session, TraceSummary
    from scorer_runtime.traces import TraceScoreOutcome

OnOutcome = Callable[["TraceScoreOutcome"], None]

traces_app = typer.Typer(
    help="Import agent traces (OpenTelemetry or Mastra) and score them.", no_args_is_help=True
)
PROBLEMS_EXIT = 1
"""``traces import``'s status when some spans were left out (the good ones are imported)."""
_SHOWN = 20
"""Problems and unsuccessful outcomes listed on the terminal."""


class TraceFileFormat(StrEnum):
    """Which format a trace file is in (``auto`` decides per document)."""

    auto = "auto"
    otlp = "otlp"
    mastra = "mastra"


@traces_app.command("import")
@friendly
def traces_import(
    file: Annotated[Path, typer.Argument(help="OTLP JSON or Mastra spans (.json / .jsonl).")],
    format: Annotated[
        TraceFileFormat, typer.Option("--format", help="The file's format.")
    ] = TraceFileFormat.auto,
) -> None:
    """Import the traces of FILE; a trace already stored gets its new spans merged in.

    Exits with status 1 when some spans were left out (each is listed with its line, span
    and JSON path; the rest is imported), 2 when nothing could be imported.
    """
    from scorer_runtime.store import save_traces
    from scorer_runtime.traces import TraceImportError, read_trace_file

    found = read_trace_file(file, format=format.value)
    if not found.traces:
        raise TraceImportError(found.problems, source=str(file))
    with session(write=True) as opened:
        saved = save_traces(
            opened, traces=found.traces, source=file.name, evaluations=found.evaluations
        )
    parts = [f"{len(saved.added)} new"] if saved.added else []
    if saved.updated:
        parts.append(f"{len(saved.updated)} with new spans")
    if saved.unchanged:
        parts.append(f"{len(saved.unchanged)} already stored")
    count = len(found.traces)
    console().print(
        f"Imported {count} trace{'s' if count != 1 else ''} from {file.name}: {', '.join(parts)}."
    )
    if saved.external_scores:
        n = saved.external_scores
        console().print(
            f"Stored {n} score{'s' if n != 1 else ''} another tool sent with the spans "
            "(evaluation events); see them in Results, marked (external)."
        )
    if found.problems:
        err = console(stderr=True)
        n = len(found.problems)
        err.print(
            styled("yellow", f"{n} problem{'s' if n != 1 else ''}; what they name was left out:")
        )
        for problem in found.problems[:_SHOWN]:
            err.print(f"  - {problem}", markup=False)
        if n > _SHOWN:
            err.print(f"  … and {n - _SHOWN} more")
        err.print("Fix those lines and import the file again to add what was left out.")
        raise typer.Exit(PROBLEMS_EXIT)


@traces_app.command("list")
@friendly
def traces_list(
    search: str | None = typer.Option(None, help="Only traces whose id, name or file has this."),
    limit: int = typer.Option(20, min=1, max=1000, help="How many traces to show."),
) -> None:
    """List the stored traces, the most recent first."""
    from scorer_runtime.store import count_traces, list_traces

    with session() as opened:
        rows = list_traces(opened, search=search, limit=limit)
        total = count_traces(opened, search=search)
    if not rows:
        hint = "" if search else " Import some with: scorer-studio traces import FILE"
        console().print(f"No traces stored{' match ' + repr(search) if search else ''}.{hint}")
        return
    console().print(_traces_table(rows, title=f"Traces ({len(rows)} of {total})"))
    given = [row for row in rows if row.expected is not None]
    if given:
        console().print("Expected answers (give one with: scorer-studio traces expect):")
        for row in given:
            console().print(f"  {row.trace_id}: {_expected_words(row.expected)}", markup=False)


@traces_app.command("expect")
@friendly
def traces_expect(
    trace_id: Annotated[str, typer.Argument(help="The stored trace's id.")],
    tools: Annotated[
        str | None,
        typer.Option(help="The tools the agent should call, in order, separated by commas."),
    ] = None,
    answer: Annotated[str | None, typer.Option(help="The answer the agent should give.")] = None,
    clear: Annotated[bool, typer.Option(help="Remove the trace's expected answer.")] = False,
) -> None:
    """Give a stored trace its expected answer: the tools it should call, in order, or the
    answer it should give. Scorers that compare (tool order, matching an answer) read it as
    the trace's ground truth. An import file can carry it too (see the README)."""
    from scorer_runtime.store import set_trace_expected

    given = [o for o, v in (("--tools", tools), ("--answer", answer)) if v is not None]
    if len(given) + clear != 1:
        raise fail("Give exactly one of --tools, --answer or --clear.")
    expected = None if clear else tools.split(",") if tools is not None else answer
    with session(write=True) as opened:
        set_trace_expected(opened, trace_id=trace_id, expected=expected)
    console().print(f"Expected answer of trace {trace_id}: {_expected_words(expected)}.")


def _expected_hint(opened: Session, spec: ScorerSpec, ids: list[str], scorer: str) -> str | None:
    """Which traces to score lack the expected answer the scorer needs, and what to do."""
    from scorer_runtime.store import trace_summaries
    from scorer_runtime.traces import expected_need

    need = expected_need(spec)
    if not need.required or not ids:
        return None
    lacking = [
        line.trace_id
        for line in trace_summaries(opened, trace_ids=ids)
        if need.problem(line.expected) is not None
    ]
    if not lacking:
        return None
    count = len(lacking)
    return (
        f"{count} of them {'has' if count == 1 else 'have'} no expected answer of the kind "
        f"{scorer} compares with, so {'it comes' if count == 1 else 'they come'} out not "
        f"scorable. Give one with: scorer-studio traces expect {lacking[0]} --tools "
        '"first_tool, second_tool"'
    )


def _expected_words(expected: object) -> str:
    from scorer_runtime.traces import normalise_expected

    value = normalise_expected(expected)
    if value is None:
        return "none"
    if isinstance(value, list):
        return " → ".join(value) if value else "no tool call"
    return str(value)


@traces_app.command("score")
@friendly
def traces_score(
    scorer: Annotated[
        str,
        typer.Argument(
            help="Name of the scorer (an agent scorer reads the agent's messages and tool calls)."
        ),
    ],
    version: int | None = typer.Option(None, help="Scorer version (default: the latest)."),
    sample: float | None = typer.Option(
        None,
        min=0.0,
        max=1.0,
        help="Score only this share of the traces (0.1 for 10 %), picked by trace id: the "
        "same traces every time and for every scorer.",
    ),
    trace: Annotated[
        list[str] | None, typer.Option("--trace", help="Only this trace id (repeatable).")
    ] = None,
    rescore: bool = typer.Option(
        False, help="Score again the traces this version has already scored."
    ),
    concurrency: int = typer.Option(4, min=1, max=256, help="Traces scored at once."),
    api_base: str | None = typer.Option(
        None, help="Send every judge request to this OpenAI-compatible base URL instead."
    ),
    export_otlp: str | None = typer.Option(
        None,
        "--export-otlp",
        envvar="SCORER_STUDIO_EXPORT_OTLP",
        help="Also send each score to this OpenTelemetry collector (OTLP over HTTP, e.g. "
        "http://127.0.0.1:4318) as a gen_ai.evaluation.result event of the span it scored.",
    ),
) -> None:
    """Score the stored traces with SCORER and store each score with its trace and span."""
    from scorer_runtime.batch.trace_scoring import plan_trace_scoring, score_stored_traces
    from scorer_runtime.judge.config import JudgeConfigError
    from scorer_runtime.store import get_scorer, get_version, read_session

    made = engine()
    try:
        with read_session(made) as opened:
            record = get_scorer(opened, name=scorer)
            assert record.id is not None
            version_record = get_version(opened, scorer_id=record.id, version=version)
            assert version_record.id is not None
            plan = plan_trace_scoring(
                opened,
                scorer_version_id=version_record.id,
                trace_ids=trace,
                sample=sample,
                rescore=rescore,
            )
            hint = _expected_hint(opened, version_record.spec, plan.to_score, scorer)
        out = console()
        label = f"{scorer} v{version_record.version}"
        out.print(_plan_words(plan.to_score, plan.already_scored, plan.not_sampled, label))
        if hint:
            out.print(hint, markup=False)
        if not plan.to_score:
            return
        outcomes = _score_with_progress(
            lambda progress: score_stored_traces(
                made,
                version_record,
                plan.to_score,
                concurrency=concurrency,
                api_base=api_base,
                on_outcome=progress,
            ),
            len(plan.to_score),
        )
    except JudgeConfigError as e:
        raise fail(f"the judge cannot be called: {e}; nothing was scored") from None
    finally:
        made.dispose()
    out.print(_outcome_words(outcomes, label, scorer))
    if export_otlp:
        out.print(_export_events(outcomes, scorer, export_otlp), markup=False)
    unsuccessful = [o for o in outcomes if o.status != "scored"]
    if unsuccessful:
        out.print(_outcomes_table(unsuccessful[:_SHOWN]))


def _export_events(outcomes: list[TraceScoreOutcome], scorer: str, url: str) -> str:
    """Send each outcome to the collector at ``url`` as an evaluation event; what happened."""
    from scorer_runtime.traces.evaluation_events import EvaluationSender, evaluation_result

    try:
        sender = EvaluationSender(url)
    except ValueError as e:
        raise fail(f"the scores are stored, but none was sent: {e}") from None
    sender.send(evaluation_result(o, scorer) for o in outcomes)
    sender.close()
    words = f"Sent {plural(sender.delivered, 'evaluation event')} to {sender.endpoint}."
    if sender.failed:
        words += (
            f" {plural(sender.failed, 'event')} could not be sent: is the collector running "
            "at that address? The scores themselves are stored."
        )
    return words


def _plan_words(to_score: list[str], done: list[str], not_sampled: list[str], label: str) -> str:
    n = len(to_score)
    words = [f"Scoring {n} trace{'s' if n != 1 else ''} with {label}"]
    if done:
        words.append(
            f"{len(done)} already scored by this version are skipped (--rescore to score "
            "them again)"
        )
    if not_sampled:
        words.append(f"{len(not_sampled)} outside the sample")
    text = "; ".join(words) + "."
    if n == 0 and not done and not not_sampled:
        text += " No traces are stored: import some with scorer-studio traces import FILE"
    return text


def _score_with_progress(
    work: Callable[[OnOutcome], list[TraceScoreOutcome]], total: int
) -> list[TraceScoreOutcome]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=console(), transient=False) as bar:
        task = bar.add_task("scoring traces", total=total)

        def progress(_: TraceScoreOutcome) -> None:
            bar.advance(task)

        outcomes: list[TraceScoreOutcome] = work(progress)
    return outcomes


def _outcome_words(outcomes: list[TraceScoreOutcome], label: str, scorer: str) -> str:
    counts = Counter(o.status for o in outcomes)
    scores = [o.score for o in outcomes if o.score is not None]
    mix = ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in sorted(counts.items()))
    mean = f"; mean {sum(scores) / len(scores):.3f}" if scores else ""
    return f"{label}: {mix}{mean}. See them with: scorer-studio history {scorer}"


def _traces_table(rows: list[TraceSummary], *, title: str) -> Table:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for name in ("trace", "what", "started (UTC)", "spans", "model", "tools", "failed", "file"):
        table.add_column(name, overflow="fold")
    for row in rows:
        table.add_row(
            row.trace_id,
            row.agent or row.name,
            row.started_at.strftime("%Y-%m-%d %H:%M:%S"),
            str(row.span_count),
            str(row.model_calls),
            str(row.tool_calls),
            str(row.errors) if row.errors else "",
            row.source,
        )
    return table


def _outcomes_table(outcomes: list[TraceScoreOutcome]) -> Table:
    from rich.table import Table

    table = Table(title="Not scored", title_justify="left")
    for name in ("trace", "span", "outcome", "step", "why"):
        table.add_column(name, overflow="fold")
    for o in outcomes:
        why = o.reason if o.status == "not_scorable" else o.error
        table.add_row(
            o.trace_id,
            o.span_id or "—",
            o.status.replace("_", " "),
            o.failed_step or "—",
            " ".join((why or "").split())[:200],
        )
    return table
