"""Agent messages read as text in the Mastra module exactly as in the Python runtime: the
demo text check on the demo agent runs, every demo scorer on every demo dataset, and the odd
shapes of messages (legacy text, content lists, no assistant message, run inputs)."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import pytest

from scorer_runtime.spec import compile_spec, load_spec
from scorer_runtime.spec.mastra import export_mastra
from tests.fakes.openai_server import FakeOpenAIServer
from tests.spec.conftest import DEMO_REPLIES, TRIAGE_EXAMPLES, dataset_rows, with_api_base

SCORERS = Path(__file__).resolve().parents[3] / "data" / "scorers"
DATASETS = ("agent_tool_runs", "customer_support", "rag_answers")


def _python(spec: Any, examples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each example's score, reason and not-scorable reason, or {"error": ...} as in Node."""
    scorer = compile_spec(spec)
    out: list[dict[str, Any]] = []
    for example in examples:
        try:
            result = scorer.run_sync(**example)
        except Exception as error:  # a failed run: Node reports it as an error too
            out.append({"error": str(error)})
            continue
        reason = result.not_scorable.reason if result.not_scorable else None
        out.append({"score": result.score, "reason": result.reason, "notScorable": reason})
    return out


def _same(mine: dict[str, Any], theirs: dict[str, Any]) -> bool:
    if "error" in mine or "error" in theirs:
        return "error" in mine and "error" in theirs
    if (mine["score"] is None) != (theirs["score"] is None):
        return False
    close = mine["score"] is None or abs(mine["score"] - theirs["score"]) <= 1e-9
    return close and (mine["reason"], mine["notScorable"]) == (
        theirs["reason"],
        theirs["notScorable"],
    )


def test_support_style_scores_the_demo_agent_runs_as_in_python(mastra_node: Any) -> None:
    spec = load_spec(SCORERS / "support-style.json")
    examples = dataset_rows("agent_tool_runs", 1000)
    expected = _python(spec, examples)
    got = mastra_node.score(export_mastra(spec).text, "support-style-agent", examples)
    assert len(got) == len(examples) == 23
    assert [g.get("error") for g in got] == [None] * 23, got
    assert all(_same(g, e) for g, e in zip(got, expected, strict=True)), (got, expected)
    mean = statistics.mean(g["score"] for g in got)
    assert mean == pytest.approx(statistics.mean(e["score"] for e in expected), abs=1e-12)
    # The agent's words were read: answers differ in length, so the scores do too.
    assert len({g["score"] for g in got}) > 3
    assert export_mastra(spec).differences == []


def _script(server: FakeOpenAIServer) -> None:
    server.reset()
    for replies in DEMO_REPLIES.values():
        for when, content in replies:
            server.reply(content, when=when)


def _user_prompts(server: FakeOpenAIServer) -> list[str]:
    return [request.last_user_content for request in server.chat_requests]


def test_every_demo_scorer_agrees_on_every_demo_dataset(
    mastra_node: Any, fake_judge: FakeOpenAIServer, judge_key: str
) -> None:
    """Each demo scorer on each demo dataset (and the triage outputs): the same scores,
    reasons, refusals and failures in Node, and the judge asked the same questions."""
    runs: list[tuple[Any, str, list[dict[str, Any]]]] = []
    for path in sorted(SCORERS.glob("*.json")):
        spec = with_api_base(load_spec(path), fake_judge.base_url)
        count = 4 if spec.id in DEMO_REPLIES else 1000
        for name in (*DATASETS, "triage"):
            rows = TRIAGE_EXAMPLES if name == "triage" else dataset_rows(name, count)
            runs.append((spec, f"{spec.id}--{name}", rows[:count]))
    _script(fake_judge)
    expected = [_python(spec, rows) for spec, _, rows in runs]
    python_asked = _user_prompts(fake_judge)
    _script(fake_judge)
    modules = [(export_mastra(spec).text, name, rows) for spec, name, rows in runs]
    got = mastra_node.score_many(modules)
    differ = [
        (name, index, mine, theirs)
        for (_, name, _), mine_all, theirs_all in zip(runs, got, expected, strict=True)
        for index, (mine, theirs) in enumerate(zip(mine_all, theirs_all, strict=True))
        if not _same(mine, theirs)
    ]
    assert differ == []
    assert _user_prompts(fake_judge) == python_asked
    scored = sum("error" not in result for results in expected for result in results)
    assert scored > 200  # most pairs score: the comparison is not of failures alone


def _assistant(*parts: Any, legacy: str | None = None, role: str = "assistant") -> Any:
    content: dict[str, Any] = {"format": 2, "parts": list(parts)}
    if legacy is not None:
        content["content"] = legacy
    return {"role": role, "content": content}


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


