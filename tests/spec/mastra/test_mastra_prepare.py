"""The prepare options (only some tools, the last messages) trim a run in Node as in Python.

Python hands the steps the trimmed messages normalised (snake_case fields), the module the
original ones; the steps here read what both share: ids, part types, the tool-call checks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scorer_runtime.spec import compile_spec, load_spec
from scorer_runtime.spec.mastra import export_mastra
from scorer_runtime.spec.mastra.prepare_ts import MESSAGE_FIELDS_DIFFER

SCORERS = Path(__file__).resolve().parents[3] / "data" / "scorers"

PREPARES: list[dict[str, Any]] = [
    {"tool_names": ["lookup"]},
    {"tool_names": []},
    {"tool_names": ["refund"], "part_types": ["tool-invocation", "reasoning"]},
    {"max_output_messages": 1, "max_remembered_messages": 1},
    {"tool_names": ["lookup"], "max_output_messages": 2},
    {"tool_names": ["refund", "lookup"]},
]


def _call(name: str, call_id: str) -> dict[str, Any]:
    return {"state": "result", "toolCallId": call_id, "toolName": name, "args": {}, "result": 1.5}


def _message(number: int, *calls: dict[str, Any], legacy: bool = False) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"type": "reasoning", "reasoning": "Think."}]
    parts += [{"type": "tool-invocation", "toolInvocation": call} for call in calls]
    parts.append({"type": "text", "text": f"Step {number}."})
    content: dict[str, Any] = {"format": 2, "parts": parts, "content": f"Step {number}."}
    if legacy:
        content["toolInvocations"] = list(calls)
    return {"id": f"m{number}", "role": "assistant", "content": content}


def _bare(number: int, call: dict[str, Any]) -> dict[str, Any]:
    """A message holding one tool call only: emptied, and dropped, when the call goes."""
    parts = [{"type": "tool-invocation", "toolInvocation": call}]
    return {"id": f"b{number}", "role": "assistant", "content": {"format": 2, "parts": parts}}


def _user(number: int) -> dict[str, Any]:
    text = f"Question {number}."
    parts = [{"type": "text", "text": text}]
    return {"id": f"u{number}", "role": "user", "content": {"format": 2, "parts": parts}}


RUNS: list[dict[str, Any]] = [  # ground truth: lookup then refund (the tool_order step)
    {
        "ground_truth": ["lookup", "refund"],
        "input": {"inputMessages": [_user(1)], "rememberedMessages": [_user(2), _user(3)]},
        "output": [
            _message(1, _call("lookup", "c1"), _call("refund", "c2"), legacy=True),
            _bare(1, _call("refund", "c6")),
            _message(2, _call("refund", "c3")),
            _message(3),
        ],
    },
    {
        "ground_truth": ["lookup", "refund"],
        "input": [_user(4)],
        "output": [_message(4, _call("refund", "c4"))],
    },
    {
        "ground_truth": ["lookup", "refund"],
        "input": "plain text",
        "output": [_message(5, _call("lookup", "c5"), legacy=True)],
    },
]


SHOWN = "str([m.id for m in output]) + str([[p.type for p in m.content.parts] for m in output])"


def _python(spec: Any, examples: list[dict[str, Any]]) -> list[Any]:
    scorer = compile_spec(spec)
    found: list[Any] = []
    for example in examples:
        try:
            result = scorer.run_sync(**example)
        except Exception:
            found.append("error")
        else:
            found.append((result.score, result.reason))
    return found


def test_prepare_options_trim_runs_as_in_python(mastra_node: Any) -> None:
    runs, expected = [], []
    for number, prepare in enumerate(PREPARES):
        spec = load_spec(
            {
                "id": f"prepare-{number}",
                "description": "Shows the run the steps see.",
                "type": "agent",
                "prepare": prepare,
                "steps": [
                    {"step": "preprocess", "use": "tool_order", "with": {"mode": "subsequence"}},
                    {"step": "generate_score", "formula": "step1"},
                    {"step": "generate_reason", "formula": SHOWN},
                ],
            }
        )
        exported = export_mastra(spec)
        assert exported.differences == [MESSAGE_FIELDS_DIFFER]  # SHOWN reads messages by field
        runs.append((exported.text, f"prepare-{number}", RUNS))
        expected.append(_python(spec, RUNS))
    got = mastra_node.score_many(runs)
    for prepare, theirs, mine in zip(PREPARES, expected, got, strict=True):
        shown = ["error" if "error" in g else (g["score"], g["reason"]) for g in mine]
        assert shown == theirs, prepare
    assert [found[0] for found in expected[0]] == [0.0, 0.0, 0.0]  # refund dropped
    assert [found[0] for found in expected[5]] == [1.0, 0.0, 0.0]  # both tools kept
    assert expected[0][0][1].startswith('["m1", "m2", "m3"]')  # emptied b1 dropped
    assert expected[2][0][1].startswith('["m1", "b1", "m2", "m3"]')
    assert expected[3][0][1].startswith('["m3"]')  # the last output message only
    assert expected[4][0][1].startswith('["m2", "m3"]')


def test_reading_messages_through_the_agent_filters_differs_in_nothing() -> None:
    tools = export_mastra(load_spec(SCORERS / "tool-call-accuracy.json"))
    assert "keepRunParts(prepared, " in tools.text
    assert MESSAGE_FIELDS_DIFFER not in tools.differences
