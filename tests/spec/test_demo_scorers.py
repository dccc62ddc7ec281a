"""The demo scorers in data/scorers: they load, compile and score their datasets' first rows."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from scorer_runtime.spec import JudgeSpec, PromptStepSpec, compile_spec, export_json, load_spec

from .conftest import DEMO_DATASETS, demo_examples, demo_spec_paths

PATHS = demo_spec_paths()
REQUIRED = {
    "answer-relevancy",
    "faithfulness",
    "hallucination",
    "tone-politeness",
    "keyword-coverage",
    "json-format",
    "tool-call-accuracy",
    "rubric-judge",
}


def test_the_demo_set_is_complete_and_canonical(registry):
    ids = set()
    for path in PATHS:
        spec = load_spec(path, registry=registry)
        ids.add(spec.id)
        assert path.name == f"{spec.id}.json"
        # Files are written exactly as the studio writes them (defaults left out).
        assert path.read_text(encoding="utf-8") == export_json(spec), path.name
        judges = [spec.judge] + [s.judge for s in spec.steps if isinstance(s, PromptStepSpec)]
        for judge in judges:
            if isinstance(judge, JudgeSpec) and judge.model:
                assert judge.model == "openai/gpt-4o-mini"
                assert judge.api_key_env == "OPENAI_API_KEY"
        asks_judge = any(isinstance(s, PromptStepSpec) for s in spec.steps)
        assert asks_judge == (spec.judge is not None), spec.id
    assert len(ids) >= 8
    assert ids >= REQUIRED
    assert set(DEMO_DATASETS) == ids
    agent = load_spec(PATHS[[p.stem for p in PATHS].index("tool-call-accuracy")])
    assert agent.type == "agent"


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_a_demo_scorer_scores_its_dataset(path, demo_judge, fake_judge, registry):
    spec = demo_judge(load_spec(path, registry=registry))
    scorer = compile_spec(spec, registry)
    examples = demo_examples(spec.id)
    for example in examples:
        result = scorer.run_sync(**example)
        assert result.not_scorable is None, (spec.id, result.not_scorable)
        assert result.score is not None
        assert math.isfinite(result.score)
        assert isinstance(result.reason, str)
        assert result.reason
    prompts = sum(isinstance(s, PromptStepSpec) for s in spec.steps)
    assert fake_judge.request_count == prompts * len(examples)


EXPECTED_FIRST = {
    "answer-relevancy": (0.65, "One statement helps; one is filler."),
    "conciseness": (0.8, "Concise apart from the greeting."),
    "faithfulness": (0.5, "The documents do not say the battery is waterproof."),
    "hallucination": (0.5, 'Not backed by the documents: ["Rated IP67"]'),
    "json-format": (1.0, "Valid triage JSON."),
    "keyword-coverage": (1.0, "Mentions every key fact."),
    "rubric-judge": (0.5, "Partly resolves the question."),
    "support-style": (1.0, "Meets the style guide."),
    "tone-politeness": (0.5, "neutral: Correct but curt."),
    "tool-call-accuracy": (1.0, "It looked the order up before answering."),
    "tool-health": (1.0, "No tool call failed."),
}


@pytest.mark.parametrize("spec_id", sorted(EXPECTED_FIRST))
def test_first_row_scores_follow_from_the_judge_answers(spec_id, demo_judge, registry):
    spec = demo_judge(load_spec(Path(f"data/scorers/{spec_id}.json"), registry=registry))
    result = compile_spec(spec, registry).run_sync(**demo_examples(spec_id, 1)[0])
    score, reason = EXPECTED_FIRST[spec_id]
    assert result.score == pytest.approx(score)
    assert result.reason == reason


def test_json_format_tells_the_failures_apart(registry):
    scorer = compile_spec(
        load_spec(Path("data/scorers/json-format.json"), registry=registry), registry
    )
    results = [scorer.run_sync(**example) for example in demo_examples("json-format", 4)]
    assert [r.score for r in results] == [1.0, 1.0, 0.0, 0.0]
    assert results[2].reason.startswith("Valid JSON, but not the triage format")
    assert results[3].reason == "Not a JSON object."


def test_keyword_coverage_and_tool_calls_on_imperfect_rows(registry):
    from .conftest import dataset_rows

    keywords = compile_spec(load_spec(Path("data/scorers/keyword-coverage.json")), registry)
    rows = dataset_rows("customer_support", 30)
    incomplete = [keywords.run_sync(**r) for r in rows if "incomplete" in r["tags"]]
    assert incomplete
    assert all(r.score < 1 for r in incomplete)
    assert all(r.reason.startswith("Missing ") for r in incomplete)
    spec = load_spec(Path("data/scorers/tool-call-accuracy.json"))
    no_reason = spec.model_copy(update={"steps": spec.steps[:3], "judge": None})
    tools = compile_spec(no_reason, registry)
    scores = {}
    for row in dataset_rows("agent_tool_runs", 30):
        scores.setdefault(row["tags"][0], []).append(tools.run_sync(**row).score)
    assert set(scores["correct"]) == {1.0}
    assert max(scores["wrong_order"]) < 1
    assert max(scores["tool_error"]) < 1
