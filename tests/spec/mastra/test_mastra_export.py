"""Exported Mastra scorers run in Node against the fake judge and agree with the Python runtime."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scorer_runtime.spec import compile_spec, load_spec
from scorer_runtime.spec.mastra import MastraExportError, export_mastra
from tests.fakes.openai_server import FakeOpenAIServer
from tests.spec.conftest import DEMO_REPLIES, demo_examples, with_api_base

SCORERS = Path(__file__).resolve().parents[3] / "data" / "scorers"
EXPORTED = [
    "answer-relevancy",
    "conciseness",
    "faithfulness",
    "hallucination",
    "json-format",
    "keyword-coverage",
    "rubric-judge",
    "support-style",
    "tone-politeness",
    "tool-health",
    "tool-call-accuracy",
]


def _script(server: FakeOpenAIServer, spec_id: str) -> None:
    server.reset()
    for when, content in DEMO_REPLIES.get(spec_id, []):
        server.reply(content, when=when)


def _sent(server: FakeOpenAIServer) -> list[tuple[str, str]]:
    """(system, user) text of every chat request, in order."""
    sent = []
    for request in server.chat_requests:
        messages = request.json["messages"]
        system = "\n".join(m["content"] for m in messages if m["role"] == "system")
        sent.append((system, request.last_user_content))
    return sent


def _python(spec: Any, examples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    scorer = compile_spec(spec)
    out = []
    for example in examples:
        result = scorer.run_sync(**example)
        reason = result.not_scorable.reason if result.not_scorable else None
        out.append({"score": result.score, "reason": result.reason, "notScorable": reason})
    return out


def _examples(spec_id: str) -> list[dict[str, Any]]:
    """Six examples for a scorer that asks the judge, the whole dataset for one that does not."""
    return demo_examples(spec_id, 6 if spec_id in DEMO_REPLIES else 1000)


@pytest.mark.parametrize("spec_id", EXPORTED)
def test_the_mastra_module_scores_like_the_python_runtime(
    spec_id: str, mastra_node: Any, fake_judge: FakeOpenAIServer, judge_key: str
) -> None:
    spec = with_api_base(load_spec(SCORERS / f"{spec_id}.json"), fake_judge.base_url)
    examples = _examples(spec_id)
    _script(fake_judge, spec_id)
    expected = _python(spec, examples)
    python_sent = _sent(fake_judge)
    _script(fake_judge, spec_id)
    exported = export_mastra(spec)
    got = mastra_node.score(exported.text, spec_id, examples)
    assert [g.get("error") for g in got] == [None] * len(examples), got
    for mine, theirs in zip(got, expected, strict=True):
        if theirs["score"] is None:
            assert mine["score"] is None
        else:
            assert mine["score"] == pytest.approx(theirs["score"], abs=1e-9)
        assert mine["reason"] == theirs["reason"]
        assert mine["notScorable"] == theirs["notScorable"]
    mastra_sent = _sent(fake_judge)
    assert [user for _, user in mastra_sent] == [user for _, user in python_sent]
    if spec.judge is None or spec.judge.json_prompt_injection in (None, False):
        assert [system for system, _ in mastra_sent] == [system for system, _ in python_sent]


def test_a_rate_limit_and_a_server_error_cost_the_same_calls(
    mastra_node: Any, fake_judge: FakeOpenAIServer, judge_key: str
) -> None:
    spec = with_api_base(load_spec(SCORERS / "tone-politeness.json"), fake_judge.base_url)
    examples = _examples("tone-politeness")[:1]
    counts = []
    for run in ("python", "mastra"):
        _script(fake_judge, "tone-politeness")
        fake_judge.fault(status=429, headers={"Retry-After": "1"}, when="Label the tone")
        fake_judge.fault(status=500, when="Label the tone")
        if run == "python":
            scores = [r["score"] for r in _python(spec, examples)]
        else:
            got = mastra_node.score(export_mastra(spec).text, "retries", examples)
            scores = [r.get("score") for r in got]
        assert scores == [0.5]
        counts.append(fake_judge.request_count)
    assert counts == [3, 3]


UNTRANSLATED = {
    "id": "untranslated",
    "description": "Parts with no Mastra form yet.",
    "type": "agent",
    "steps": [
        {"step": "preprocess", "use": "text_similarity", "with": {}},
        {"step": "generate_score", "formula": "results.preprocess_step_result"},
        {"step": "generate_reason", "formula": "output[0].role.title()"},
    ],
}


def test_a_scorer_with_no_mastra_form_is_refused_naming_each_part() -> None:
    with pytest.raises(MastraExportError) as refused:
        export_mastra(load_spec(UNTRANSLATED))
    problems = refused.value.problems
    assert len(problems) == 2
    text = " ".join(problems)
    for part in ("'text_similarity'", "output[0].role.title()"):
        assert part in text


def test_what_differs_is_listed_before_writing() -> None:
    exported = export_mastra(load_spec(SCORERS / "tone-politeness.json"), version=3)
    differences = " ".join(exported.differences)
    assert "30-second limit" in differences
    assert "redactText(" in exported.text  # masking and the blocked answers are carried
    assert "as an ai language model" in exported.text
    assert "version 3" in exported.text
    assert "npm i @mastra/core@1.71 zod@4" in exported.text
    assert "OPENAI_API_KEY" in exported.text
    assert export_mastra(load_spec(SCORERS / "keyword-coverage.json")).differences == []
    tools = export_mastra(load_spec(SCORERS / "tool-call-accuracy.json"))
    assert not any("89.0" in difference for difference in tools.differences)
    assert "export function readJson(" in tools.text
    assert "parse it with readJson" in tools.text
    assert "prepareRun" in tools.text


FORMULAS = {
    "id": "formula-edges",
    "description": "Formulas on edge cases: division by zero, missing fields, text of values.",
    "steps": [
        {
            "step": "preprocess",
            "formula": "[w for w in ground_truth if contains(output, w, ignore_case=True)]",
        },
        {"step": "analyze", "formula": "input.lang if input else 'none'"},
        {
            "step": "generate_score",
            "formula": "round(len(results.preprocess_step_result) / len(ground_truth), 3)",
        },
        {
            "step": "generate_reason",
            "formula": "str(results.preprocess_step_result) + ' ' + str(round(score * 100)) + "
            "'% ' + str(mean([score, 1, 0.5])) + ' ' + str(score > 0.5 or 'low') + ' ' + "
            "str({'a': [1, 2.5, True, None]}) + str(len(output) > 3 and 'long') + str(0 and 1)",
        },
    ],
}


def test_formula_edge_cases_agree_errors_included(mastra_node: Any) -> None:
    spec = load_spec(FORMULAS)
    examples = [
        {"output": "Refund in 5 days, by e-mail.", "ground_truth": ["refund", "e-mail", "ID"]},
        {"output": "Nothing.", "ground_truth": []},  # division by zero
        {"input": {"lang": "en"}, "output": "Ünïcode REFUND", "ground_truth": ["refund"]},
        {"output": "x", "ground_truth": None},  # a list is needed
        {"input": {"x": 1}, "output": "refund", "ground_truth": ["refund"]},  # no field lang
    ]
    scorer = compile_spec(spec)
    expected = []
    for example in examples:
        try:
            result = scorer.run_sync(**example)
        except Exception:
            expected.append("error")
        else:
            expected.append((result.score, result.reason))
    got = mastra_node.score(export_mastra(spec).text, "formula-edges", examples)
    mine = ["error" if "error" in g else (g["score"], g["reason"]) for g in got]
    assert [e == "error" for e in expected] == [False, True, False, True, True]
    assert mine == expected


CHECKS = {
    "id": "check-edges",
    "description": "Text and JSON checks on awkward text.",
    "steps": [
        {
            "step": "preprocess",
            "use": "contains",
            "with": {"values": ["café", "a.b", "(x)"], "whole_words": True, "mode": "any"},
        },
        {"step": "analyze", "use": "json_valid", "with": {"expect": "array"}},
        {
            "step": "generate_score",
            "use": "length_bounds",
            "with": {"min": 5, "max": 12, "unit": "characters", "scoring": "soft"},
        },
        {
            "step": "generate_reason",
            "formula": "str(results.preprocess_step_result) + ' ' + "
            "str(results.analyze_step_result)",
        },
    ],
}


def test_text_and_json_checks_agree_on_awkward_text(mastra_node: Any) -> None:
    spec = load_spec(CHECKS)
    outputs = [
        "CAFÉ au lait",
        "cafés",
        "see a.b!",
        "ab",
        "```json\n[1, 2]\n```",
        "[1, 2",
        '{"a": 1}',
        "(x) ünïcödé text that is long",
        "x\u2003y\u3000z",
    ]
    examples = [{"output": output} for output in outputs]
    scorer = compile_spec(spec)
    expected = []
    for example in examples:
        result = scorer.run_sync(**example)
        expected.append((result.score, result.reason))
    got = mastra_node.score(export_mastra(spec).text, "check-edges", examples)
    assert [g["reason"] for g in got] == [reason for _, reason in expected]
    assert [g["score"] for g in got] == pytest.approx([score for score, _ in expected], abs=1e-9)
    assert {reason for _, reason in expected} >= {"1.0 0.0", "0.0 1.0"}


AGENT = {
    "id": "agent-edges",
    "description": "Tool-call checks on odd agent outputs.",
    "type": "agent",
    "steps": [
        {"step": "preprocess", "use": "tool_order", "with": {"mode": "strict"}},
        {"step": "analyze", "use": "no_tool_errors", "with": {}},
        {
            "step": "generate_score",
            "use": "weighted_average",
            "with": {
                "weights": {"results.preprocess_step_result": 1, "results.analyze_step_result": 3}
            },
        },
        {
            "step": "generate_reason",
            "formula": "str(results.preprocess_step_result) + ' ' + "
            "str(results.analyze_step_result)",
        },
    ],
}


def _call(name: str, result: Any, state: str = "result", call_id: str = "") -> dict[str, Any]:
    invocation = {"state": state, "toolCallId": call_id or name, "toolName": name, "args": {}}
    return invocation if state == "partial-call" else {**invocation, "result": result}


def _answer(*calls: dict[str, Any], legacy: list[dict[str, Any]] | None = None) -> Any:
    parts = [{"type": "tool-invocation", "toolInvocation": call} for call in calls]
    content: dict[str, Any] = {"format": 2, "parts": [*parts, {"type": "text", "text": "Done."}]}
    if legacy is not None:
        content["toolInvocations"] = legacy
    return [{"id": "m1", "role": "assistant", "content": content}]


def test_tool_call_checks_agree_on_odd_agent_outputs(mastra_node: Any) -> None:
    spec = load_spec(AGENT)
    lookup, refund = _call("lookup", {"ok": True}), _call("refund", "Error: declined")
    examples = [
        {"output": _answer(lookup, refund), "ground_truth": ["lookup", "refund"]},
        {"output": _answer(refund, lookup), "ground_truth": ["lookup", "refund"]},
        {"output": _answer(lookup, legacy=[lookup, refund]), "ground_truth": ["lookup", "refund"]},
        {"output": _answer(lookup, _call("x", None, "partial-call")), "ground_truth": ["lookup"]},
        {"output": _answer(_call("a", {"error": ""}), _call("b", {"isError": 1}))},
        {"output": _answer(), "ground_truth": []},
    ]
    scorer = compile_spec(spec)
    examples = [{"input": "Help me with my order.", **example} for example in examples]
    expected = []
    for example in examples:
        result = scorer.run_sync(**example)
        reason = result.not_scorable.reason if result.not_scorable else None
        expected.append((result.score, result.reason, reason))
    got = mastra_node.score(export_mastra(spec).text, "agent-edges", examples)
    assert [(g["score"], g["reason"], g["notScorable"]) for g in got] == expected
    assert expected[4][2] is not None  # no ground truth: not scorable
