"""The batch runner: one outcome per example, bounded concurrency, progress, cancel, resume."""

from __future__ import annotations

import asyncio
import threading

import pytest

from scorer_runtime import ErrorKind, ScorerRunError, create_scorer, not_scorable
from scorer_runtime.batch import BatchRunner, outcome_of_error
from scorer_runtime.results import ScoreResult
from scorer_runtime.runs import run_batch
from scorer_runtime.store import (
    ExampleData,
    ScoreFilter,
    create_run,
    get_run,
    get_score,
    list_scores,
    make_engine,
    read_session,
    request_cancel,
    session_scope,
)
from tests.batch.judged import verdict_scorer
from tests.store.fixtures import make_dataset, make_version


def _stored(engine, run_id):
    """{example output: (outcome, score)} of every stored result of a run, and the row count."""
    with read_session(engine) as session:
        rows, cursor = [], None
        while True:
            page = list_scores(session, filter=ScoreFilter(run_id=run_id), after=cursor, limit=500)
            rows += page.rows
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
    return rows


def _length_scorer(calls=None, delay_s=0.0):
    async def score(run):
        if calls is not None:
            calls.append(run.output)
        if delay_s:
            await asyncio.sleep(delay_s)
        if run.output == "boom":
            raise RuntimeError("the output exploded")
        if run.output == "":
            return not_scorable("no answer to score")
        return min(len(run.output) / 10, 1.0)

    return create_scorer(id="length", description="d").generate_score(score)


async def test_every_example_gets_one_outcome_and_a_failure_never_sinks_the_run(engine):
    outputs = ["short", "boom", "", "a much longer answer", "mid-length"]
    dataset_id = make_dataset(engine, "faq", [ExampleData(output=o) for o in outputs])
    _, version_id = make_version(engine, "length")
    seen = []
    summary = await run_batch(
        engine,
        _length_scorer(),
        scorer_version_id=version_id,
        dataset_id=dataset_id,
        concurrency=2,
        progress=seen.append,
        threshold=0.8,
    )
    rows = _stored(engine, summary.run_id)
    assert sorted(r.outcome for r in rows) == sorted(
        ["scored", "step_error", "not_scorable", "scored", "scored"]
    )
    error = next(r for r in rows if r.outcome == "step_error")
    assert "failed in its generate_score step: RuntimeError: the output exploded" in error.error
    assert next(r for r in rows if r.outcome == "not_scorable").reason == "no answer to score"
    scores = [0.5, 1.0, 1.0]  # not-scorable and failed examples are left out of the averages
    assert summary.status == "done"
    assert (summary.total, summary.done) == (5, 5)
    assert summary.mean == pytest.approx(sum(scores) / 3)
    assert summary.median == 1.0
    assert summary.pass_rate == pytest.approx(2 / 3)
    assert summary.verdict == "pass"
    assert summary.failures == 1
    assert summary.outcome_counts == {"scored": 3, "step_error": 1, "not_scorable": 1}
    assert [p.done for p in seen] == [1, 2, 3, 4, 5]
    assert seen[-1].total == 5
    assert seen[-1].failures == 1
    with read_session(engine) as session:
        run = get_run(session, run_id=summary.run_id)
    assert (run.status, run.done_count, run.failed_count) == ("done", 5, 1)
    assert run.finished_at is not None
    assert run.finished_at >= run.started_at


async def test_a_threshold_above_the_mean_fails_and_no_scores_fail_any_threshold(engine):
    dataset_id = make_dataset(engine, "faq", [ExampleData(output="abc"), ExampleData(output="")])
    _, version_id = make_version(engine, "length")
    low = await run_batch(
        engine,
        _length_scorer(),
        scorer_version_id=version_id,
        dataset_id=dataset_id,
        threshold=0.5,
    )
    assert (low.mean, low.verdict) == (pytest.approx(0.3), "fail")
    empty_id = make_dataset(engine, "empty-answers", [ExampleData(output="")])
    none = await run_batch(
        engine,
        _length_scorer(),
        scorer_version_id=version_id,
        dataset_id=empty_id,
        threshold=0.0,
    )
    assert (none.scored, none.mean, none.verdict) == (0, None, "fail")


