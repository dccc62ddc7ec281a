"""The judge answer cache through real runs: a repeated run asks the judge nothing, an edited
request misses for exactly its steps, a corrupt stored answer is a miss, never an answer."""

from __future__ import annotations

import asyncio
import logging

import pytest
from sqlalchemy import text

from scorer_runtime import Judge, PromptStep, create_scorer
from scorer_runtime.runs import run_batch
from scorer_runtime.store import (
    ExampleData,
    ScoreFilter,
    cache_stats,
    get_run,
    get_score,
    list_scores,
    read_session,
    session_scope,
)
from tests.store.fixtures import make_dataset, make_version

PRICED = "openai/gpt-4o-mini"  # litellm prices it: a cached answer has a cost to save
SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["good", "bad"]}},
    "required": ["verdict"],
}
OUTPUTS = ["fine answer", "poor answer", "great answer", "weak answer"]


def _scorer(
    server,
    *,
    model=PRICED,
    instructions="You grade answers.",
    temperature=None,
    analyze_prompt="Grade this answer: {}",
    reason_prompt="Explain the verdict {} for: {}",
    schema=None,
    formula=lambda verdict: float(verdict == "good"),
):
    judge = Judge(
        model=model,
        api_base=server.base_url,
        api_key="sk-test",
        instructions=instructions,
        json_prompt_injection="system",
        temperature=temperature,
        timeout_s=5,
    )
    return (
        create_scorer(id="cached", description="d", judge=judge)
        .analyze(
            PromptStep(
                description="Judge it",
                create_prompt=lambda run: analyze_prompt.format(run.output),
                output_schema=schema or SCHEMA,
            )
        )
        .generate_score(lambda results: formula(results.analyze_step_result["verdict"]))
        .generate_reason(
            PromptStep(
                description="Say why",
                create_prompt=lambda run, results: reason_prompt.format(
                    results.analyze_step_result["verdict"], run.output
                ),
            )
        )
    )


def _script(server):
    server.reply({"verdict": "good"}, when="Grade this answer: fine")
    server.reply({"verdict": "good"}, when="Grade this answer: great")
    server.reply({"verdict": "bad"}, when="Grade this answer: ")
    server.reply("Because it says so.", usage=(20, 5))


@pytest.fixture
def setup(engine, fake_judge):
    _script(fake_judge)
    dataset_id = make_dataset(engine, "faq", [ExampleData(output=o) for o in OUTPUTS])
    _, version_id = make_version(engine, "cached")

    async def run(scorer, **options):
        before = len(fake_judge.chat_requests)
        summary = await run_batch(
            engine,
            scorer,
            scorer_version_id=version_id,
            dataset_id=dataset_id,
            concurrency=2,
            processes=1,
            **options,
        )
        with read_session(engine) as session:
            page = list_scores(session, filter=ScoreFilter(run_id=summary.run_id), limit=50)
            rows = [get_score(session, score_id=r.id) for r in page.rows]
            info = get_run(session, run_id=summary.run_id)
        asked = [r.last_user_content for r in fake_judge.chat_requests[before:]]
        return sorted(rows, key=lambda r: r.example_id), info, asked

    return run


def _steps_asked(asked):
    """How many requests each step sent: analyze prompts and reason prompts."""
    analyze = sum(1 for a in asked if "Grade this answer" in a)
    return analyze, len(asked) - analyze


async def test_a_repeated_run_asks_the_judge_nothing_and_gives_the_same_results(setup, fake_judge):
    first, first_run, asked = await setup(_scorer(fake_judge))
    assert _steps_asked(asked) == (4, 4)
    again, run, asked = await setup(_scorer(fake_judge))
    assert asked == []
    assert [(r.score, r.reason) for r in again] == [(r.score, r.reason) for r in first]
    assert [r.score for r in again] == [1.0, 0.0, 1.0, 0.0]
    assert {r.reason for r in again} == {"Because it says so."}
    evidence = again[0].judge["analyze"]
    assert evidence["cached"] is True
    assert evidence["model_call_count"] == 0
    assert evidence["calls"] == []
    assert evidence["cost"] == 0.0
    assert evidence["saved_cost"] == pytest.approx(first[0].judge["analyze"]["cost"])
    assert evidence["saved_cost"] > 0
    assert all(r.attempts == 0 and r.cost == 0.0 for r in again)
    assert (first_run.judge_answers, first_run.cached_answers) == (8, 0)
    assert (run.judge_answers, run.cached_answers) == (8, 8)
    assert run.saved_cost == pytest.approx(sum(r.cost for r in first))
    assert run.cost == 0.0


