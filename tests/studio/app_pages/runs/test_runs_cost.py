"""Cost totals in the studio say how much of them is known: the Runs page's "Judge cost", the
live "Cost so far", and the Results page's caption, for real runs against the fake judge on
a model litellm prices, one it cannot price, a mix, and a scorer that never asks a judge.

Runs execute in this process (``run_batch``) on the studio's SQLite file; expectations are
read from the store (``summarize_run``) or derived from the inputs.
"""

from __future__ import annotations

import asyncio
import time

from scorer_runtime.batch import BatchRunner, summarize_run
from scorer_runtime.money import format_dollars
from scorer_runtime.runs import run_batch
from scorer_runtime.saved_scorers import compile_version
from scorer_runtime.store import (
    create_run,
    get_run,
    get_version_by_id,
    read_session,
    request_cancel,
    session_scope,
)
from scorer_runtime.store.views import run_line
from studio.app_pages.runs.logic import run_cost_words

from .test_runs_helpers import KEY_ENV, judge_spec, make_dataset, save_spec

PRICED, UNPRICED = "openai/gpt-4o-mini", "openai/fake-judge"
FREE_SPEC = {
    "id": "length",
    "name": "Length",
    "description": "Longer answers score higher.",
    "steps": [{"step": "generate_score", "formula": "min(len(output) / 20, 1)"}],
}


def _spec(base_url: str, model: str) -> dict:
    spec = judge_spec(base_url)
    spec["judge"]["model"] = model
    return spec


def _scorer(engine, version_id: int, api_base: str | None):
    with read_session(engine) as session:
        version = get_version_by_id(session, version_id=version_id)
        return compile_version(session, version, api_base=api_base)


async def _run(engine, spec: dict, outputs: list[str], api_base: str | None = None) -> int:
    """Save ``spec``, score ``outputs`` with it in this process; the run's id."""
    _, version_id = save_spec(engine, spec)
    dataset_id = make_dataset(engine, f"answers-{spec['id']}", outputs)
    scorer = _scorer(engine, version_id, api_base)
    summary = await run_batch(
        engine, scorer, scorer_version_id=version_id, dataset_id=dataset_id, concurrency=2
    )
    assert summary.status == "done"
    return summary.run_id


def _summary(engine, run_id: int):
    with read_session(engine) as session:
        return summarize_run(session, run_id=run_id)


def _metric(at, label: str):
    return next(m for m in at.metric if m.label == label)


def _captions(at) -> str:
    return "\n".join(c.value for c in at.caption)


def _runs_page(open_page, run_id: int):
    at = open_page("runs")
    at.session_state["runs.run_id"] = run_id
    at.run()
    assert not at.exception, at.exception
    return at


def _results_caption(open_page, run_id: int) -> str:
    at = open_page("home")
    at.session_state["results.filters"] = {"run_id": run_id}
    at.switch_page("app_pages/results/page.py").run()
    assert not at.exception, at.exception
    return next(c.value for c in at.caption if "judge cost" in c.value)


# -- finished runs: the Runs page and the Results page ---------------------------------------


async def test_a_model_without_a_price_shows_an_unknown_cost(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "yes"})
    outputs = ["Happy to help!", "Sure thing.", "Glad to help."]
    run_id = await _run(studio_db, _spec(fake_judge.base_url, UNPRICED), outputs)
    summary = _summary(studio_db, run_id)
    assert (summary.priced, summary.unpriced) == (0, len(outputs))

    at = _runs_page(open_page, run_id)
    metric = _metric(at, "Judge cost")
    assert metric.value == "Unknown"
    assert f"{len(outputs)} results on an unpriced model" in metric.help
    said = f"Judge cost: unknown ({len(outputs)} results on an unpriced model)."
    assert said in _captions(at)
    assert "$0.0000" not in _captions(at)
    caption = _results_caption(open_page, run_id)
    assert f"judge cost unknown ({len(outputs)} results on an unpriced model)" in caption


