"""An agent run shown to a person: system prompt, who said what, each tool call with its
arguments and answer, one turn per paragraph; anything else is left to be shown as it is."""

from __future__ import annotations

import json
from pathlib import Path

from scorer_runtime.agent.readable import MAX_VALUE_CHARS, readable_run

RUNS = Path(__file__).parents[2] / "data" / "datasets" / "agent_tool_runs.jsonl"


def _first_run() -> dict:
    return json.loads(RUNS.read_text().splitlines()[0])


def test_a_runs_input_reads_as_its_system_prompt_then_the_users_message() -> None:
    text = readable_run(_first_run()["input"])
    assert text is not None
    system, user = text.split("\n\n")
    assert system.startswith("System: You are ShopBot, the support agent of Northwind")
    assert user == "User: Where is my order A1042?"


def test_a_runs_output_reads_as_each_tool_call_and_answer_then_the_agents_reply() -> None:
    assert readable_run(_first_run()["output"]) == (
        '→ Called lookup_order(orderId: "A1042")\n'
        '← lookup_order answered: {"orderId": "A1042", "status": "shipped", '
        '"trackingNumber": "1Z999AA10123456784"}\n\n'
        '→ Called get_shipping_status(trackingNumber: "1Z999AA10123456784")\n'
        '← get_shipping_status answered: {"status": "out_for_delivery", "eta": "2025-05-03"}\n\n'
        "Agent: Your order A1042 is out for delivery and should arrive today, 3 May."
    )


def test_simple_messages_a_call_without_answer_and_a_long_answer_read_too() -> None:
    long = "x" * (MAX_VALUE_CHARS * 2)
    output = [
        {"role": "user", "content": "Refund me."},
        {"role": "assistant", "content": [
            {"type": "reasoning", "reasoning": "Check the order first."},
            {"type": "tool-invocation", "toolInvocation": {
                "state": "call", "toolCallId": "c1", "toolName": "lookup_order", "args": {},
            }},
            {"type": "tool-invocation", "toolInvocation": {
                "state": "result", "toolCallId": "c2", "toolName": "history",
                "args": {"n": 2}, "result": long,
            }},
        ]},
    ]  # fmt: skip
    lines = (readable_run(output) or "").split("\n\n")
    assert lines[:3] == [
        "User: Refund me.",
        "Agent (thinking): Check the order first.",
        "→ Called lookup_order()\n← (no answer recorded)",
    ]
    assert lines[3].startswith("→ Called history(n: 2)\n← history answered: xxx")
    assert len(lines[3].split("answered: ")[1]) == MAX_VALUE_CHARS
    assert lines[3].endswith("…")


def test_what_is_not_an_agent_run_is_left_alone() -> None:
    for value in ("plain text", ["30 days", "unworn"], {"answer": 1}, [], None, 3):
        assert readable_run(value) is None
    assert readable_run([{"role": "robot", "content": "hi"}]) is None  # not a known role