@pytest.mark.parametrize(
    ("edit", "analyze", "reason"),
    [
        ({"analyze_prompt": "Grade this answer: {}!"}, 4, 0),
        ({"reason_prompt": "Why {} for {}?"}, 0, 4),
        ({"model": "openai/gpt-4o"}, 4, 4),
        ({"instructions": "You grade answers strictly."}, 4, 4),
        ({"temperature": 0.2}, 4, 4),
        ({"schema": {**SCHEMA, "properties": {**SCHEMA["properties"], "note": {}}}}, 4, 0),
        ({"formula": lambda verdict: 0.5}, 0, 0),
    ],
    ids=[
        "analyze-prompt",
        "reason-prompt",
        "model",
        "instructions",
        "temperature",
        "schema",
        "formula",
    ],
)
async def test_an_edit_misses_the_cache_for_exactly_the_requests_it_changes(
    setup, fake_judge, edit, analyze, reason
):
    await setup(_scorer(fake_judge))
    _, _, asked = await setup(_scorer(fake_judge, **edit))
    assert _steps_asked(asked) == (analyze, reason)


async def test_a_formula_edit_reuses_every_answer_and_scores_with_the_new_formula(
    setup, fake_judge
):
    await setup(_scorer(fake_judge))
    rows, _, asked = await setup(_scorer(fake_judge, formula=lambda verdict: 0.25))
    assert asked == []
    assert [r.score for r in rows] == [0.25] * 4


async def test_a_run_without_the_cache_asks_the_judge_again(setup, fake_judge):
    await setup(_scorer(fake_judge))
    _, run, asked = await setup(_scorer(fake_judge), use_cache=False)
    assert _steps_asked(asked) == (4, 4)
    assert (run.use_cache, run.cached_answers) == (False, 0)


@pytest.mark.parametrize("stored", ['{"verdict": ', '{"verdict": "maybe"}', "[]"])
async def test_a_corrupt_stored_answer_is_a_miss_and_logged_never_an_answer(
    setup, fake_judge, engine, caplog, stored
):
    first, _, _ = await setup(_scorer(fake_judge))
    with session_scope(engine) as session:
        keys = [e["cache_key"] for e in (r.judge["analyze"] for r in first)]
        session.execute(
            text("UPDATE judge_answers SET answer = :a WHERE key = :k"), {"a": stored, "k": keys[1]}
        )
    with caplog.at_level(logging.WARNING):
        rows, _, asked = await setup(_scorer(fake_judge))
    assert asked == ["Grade this answer: poor answer"]
    assert [r.score for r in rows] == [1.0, 0.0, 1.0, 0.0]
    assert rows[1].judge["analyze"]["cached"] is False
    assert "could not be used" in caplog.text


async def test_two_runs_writing_the_same_answers_at_once_both_finish_and_keep_one_each(
    setup, fake_judge, engine
):
    fake_judge.reset()
    _script_slow(fake_judge)
    (a, run_a, _), (b, run_b, _) = await asyncio.gather(
        setup(_scorer(fake_judge)), setup(_scorer(fake_judge))
    )
    assert run_a.status == run_b.status == "done"
    assert [r.score for r in a] == [r.score for r in b] == [1.0, 0.0, 1.0, 0.0]
    with read_session(engine) as session:
        assert cache_stats(session).answers == 8  # one per distinct request, none lost


def _script_slow(server):
    """Answers that take a moment, so both runs ask before either has stored anything."""
    server.reply({"verdict": "good"}, when="Grade this answer: fine", latency_s=0.05)
    server.reply({"verdict": "good"}, when="Grade this answer: great", latency_s=0.05)
    server.reply({"verdict": "bad"}, when="Grade this answer: ", latency_s=0.05)
    server.reply("Because it says so.", usage=(20, 5), latency_s=0.05)


async def test_a_scorer_set_not_to_cache_asks_the_judge_every_time(setup, fake_judge, monkeypatch):
    from scorer_runtime.spec import compile_spec

    monkeypatch.setenv("CACHE_TEST_KEY", "sk-test")
    spec = {
        "id": "no-cache",
        "description": "d",
        "cache_answers": False,
        "judge": {
            "model": PRICED,
            "instructions": "You grade answers.",
            "api_base": fake_judge.base_url,
            "api_key_env": "CACHE_TEST_KEY",
            "json_prompt_injection": "system",
        },
        "steps": [
            {
                "step": "analyze",
                "description": "Judge it",
                "template": "Grade this answer: {{ output }}",
                "output_schema": SCHEMA,
            },
            {"step": "generate_score", "formula": "1"},
        ],
    }
    for _ in range(2):
        _, run, asked = await setup(compile_spec(spec))
        assert len(asked) == 4
        assert run.cached_answers == 0
    spec["cache_answers"] = True
    await setup(compile_spec(spec))
    _, run, asked = await setup(compile_spec(spec))
    assert (len(asked), run.cached_answers) == (0, 4)