async def test_a_priced_model_shows_a_dollar_amount(studio_db, open_page, fake_judge, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "yes"})
    run_id = await _run(studio_db, _spec(fake_judge.base_url, PRICED), ["Hi!", "Hello!"])
    summary = _summary(studio_db, run_id)
    assert (summary.priced, summary.unpriced) == (2, 0)
    assert summary.cost > 0

    at = _runs_page(open_page, run_id)
    assert _metric(at, "Judge cost").value == format_dollars(summary.cost)
    assert "unknown" not in _captions(at)
    caption = _results_caption(open_page, run_id)
    assert caption.endswith(f"judge cost {format_dollars(summary.cost)}")


async def test_a_mix_says_how_many_results_are_priced(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.fault(status=400, when="refused", times=None)  # calls the provider did not price
    fake_judge.reply({"verdict": "yes"})
    outputs = ["Happy to help!", "refused one", "Sure thing.", "Glad to help."]
    run_id = await _run(studio_db, _spec(fake_judge.base_url, PRICED), outputs)
    summary = _summary(studio_db, run_id)
    assert (summary.priced, summary.unpriced) == (3, 1)

    at = _runs_page(open_page, run_id)
    metric = _metric(at, "Judge cost")
    amount = format_dollars(summary.cost)
    assert metric.value == amount
    assert metric.help.startswith("3 of 4 results priced; the rest are unknown")
    assert f"Judge cost: {amount} (3 of 4 results priced; the rest are unknown)." in _captions(at)
    caption = _results_caption(open_page, run_id)
    assert f"judge cost {amount} (3 of 4 results priced; the rest are unknown)" in caption


async def test_a_scorer_without_a_judge_shows_it_cost_nothing(studio_db, open_page):
    run_id = await _run(studio_db, FREE_SPEC, ["short", "a much longer answer than that"])
    at = _runs_page(open_page, run_id)
    metric = _metric(at, "Judge cost")
    assert metric.value == "$0"
    assert "Nothing was spent on judge calls" in metric.help
    caption = _results_caption(open_page, run_id)
    assert "judge cost $0" in caption
    assert "unknown" not in caption


# -- a run in progress -------------------------------------------------------------------------


def test_the_run_line_counts_priced_and_unpriced_results(studio_db, monkeypatch, fake_judge):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.fault(status=400, when="refused", times=None)
    fake_judge.reply({"verdict": "yes"})
    outputs = ["fine", "refused", "fine again"]
    run_id = asyncio.run(_run(studio_db, _spec(fake_judge.base_url, UNPRICED), outputs))
    with read_session(studio_db) as session:
        line = run_line(session, run_id=run_id)
    assert line is not None
    # Unpriced: the two answers on a model without a price, and the refused call.
    assert (line.priced, line.unpriced, line.scored) == (0, 3, 2)
    assert str(run_cost_words(line)) == "unknown (3 results on an unpriced model)"


async def test_the_live_cost_says_it_is_only_what_is_known_so_far(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "yes"}, latency_s=0.3)
    outputs = [f"Answer number {i}." for i in range(12)]
    _, version_id = save_spec(studio_db, _spec(fake_judge.base_url, UNPRICED))
    dataset_id = make_dataset(studio_db, "slow", outputs)
    with session_scope(studio_db) as session:
        run_id = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id
    scorer = _scorer(studio_db, version_id, None)
    task = asyncio.create_task(
        BatchRunner(studio_db, scorer, run_id=run_id, concurrency=1, flush_interval_s=0.05).run()
    )
    try:
        deadline = time.monotonic() + 30
        while _stored(studio_db, run_id) < 2:
            assert time.monotonic() < deadline, "the run did not store two results"
            await asyncio.sleep(0.05)
        at = _runs_page(open_page, run_id)  # the run goes on (paused while the page renders)
        assert at.get("progress"), "the live view shows a progress bar"
        metric = _metric(at, "Cost so far")
        assert metric.value == "Unknown"
        assert "results on an unpriced model" in metric.help
        assert "Cost so far: unknown (" in _captions(at)
    finally:
        with session_scope(studio_db) as session:
            request_cancel(session, run_id=run_id)
        await task


def _stored(engine, run_id: int) -> int:
    with read_session(engine) as session:
        return get_run(session, run_id=run_id).done_count
