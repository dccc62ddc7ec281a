"""A cost total says how much of it is known: the one wording, and real runs against the fake
judge on a model litellm prices ("openai/gpt-4o-mini"), one it cannot ("openai/fake-judge"),
a mix of both, and a scorer that never asks a judge.
"""

from __future__ import annotations

import pytest
from rich.console import Console

from scorer_runtime import create_scorer
from scorer_runtime.batch import BatchRunner
from scorer_runtime.cli.report import summary_table
from scorer_runtime.money import cost_words, describe_cost, format_dollars
from scorer_runtime.runs import run_batch
from scorer_runtime.store import (
    ExampleData,
    ScoreFilter,
    create_run,
    get_score,
    list_scores,
    read_session,
    request_cancel,
    session_scope,
)
from tests.batch.judged import verdict_scorer
from tests.store.fixtures import make_dataset, make_version

PRICED, UNPRICED = "openai/gpt-4o-mini", "openai/fake-judge"


def test_the_wording_of_each_case():
    assert describe_cost(0.0123, 40, 0) == "$0.0123"
    assert describe_cost(0.0123, 38, 2) == "$0.0123 (38 of 40 results priced; the rest are unknown)"
    assert describe_cost(0.0, 0, 40) == "unknown (40 results on an unpriced model)"
    assert describe_cost(0.0, 0, 1) == "unknown (1 result on an unpriced model)"
    assert describe_cost(0.0, 0, 0) == "$0"
    assert describe_cost(12.5, 1200, 34) == (
        "$12.5000 (1,200 of 1,234 results priced; the rest are unknown)"
    )
    words = cost_words(0.0123, 38, 2)
    assert (words.kind, words.amount, words.complete) == ("partial", "$0.0123", False)
    assert cost_words(0.0, 0, 5).kind == "unknown"
    assert cost_words(0.0, 0, 0).complete
    assert cost_words(0.0, 0, 0).kind == "nothing"
    assert cost_words(0.5, 2, 0).complete


def test_small_amounts_keep_two_significant_digits():
    assert format_dollars(0.01234) == "$0.0123"
    assert format_dollars(0.0012) == "$0.0012"
    assert format_dollars(0.00052) == "$0.00052"
    assert format_dollars(0.0000234) == "$0.000023"
    assert format_dollars(1234.5) == "$1,234.5000"
    assert format_dollars(0.0) == "$0"


def _rows(engine, run_id):
    """The run's stored results, whole (attempts and cost)."""
    with read_session(engine) as session:
        page = list_scores(session, filter=ScoreFilter(run_id=run_id), limit=500)
        return [get_score(session, score_id=r.id) for r in page.rows]


def _printed(summary) -> str:
    """The CLI's summary table as text."""
    console = Console(record=True, width=200)
    console.print(summary_table(summary))
    return console.export_text()


def _cost_cell(summary) -> str:
    """The value the CLI's summary table prints on its cost row."""
    line = next(t for t in _printed(summary).splitlines() if t.startswith("│ cost "))
    return line.split("│")[2].strip()


async def _run(engine, scorer, outputs, progress=None):
    dataset_id = make_dataset(engine, "answers", [ExampleData(output=o) for o in outputs])
    _, version_id = make_version(engine, "verdict")
    return await run_batch(
        engine,
        scorer,
        scorer_version_id=version_id,
        dataset_id=dataset_id,
        concurrency=2,
        progress=progress,
    )


async def test_a_model_without_a_price_reads_unknown_not_zero(engine, fake_judge):
    fake_judge.reply({"verdict": "good"})
    outputs = [f"answer {i}" for i in range(5)]
    seen = []
    summary = await _run(engine, verdict_scorer(fake_judge, UNPRICED), outputs, seen.append)
    rows = _rows(engine, summary.run_id)
    assert all(r.attempts > 0 and r.cost is None for r in rows)  # what litellm could not price
    assert (summary.priced, summary.unpriced, summary.cost) == (0, len(outputs), 0.0)
    assert str(summary.cost_words) == f"unknown ({len(outputs)} results on an unpriced model)"
    assert _cost_cell(summary) == f"unknown ({len(outputs)} results on an unpriced model)"
    assert (seen[-1].priced, seen[-1].unpriced) == (0, len(outputs))


async def test_a_priced_model_reads_a_dollar_amount(engine, fake_judge):
    fake_judge.reply({"verdict": "good"})
    outputs = [f"answer {i}" for i in range(4)]
    seen = []
    summary = await _run(engine, verdict_scorer(fake_judge, PRICED), outputs, seen.append)
    rows = _rows(engine, summary.run_id)
    assert all(r.cost is not None and r.cost > 0 for r in rows)
    assert (summary.priced, summary.unpriced) == (len(outputs), 0)
    assert summary.cost == pytest.approx(sum(r.cost for r in rows))
    assert str(summary.cost_words) == format_dollars(summary.cost)
    assert summary.cost_words.amount != "$0.0000"  # a cheap run is not rounded to nothing
    assert _cost_cell(summary) == format_dollars(summary.cost)
    assert (seen[-1].priced, seen[-1].unpriced) == (len(outputs), 0)
    assert seen[-1].cost == pytest.approx(summary.cost)


