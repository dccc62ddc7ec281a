"""The demo datasets: every row parses, has the documented shape, and works with the helpers."""

from __future__ import annotations

import json
from pathlib import Path
from statistics import mean

import pytest

from scorer_runtime import create_scorer
from scorer_runtime.agent import (
    extract_tool_calls,
    get_combined_system_prompt,
    get_last_assistant_message,
    get_user_message_from_run_input,
    to_agent_input,
    to_agent_output,
)
from scorer_runtime.spec.builtins import (
    excludes,
    keyword_coverage,
    no_tool_errors,
    text_similarity,
    tool_order,
)

DATASETS = Path(__file__).parents[2] / "data" / "datasets"
NAMES = ("customer_support", "rag_answers", "agent_tool_runs")
ROW_KEYS = {"input", "output", "ground_truth", "request_context", "tags"}


def load(name: str) -> list[dict]:
    rows = []
    path = DATASETS / f"{name}.jsonl"
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        assert line.strip(), f"{path.name} line {number} is blank"
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as error:
            pytest.fail(f"{path.name} line {number}: {error}")
    return rows


def _tags(rows):
    return {tag for row in rows for tag in row["tags"]}


@pytest.mark.parametrize("name", NAMES)
def test_every_row_parses_with_the_documented_keys(name):
    rows = load(name)
    assert len(rows) >= 20
    for number, row in enumerate(rows, start=1):
        where = f"{name} line {number}"
        assert {"input", "output", "ground_truth"} <= set(row), where
        assert set(row) <= ROW_KEYS, where
        assert isinstance(row.get("request_context", {}), dict), where
        assert row["tags"], where
        assert all(isinstance(t, str) for t in row["tags"]), where


def test_customer_support_rows():
    rows = load("customer_support")
    assert {"good", "rude", "wrong", "incomplete"} <= _tags(rows)
    for row in rows:
        assert isinstance(row["input"], str)
        assert row["input"].endswith(("?", "!", "."))
        assert isinstance(row["output"], str)
        facts = row["ground_truth"]
        assert facts
        assert all(isinstance(f, str) and f for f in facts)


def test_customer_support_rude_answers_are_caught_by_a_word_check():
    scorer = create_scorer(id="polite", description="no rude phrases").generate_score(
        excludes(values=["calm down", "obviously", "whatever", "read the FAQ", "not our fault"])
    )
    rows = load("customer_support")
    scores = {
        tag: [scorer.run_sync(**_run(r)).score for r in rows if tag in r["tags"]]
        for tag in ("good", "rude")
    }
    assert all(s == 1.0 for s in scores["good"])
    assert all(s == 0.0 for s in scores["rude"])


def test_rag_rows_carry_context_passages():
    rows = load("rag_answers")
    assert {"faithful", "unfaithful", "hallucinated"} <= _tags(rows)
    for row in rows:
        passages = row["request_context"]["context"]
        assert passages
        assert all(isinstance(p, str) and len(p) > 20 for p in passages)
        assert isinstance(row["ground_truth"], str)
        assert row["ground_truth"]


def test_rag_faithful_answers_are_closer_to_the_reference():
    scorer = create_scorer(id="sim", description="similarity").generate_score(
        text_similarity(method="token_set_ratio")
    )
    rows = [r for r in load("rag_answers") if r["output"]]
    faithful = [scorer.run_sync(**_run(r)).score for r in rows if "faithful" in r["tags"]]
    wrong = [
        scorer.run_sync(**_run(r)).score
        for r in rows
        if {"unfaithful", "hallucinated"} & set(r["tags"])
    ]
    assert mean(faithful) > mean(wrong) + 0.1


def test_agent_rows_are_mastra_shaped_and_readable_by_the_agent_helpers():
    rows = load("agent_tool_runs")
    assert {"correct", "wrong_tool", "extra_calls", "tool_error"} <= _tags(rows)
    for number, row in enumerate(rows, start=1):
        where = f"agent_tool_runs line {number}"
        assert {"inputMessages", "systemMessages"} <= set(row["input"]), where
        to_agent_input(row["input"])
        assert get_user_message_from_run_input(row["input"]), where
        assert "ShopBot" in get_combined_system_prompt(row["input"]), where
        messages = to_agent_output(row["output"])
        assert messages, where
        assert all(m.role == "assistant" for m in messages), where
        assert get_last_assistant_message(row["output"]), where
        ids = [i.tool_call_id for i in extract_tool_calls(row["output"]).tool_call_infos]
        assert len(ids) == len(set(ids)), where
        expected = row["ground_truth"]
        assert isinstance(expected, list), where
        assert all(isinstance(t, str) for t in expected), where


def test_agent_row_tags_agree_with_what_the_checks_find():
    order = tool_order(mode="strict")
    errors = no_tool_errors()
    for row in load("agent_tool_runs"):
        run = _run(row)
        called = extract_tool_calls(row["output"]).tools
        tags = set(row["tags"])
        order_ok = _score(order, run) == 1.0
        errors_ok = _score(errors, run) == 1.0
        if "correct" in tags:
            assert order_ok, row["tags"]
            assert errors_ok, row["tags"]
        if tags & {"wrong_tool", "wrong_order", "extra_calls", "no_tool"}:
            assert not order_ok, row["tags"]
        if "tool_error" in tags:
            assert not errors_ok, row["tags"]
        if "extra_calls" in tags:
            assert len(called) > len(row["ground_truth"]), row["tags"]


def test_customer_support_key_facts_work_as_keywords():
    row = next(r for r in load("customer_support") if "good" in r["tags"])
    step = keyword_coverage(keywords=row["ground_truth"])
    scorer = create_scorer(id="facts", description="key facts").generate_score(step)
    assert scorer.run_sync(**_run(row)).score >= 0.6


def _score(step, run):
    return (
        create_scorer(id="c", description="d", type="agent")
        .generate_score(step)
        .run_sync(**run)
        .score
    )


def _run(row):
    return {
        "input": row["input"],
        "output": row["output"],
        "ground_truth": row["ground_truth"],
        "request_context": row.get("request_context"),
    }
