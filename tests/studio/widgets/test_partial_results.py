"""A judge step that fails after others completed keeps their results: the score computed
before the reason step failed is stored in the evidence (not counted) and the drill-down shows
it. Through the fake judge server over real HTTP, on a real SQLite file."""

from __future__ import annotations

from typing import Any

import pytest

from scorer_runtime.runs import run_batch
from scorer_runtime.saved_scorers import compile_version
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ExampleData,
    ScoreFilter,
    add_examples,
    create_dataset,
    get_score,
    get_version_by_id,
    list_scores,
    load_names,
    read_session,
    save_scorer_version,
    session_scope,
)
from studio.widgets.score_view import load_score, score_detail

KEY_ENV = "PARTIAL_TEST_JUDGE_KEY"


def _spec(base_url: str) -> dict[str, Any]:
    """Preprocess by formula, score by asking the judge, explain by asking it again."""
    return {
        "id": "graded",
        "description": "The judge grades the answer, then explains the grade.",
        "judge": {
            "model": "openai/fake-judge",
            "api_base": base_url,
            "api_key_env": KEY_ENV,
            "instructions": "You grade answers.",
            "json_prompt_injection": "system",
            "retry": {"max_retries": 0},
        },
        "steps": [
            {"step": "preprocess", "formula": "len(output)"},
            {
                "step": "generate_score",
                "description": "Grade it",
                "template": "GRADE: {{ output }}",
                "output_schema": {
                    "type": "object",
                    "properties": {"score": {"type": "number"}},
                    "required": ["score"],
                },
                "calculate_score": {"field": "score"},
            },
            {
                "step": "generate_reason",
                "description": "Explain",
                "template": "EXPLAIN the grade {{ score }} of: {{ output }}",
            },
        ],
    }


@pytest.fixture
def engine(tmp_path):
    from scorer_runtime.store import ensure_schema, make_engine

    made = make_engine(f"sqlite:///{tmp_path / 'partial.db'}")
    ensure_schema(made)
    yield made
    made.dispose()


async def _run(engine, fake_judge, monkeypatch) -> tuple[Any, list[Any]]:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=load_spec(_spec(fake_judge.base_url)))
        dataset = create_dataset(session, name="two")
        add_examples(
            session,
            dataset_id=dataset.id,
            examples=[ExampleData(output="first answer"), ExampleData(output="second answer")],
        )
        scorer = compile_version(session, get_version_by_id(session, version_id=version.id))
        ids = (version.id, dataset.id)
    fake_judge.reply({"score": 0.92}, when="GRADE: first")
    fake_judge.reply({"score": 0.4}, when="GRADE: second")
    # The reason step fails for the first example only (refused at once: not retried).
    fake_judge.fault(status=400, when="EXPLAIN the grade 0.92", times=None)
    fake_judge.reply("Clear enough.", when="EXPLAIN")
    summary = await run_batch(
        engine, scorer, scorer_version_id=ids[0], dataset_id=ids[1], concurrency=1
    )
    with read_session(engine) as session:
        listed = list_scores(session, filter=ScoreFilter(run_id=summary.run_id)).rows
        rows = [get_score(session, score_id=row.id) for row in listed]
    return summary, rows


async def test_the_score_before_a_failed_reason_is_kept_and_not_counted(
    engine, fake_judge, monkeypatch
):
    summary, rows = await _run(engine, fake_judge, monkeypatch)
    by_output = {r.step_results.get("preprocess_step_result"): r for r in rows}
    failed, scored = by_output[len("first answer")], by_output[len("second answer")]
    assert failed.outcome == "provider_error"
    assert failed.failed_step == "generate_reason"
    assert failed.score is None  # not counted
    assert failed.step_results == {
        "preprocess_step_result": 12,
        "analyze_step_result": None,
        "generate_score_step_result": 0.92,
    }
    assert set(failed.judge) == {"generate_score", "generate_reason"}
    assert failed.judge["generate_score"]["status"] == "success"
    assert failed.judge["generate_reason"]["status"] == "failed"
    assert set(failed.prompts) == {"generate_score", "generate_reason"}
    # The counted numbers hold only the example that was scored.
    assert (scored.outcome, scored.score) == ("scored", 0.4)
    assert "generate_score_step_result" not in scored.step_results
    assert summary.scored == 1
    assert summary.mean == pytest.approx(0.4)
    assert summary.outcome_counts == {"scored": 1, "provider_error": 1}


async def test_the_drill_down_shows_the_steps_that_completed(engine, fake_judge, monkeypatch):
    _, rows = await _run(engine, fake_judge, monkeypatch)
    failed = next(r for r in rows if r.outcome != "scored")
    with read_session(engine) as session:
        view = score_detail(load_score(session, score_id=failed.id, names=load_names(session)))
    assert view.score is None
    assert view.partial_score == pytest.approx(0.92)
    assert view.problem is not None
    steps = {s.step: s for s in view.steps}
    assert list(steps) == ["preprocess", "generate_score", "generate_reason"]
    assert (steps["preprocess"].result, steps["preprocess"].failed) == (12, False)
    grade = steps["generate_score"]
    assert (grade.result, grade.partial, grade.failed) == (0.92, True, False)
    assert grade.judge is not None
    assert grade.judge.parsed_output == {"score": 0.92}
    reason = steps["generate_reason"]
    assert reason.failed
    assert not reason.partial
    assert reason.judge is not None
    assert reason.judge.calls[0].status_code == 400
    scored = next(r for r in rows if r.outcome == "scored")
    with read_session(engine) as session:
        ok = score_detail(load_score(session, score_id=scored.id, names=load_names(session)))
    assert (ok.score, ok.partial_score) == (pytest.approx(0.4), None)
    assert not any(s.partial for s in ok.steps)