async def test_concurrency_is_bounded(engine):
    dataset_id = make_dataset(engine, "faq", [ExampleData(output=f"answer {i}") for i in range(12)])
    _, version_id = make_version(engine, "slow")
    active, peak = 0, 0

    async def score(run):
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.02)
        active -= 1
        return 1.0

    scorer = create_scorer(id="slow", description="d").generate_score(score)
    summary = await run_batch(
        engine, scorer, scorer_version_id=version_id, dataset_id=dataset_id, concurrency=3
    )
    assert summary.scored == 12
    assert peak == 3


async def test_judge_failures_are_stored_with_their_outcome_and_evidence(engine, fake_judge):
    fake_judge.fault(status=400, when="ans-provider", times=None)
    fake_judge.reply("I would rather not say.", when="ans-format")
    fake_judge.reply({"verdict": "bad"}, when="ans-bad")
    fake_judge.reply({"verdict": "good"})
    outputs = ["ans-good", "ans-bad", "ans-format", "ans-provider"]
    dataset_id = make_dataset(engine, "faq", [ExampleData(output=o) for o in outputs])
    _, version_id = make_version(engine, "verdict")
    summary = await run_batch(
        engine, verdict_scorer(fake_judge), scorer_version_id=version_id, dataset_id=dataset_id
    )
    assert summary.outcome_counts == {"scored": 2, "judge_format_error": 1, "provider_error": 1}
    with read_session(engine) as session:
        rows = {
            r.outcome: get_score(session, score_id=r.id) for r in _stored(engine, summary.run_id)
        }
    scored = rows["scored"]
    assert scored.prompts["analyze"].startswith("Grade this answer: ans-")
    assert scored.judge["analyze"]["status"] == "success"
    assert scored.attempts == 1
    assert scored.total_tokens == 18
    assert scored.latency_ms > 0
    fmt = rows["judge_format_error"]
    assert fmt.failed_step == "analyze"
    assert fmt.judge["analyze"]["raw_output"]
    assert fmt.judge["analyze"]["error_kind"] == "format"
    provider = rows["provider_error"]
    assert provider.judge["analyze"]["error_kind"] == "invalid_request"
    assert "failed in its analyze step" in provider.error


@pytest.mark.parametrize(
    ("kind", "outcome"),
    [(ErrorKind.FORMAT, "judge_format_error"), (None, "step_error")]
    + [(k, "provider_error") for k in ErrorKind if k is not ErrorKind.FORMAT],
)
def test_error_kinds_map_to_outcomes(kind, outcome):
    class Cause(Exception):
        pass

    cause = Cause("x")
    if kind is not None:
        cause.kind = kind
    error = ScorerRunError(
        "m", scorer_id="s", failed_step="analyze", completed_steps=(), result=ScoreResult("r")
    )
    error.__cause__ = cause
    assert outcome_of_error(error) == outcome


async def test_cancel_from_another_process_then_resume_scores_each_example_once(engine):
    dataset_id = make_dataset(engine, "faq", [ExampleData(output=f"answer {i}") for i in range(40)])
    _, version_id = make_version(engine, "length")
    with session_scope(engine) as session:
        run_id = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id
    calls: list[str] = []
    cancelled = threading.Event()

    def progress(p):
        # Another "process": a separate session sets the flag the runner polls.
        if p.done == 8 and not cancelled.is_set():
            cancelled.set()
            with session_scope(engine) as session:
                request_cancel(session, run_id=run_id)

    first = await BatchRunner(
        engine,
        _length_scorer(calls, delay_s=0.01),
        run_id=run_id,
        concurrency=2,
        progress=progress,
        flush_interval_s=0.05,
    ).run()
    assert first.status == "cancelled"
    assert 8 <= first.done < 40
    assert len(_stored(engine, run_id)) == first.done

    again: list[str] = []
    second = await BatchRunner(engine, _length_scorer(again), run_id=run_id).run()
    assert second.status == "done"
    assert second.done == 40
    rows = _stored(engine, run_id)
    assert len(rows) == len({r.example_id for r in rows}) == 40
    assert len(again) == 40 - first.done  # the resume scored only what was missing
    assert not set(again) & {o for o in calls[: first.done]}