async def test_results_the_judge_could_not_price_make_a_partial_total(engine, fake_judge):
    # The priced model, but the provider refuses two answers: those calls have no cost.
    fake_judge.fault(status=400, when="refused", times=None)
    fake_judge.reply({"verdict": "good"})
    outputs = ["fine 1", "refused 1", "fine 2", "fine 3", "refused 2"]
    summary = await _run(engine, verdict_scorer(fake_judge, PRICED), outputs)
    rows = _rows(engine, summary.run_id)
    priced = sum(1 for r in rows if r.attempts > 0 and r.cost is not None)
    unpriced = sum(1 for r in rows if r.attempts > 0 and r.cost is None)
    assert (priced, unpriced) == (3, 2)
    assert (summary.priced, summary.unpriced) == (priced, unpriced)
    expected = f"{format_dollars(summary.cost)} (3 of 5 results priced; the rest are unknown)"
    assert str(summary.cost_words) == expected
    assert _cost_cell(summary) == expected


async def test_a_scorer_without_a_judge_costs_nothing(engine):
    scorer = create_scorer(id="length", description="d").generate_score(
        lambda run: min(len(run.output) / 10, 1.0)
    )
    summary = await _run(engine, scorer, ["short", "a longer answer"])
    assert (summary.priced, summary.unpriced, summary.cost) == (0, 0, 0.0)
    assert str(summary.cost_words) == "$0"
    assert _cost_cell(summary) == "$0"


async def test_a_run_resumed_on_another_model_counts_both_parts(engine, fake_judge):
    """Cancelled while on the unpriced model, resumed on the priced one: the progress and the
    summary count the results of both parts."""
    fake_judge.reply({"verdict": "good"}, latency_s=0.05)
    outputs = [f"answer {i}" for i in range(10)]
    dataset_id = make_dataset(engine, "answers", [ExampleData(output=o) for o in outputs])
    _, version_id = make_version(engine, "verdict")
    with session_scope(engine) as session:
        run_id = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id

    def cancel_after_two(progress):
        if progress.done == 2:
            with session_scope(engine) as session:
                request_cancel(session, run_id=run_id)

    first = BatchRunner(
        engine, verdict_scorer(fake_judge, UNPRICED), run_id=run_id, concurrency=1,
        progress=cancel_after_two,
    )  # fmt: skip
    assert (await first.run()).status == "cancelled"
    before = len(_rows(engine, run_id))
    assert 2 <= before < len(outputs)

    seen = []
    second = BatchRunner(
        engine,
        verdict_scorer(fake_judge, PRICED),
        run_id=run_id,
        concurrency=1,
        progress=seen.append,
    )
    summary = await second.run()
    assert summary.status == "done"
    rest = len(outputs) - before
    assert (summary.priced, summary.unpriced) == (rest, before)
    assert (seen[0].unpriced, seen[-1].priced, seen[-1].unpriced) == (before, rest, before)
    words = f"({rest} of {len(outputs)} results priced; the rest are unknown)"
    assert str(summary.cost_words) == f"{format_dollars(summary.cost)} {words}"


async def test_a_result_without_judge_calls_is_stored_as_costing_nothing():
    """NULL is kept for "called the judge, price unknown", so totals can count it from the
    indexes; a run that failed before any step, or made no judge call, cost 0."""
    from scorer_runtime.batch import ExampleInput, score_example

    def broken(run):
        raise ValueError("no input to read")

    failing = create_scorer(id="early", description="d", prepare_run=broken).generate_score(
        lambda: 1.0
    )
    early = await score_example(failing, ExampleInput(1, input="q", output="a"))
    assert (early.outcome, early.failed_step, early.cost) == ("step_error", "prepare_run", 0.0)
    free = create_scorer(id="free", description="d").generate_score(lambda: 1.0)
    done = await score_example(free, ExampleInput(2, input="q", output="a"))
    assert (done.outcome, done.attempts, done.cost) == ("scored", 0, 0.0)


def test_a_run_stopped_below_its_cap_says_why():
    from scorer_runtime.costs.cap import budget_words

    full = budget_words(0.25, 0.25)
    assert full == (
        "stopped: budget reached: $0.2500 spent of the $0.2500 cap. "
        "Resume it with a higher cap to score the rest."
    )
    below = budget_words(0.46, 1.0)
    assert below.startswith("stopped: budget reached: $0.4600 spent of the $1.0000 cap. ")
    assert "It stopped at 46% of the cap on purpose: before each judge call" in below
    assert "the next example's worst case no longer fits in what is left." in below
    assert below.endswith("Resume it with a higher cap to score the rest.")