SHAPES: list[Any] = [
    [_assistant(_text("Hello there, friend."), _text("Second part."))],
    [_assistant({"type": "step-start"}, legacy="Only the legacy text here.")],
    [_assistant({"type": "step-start"})],  # an assistant message with no text
    [{"role": "user", "content": "Why?"}, {"role": "assistant", "content": "Because obviously."}],
    [{"role": "user", "content": "Only a question, no answer yet."}],  # no assistant
    [{"role": "assistant", "content": [_text("A list"), _text("of parts.")]}],
    [_assistant(_text("One.")), _assistant(_text("")), _assistant(_text("Two, calm down."))],
    {"role": "assistant", "content": "A single message, not a list."},
    {"inputMessages": ["First the user asks this.", "Then that."], "systemMessages": "Be kind."},
    {"input_messages": [{"role": "system", "content": "x"}, {"role": "user", "content": "Hi"}]},
    {"systemMessages": ["No user message at all."]},
    [{"role": "robot", "content": "Beep."}],  # no such role: both refuse
    [{"role": "assistant"}],  # no content: both refuse
    {"role": "assistant"},  # a dict, not a message: read as JSON
    [{"a": 1}, {"role": "user", "content": "x"}],  # not all messages: read as JSON
    [],
    True,
    2.5,
    None,
]


SHAPES_SPEC = {
    "id": "message-shapes",
    "description": "Every text check reads the answer as text.",
    "steps": [
        {"step": "preprocess", "use": "length_bounds", "with": {"max": 6, "unit": "words"}},
        {"step": "analyze", "use": "excludes", "with": {"values": ["obviously", "calm down"]}},
        {"step": "generate_score", "formula": "(step1 + step2) / 2"},
        {
            "step": "generate_reason",
            "use": "threshold",
            "with": {"field": "score", "threshold": 0.75, "pass_value": "ok", "fail_value": "no"},
        },
    ],
}

MATCHING_SPEC = {
    "id": "message-matching",
    "description": "Matching, JSON and label checks on messages.",
    "steps": [
        {"step": "preprocess", "use": "regex_match", "with": {"pattern": r"^[A-Z]\w+"}},
        {
            "step": "analyze",
            "use": "keyword_coverage",
            "with": {"field": "input", "keywords": ["user", "part", "first"]},
        },
        {"step": "generate_score", "formula": "(step1 + step2) / 2"},
        {
            "step": "generate_reason",
            "formula": "str(results.preprocess_step_result) + ' ' + "
            "str(results.analyze_step_result)",
        },
    ],
}

JSON_LABEL_SPEC = {
    "id": "message-json-label",
    "description": "A JSON answer given as messages, and a label given as messages.",
    "steps": [
        {"step": "preprocess", "use": "json_valid", "with": {"expect": "object"}},
        {
            "step": "analyze",
            "use": "label_to_score",
            "with": {"field": "ground_truth", "mapping": {"yes": 1, "true": 0.75}, "default": 0},
        },
        {"step": "generate_score", "formula": "(step1 + step2) / 2"},
        {
            "step": "generate_reason",
            "formula": "str(results.preprocess_step_result) + ' ' + "
            "str(results.analyze_step_result)",
        },
    ],
}


def _json_label_examples() -> list[dict[str, Any]]:
    answer = [_assistant(_text('{"category": "billing"}'))]
    return [
        {"output": answer, "ground_truth": [{"role": "assistant", "content": "Yes"}]},
        {"output": [_assistant(_text("[1, 2]"))], "ground_truth": True},
        {"output": answer, "ground_truth": "YES "},
        {"output": {"category": "billing"}, "ground_truth": 1},
        {"output": "```json\n{}\n```", "ground_truth": "no"},
    ]


@pytest.mark.parametrize(
    "raw", [SHAPES_SPEC, MATCHING_SPEC, JSON_LABEL_SPEC], ids=lambda s: s["id"]
)
def test_odd_message_shapes_read_the_same(raw: dict[str, Any], mastra_node: Any) -> None:
    spec = load_spec(raw)
    if raw is JSON_LABEL_SPEC:
        examples = _json_label_examples()
    else:
        examples = [{"input": shape, "output": shape} for shape in SHAPES]
    expected = _python(spec, examples)
    got = mastra_node.score(export_mastra(spec).text, spec.id, examples)
    differ = [
        (index, mine, theirs)
        for index, (mine, theirs) in enumerate(zip(got, expected, strict=True))
        if not _same(mine, theirs)
    ]
    assert differ == []
    assert len({str(e.get("reason", "error")) for e in expected}) >= 3  # the shapes read apart