async def test_asyncio_cancellation_keeps_finished_results_and_marks_the_run(engine):
    dataset_id = make_dataset(engine, "faq", [ExampleData(output=f"answer {i}") for i in range(30)])
    _, version_id = make_version(engine, "length")
    with session_scope(engine) as session:
        run_id = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id
    done = asyncio.Event()

    def progress(p):
        if p.done >= 5:
            done.set()

    runner = BatchRunner(
        engine,
        _length_scorer(delay_s=0.02),
        run_id=run_id,
        concurrency=2,
        progress=progress,
        flush_interval_s=10,  # nothing is flushed by the timer: the cancel path must commit
    )
    task = asyncio.create_task(runner.run())
    await done.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with read_session(engine) as session:
        run = get_run(session, run_id=run_id)
    stored = _stored(engine, run_id)
    assert run.status == "cancelled"
    assert run.done_count == len(stored) >= 5


async def test_results_are_committed_while_the_run_is_going(engine):
    dataset_id = make_dataset(engine, "faq", [ExampleData(output=f"answer {i}") for i in range(30)])
    _, version_id = make_version(engine, "length")
    with session_scope(engine) as session:
        run_id = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id
    seen_mid_run = []

    def progress(p):
        if p.done == 25:
            seen_mid_run.append(len(_stored(engine, run_id)))

    await BatchRunner(
        engine,
        _length_scorer(delay_s=0.005),
        run_id=run_id,
        concurrency=1,
        progress=progress,
        flush_every=10,
        flush_interval_s=10,
    ).run()
    # The first result at once (someone may watch for it), then two full batches of ten; the
    # rest still buffered.
    assert seen_mid_run == [21]


async def test_a_trace_score_is_stored_without_an_example(engine):
    from scorer_runtime.batch import ExampleInput, score_example
    from scorer_runtime.store import add_scores

    scorer_id, version_id = make_version(engine, "length")
    result = await score_example(_length_scorer(), ExampleInput(None, output="agent said hi"))
    row = result.row(
        run_id=None,
        scorer_id=scorer_id,
        scorer_version_id=version_id,
        dataset_id=None,
        trace_id="4bf92f3577b34da6a3ce929d0e0e4736",
        span_id="00f067aa0ba902b7",
    )
    with session_scope(engine) as session:
        add_scores(session, rows=[row, row])  # no run: nothing to deduplicate on
    with read_session(engine) as session:
        rows = list_scores(session, filter=ScoreFilter(scorer_id=scorer_id)).rows
    assert [(r.trace_id, r.span_id, r.example_id, r.score) for r in rows] == [
        ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", None, 1.0)
    ] * 2


async def test_a_slow_run_commits_each_result_before_the_next_lands(engine, db_url):
    """What the Runs page sees: with the default settings, each result of a run whose
    examples take longer than the commit interval is readable from another connection (the
    row count and the run's progress) as soon as it lands, not a timer's tick later nor at
    the end."""
    dataset_id = make_dataset(engine, "five", [ExampleData(output=f"answer {i}") for i in range(5)])
    _, version_id = make_version(engine, "length")
    with session_scope(engine) as session:
        run_id = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id
    reader = make_engine(db_url)  # another connection pool: only committed rows are seen
    seen: list[tuple[int, int]] = []

    def committed() -> tuple[int, int]:
        with read_session(reader) as session:
            return len(list_scores(session, filter=ScoreFilter(run_id=run_id)).rows), get_run(
                session, run_id=run_id
            ).done_count

    async def score(run):
        # What is stored when the next example starts: every earlier result, at once.
        seen.append(await asyncio.to_thread(committed))
        await asyncio.sleep(0.25)  # a judge's pace: longer than the commit interval
        return 1.0

    scorer = create_scorer(id="slow", description="d").generate_score(score)
    try:
        summary = await BatchRunner(engine, scorer, run_id=run_id, concurrency=1).run()
    finally:
        reader.dispose()
    assert summary.done == 5
    assert seen == [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)]
