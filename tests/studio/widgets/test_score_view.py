"""The drill-down into one score, from real evidence: a batch run and a direct scorer run
against the fake judge over real HTTP, and the stored failures of the seeded history."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorer_runtime.batch import outcome_of_error
from scorer_runtime.errors import ScorerRunError
from scorer_runtime.runs import run_batch
from scorer_runtime.saved_scorers import compile_version
from scorer_runtime.spec import compile_spec, load_spec
from scorer_runtime.store import (
    ExampleData,
    ScoreFilter,
    add_examples,
    create_dataset,
    get_version_by_id,
    list_scores,
    load_names,
    read_session,
    save_scorer_version,
    session_scope,
)
from studio.widgets.score_view import load_score, score_detail
from tests.studio.app_pages.results.test_results_seed import History, seed_history

ROOT = Path(__file__).resolve().parents[3]
TONE = json.loads((ROOT / "data" / "scorers" / "tone-politeness.json").read_text())
KEYWORDS = json.loads((ROOT / "data" / "scorers" / "keyword-coverage.json").read_text())
ANSWER = '{"verdict": "polite", "reason": "it thanks the customer"}'


@pytest.fixture
def judge_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


async def _batch_run(engine, fake_judge) -> int:
    """Score two examples with the demo tone scorer; the first judge call is rate-limited."""
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=load_spec(TONE))
        dataset = create_dataset(session, name="two")
        add_examples(
            session,
            dataset_id=dataset.id,
            examples=[ExampleData(input="Where is my parcel?", output="Thanks for asking!")],
        )
        scorer = compile_version(
            session, get_version_by_id(session, version_id=version.id), api_base=fake_judge.base_url
        )
        ids = (version.id, dataset.id)
    fake_judge.fault(status=429, times=1)
    fake_judge.reply(ANSWER)
    await run_batch(engine, scorer, scorer_version_id=ids[0], dataset_id=ids[1], concurrency=1)
    with read_session(engine) as session:
        return list_scores(session, filter=ScoreFilter(scorer_version_id=ids[0])).rows[0].id


async def test_a_stored_score_shows_prompts_raw_answer_and_retries(
    studio_db, fake_judge, judge_key
):
    score_id = await _batch_run(studio_db, fake_judge)
    with read_session(studio_db) as session:
        data = load_score(session, score_id=score_id, names=load_names(session))
    view = score_detail(data)
    sent = fake_judge.chat_requests[-1].json["messages"]
    assert view.outcome == "scored"
    assert view.score == 1.0
    assert view.problem is None
    assert view.reason == "polite: it thanks the customer"
    assert [s.step for s in view.steps] == ["analyze", "generate_score", "generate_reason"]
    analyze = view.steps[0]
    assert analyze.result == json.loads(ANSWER)
    assert analyze.judge is not None
    # The exact messages the provider received, and its answer byte for byte.
    assert [m["content"] for m in analyze.judge.messages] == [m["content"] for m in sent]
    assert analyze.judge.raw_output == ANSWER
    assert [(c.ok, c.status_code, c.error_kind) for c in analyze.judge.calls] == [
        (False, 429, "rate_limited"),
        (True, None, None),
    ]
    assert view.provider_calls == 2 == fake_judge.request_count
    assert view.example["input"] == "Where is my parcel?"
    assert ("Scorer", "Tone and politeness v1") in view.facts
    assert view.input_tokens > 0


async def test_a_fresh_result_reads_the_same_way(fake_judge, judge_key):
    spec = {**TONE, "judge": {**TONE["judge"], "api_base": fake_judge.base_url}}
    fake_judge.reply(ANSWER)
    result = await compile_spec(spec).run(input="Hi", output="Hello, glad to help!")
    view = score_detail(result.to_dict())
    assert (view.outcome, view.score, view.problem) == ("scored", 1.0, None)
    analyze = view.steps[0]
    assert analyze.judge is not None
    assert analyze.judge.raw_output == ANSWER
    assert analyze.prompt is not None
    assert "Answer: Hello, glad to help!" in analyze.prompt
    assert view.provider_calls == 1
    assert view.example == {"input": "Hi", "output": "Hello, glad to help!", "ground_truth": None}


async def test_a_failed_fresh_result_says_what_to_do(fake_judge, judge_key):
    spec = {**TONE, "judge": {**TONE["judge"], "api_base": fake_judge.base_url}}
    fake_judge.fault(status=401, times=None)
    with pytest.raises(ScorerRunError) as caught:
        await compile_spec(spec).run(input="Hi", output="Hello")
    error = caught.value
    data = {
        **error.result.to_dict(),
        "outcome": outcome_of_error(error),
        "error": str(error),
        "failed_step": error.failed_step,
    }
    view = score_detail(data)
    assert view.outcome == "provider_error"
    assert view.problem is not None
    assert view.problem.title == "The judge could not answer in the analysis step"
    assert "refused the API key" in view.problem.what_to_do
    assert "Traceback" not in view.problem.detail
    analyze = view.steps[0]
    assert analyze.failed
    assert analyze.judge is not None
    assert analyze.judge.calls[0].status_code == 401
    later = [s for s in view.steps if s.step != "analyze"]
    assert [(s.step, s.skipped) for s in later] == [("generate_score", True)]


async def test_not_scorable_names_the_step_and_is_not_an_error():
    result = await compile_spec(KEYWORDS).run(input="Hi", output="Hello", ground_truth=[])
    view = score_detail(result.to_dict())
    assert view.outcome == "not_scorable"
    assert view.problem is not None
    assert view.problem.title == "This example could not be scored"
    assert "the scoring step decided it cannot be scored" in view.problem.detail.lower()
    assert "lists no key facts" in view.problem.detail
    score_step = next(s for s in view.steps if s.step == "generate_score")
    assert score_step.not_scorable
    assert not any(s.failed for s in view.steps)


def test_stored_failures_explain_themselves(studio_db):
    history: History = seed_history(studio_db)
    with read_session(studio_db) as session:
        names = load_names(session)
        rows = list_scores(session, filter=ScoreFilter(run_id=history.run2), limit=200).rows
        by_outcome = {r.outcome: load_score(session, score_id=r.id, names=names) for r in rows}
    outage = score_detail(by_outcome["provider_error"])
    assert outage.problem is not None
    assert outage.problem.title == "The judge could not answer in the analysis step"
    assert "rate-limiting" in outage.problem.what_to_do
    assert outage.provider_calls == 4
    unreadable = score_detail(by_outcome["judge_format_error"])
    assert unreadable.problem is not None
    assert "Answer only with JSON" in unreadable.problem.what_to_do
    skipped = score_detail(by_outcome["not_scorable"])
    assert skipped.reason == "the example has no answer to grade"
    assert [s.step for s in skipped.steps if s.not_scorable] == ["preprocess"]
