"""A weather agent's second turn, as Mastra stores it (camelCase JSON), and helpers to
reshape it: what the agent tests share."""

from __future__ import annotations

import copy
from typing import Any

from scorer_runtime.agent import (
    to_agent_input,
    to_agent_output,
)
from scorer_runtime.run import ScorerRun

# --- Fixtures: a weather agent's second turn, as Mastra stores it (camelCase JSON) ---------


def message(mid: str, role: str, at: str, parts: list[dict[str, Any]], **content: Any) -> Any:
    return {
        "id": mid,
        "role": role,
        "createdAt": at,
        "threadId": "thread-1",
        "content": {"format": 2, "parts": parts, **content},
    }


def text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_part(state: str, call_id: str, name: str, args: dict[str, Any], **rest: Any) -> Any:
    return {"state": state, "toolCallId": call_id, "toolName": name, "args": args, **rest}


WEATHER = tool_part("result", "call-1", "get_weather", {"city": "Lyon"}, result={"tempC": 21})
FORECAST = tool_part("call", "call-2", "get_forecast", {"city": "Lyon", "days": 3})
PARIS = tool_part("result", "call-0", "get_weather", {"city": "Paris"}, result={"tempC": 18})
SOURCE = {"type": "source", "source": {"sourceType": "url", "id": "s1", "url": "https://m.ex/ly"}}

CAMEL_INPUT: dict[str, Any] = {
    "inputMessages": [
        message(
            "u2", "user", "2025-03-01T10:02:00Z", [text_part("And in Lyon?"), text_part("Celsius.")]
        )
    ],
    "rememberedMessages": [
        message("u1", "user", "2025-03-01T10:00:00Z", [text_part("Weather in Paris?")]),
        message(
            "a1",
            "assistant",
            "2025-03-01T10:00:05Z",
            [
                {"type": "step-start"},
                {"type": "tool-invocation", "toolInvocation": PARIS},
                text_part("It is 18°C in Paris."),
            ],
            content="It is 18°C in Paris.",
        ),
        message("u1b", "user", "2025-03-01T10:01:00Z", [text_part("Thanks!")]),
    ],
    "systemMessages": [{"role": "system", "content": "You are a weather assistant."}],
    "taggedSystemMessages": {
        "memory": [{"role": "system", "content": "The user prefers Celsius."}],
        "working-memory": [{"role": "system", "content": [text_part("# User\nName: Ana")]}],
    },
}

CAMEL_OUTPUT: list[Any] = [
    message(
        "a2",
        "assistant",
        "2025-03-01T10:02:04Z",
        [
            {"type": "step-start"},
            {
                "type": "reasoning",
                "reasoning": "",
                "details": [text_part("Lyon now. "), text_part("Then.")],
            },
            {"type": "tool-invocation", "toolInvocation": WEATHER},
            {"type": "step-start"},
            {"type": "tool-invocation", "toolInvocation": FORECAST},
            text_part("It is 21°C in Lyon right now."),
            SOURCE,
        ],
        content="It is 21°C in Lyon right now.",
        toolInvocations=[WEATHER, FORECAST],
        metadata={"model": "gpt-x"},
    ),
    message("a3", "assistant", "2025-03-01T10:02:05Z", [text_part("Want the 3-day forecast?")]),
]

LEGACY_OUTPUT: list[Any] = [
    {
        "id": "a9",
        "role": "assistant",
        "content": {
            "format": 2,
            "content": "Found it in the docs.",
            "toolInvocations": [
                tool_part("result", "c1", "search_docs", {"q": "x"}, result=["doc-1"]),
                tool_part("partial-call", "c2", "open_doc", {}),
                tool_part("call", "c3", "open_doc", {"id": "doc-1"}),
            ],
        },
    }
]

SNAKE_NAMES = {
    "inputMessages": "input_messages",
    "rememberedMessages": "remembered_messages",
    "systemMessages": "system_messages",
    "taggedSystemMessages": "tagged_system_messages",
    "createdAt": "created_at",
    "toolInvocation": "tool_invocation",
    "toolInvocations": "tool_invocations",
    "toolCallId": "tool_call_id",
    "toolName": "tool_name",
}


def snake(value: Any, *, under_tags: bool = False) -> Any:
    """The fixture with Mastra's field names in snake_case (extra keys and tags unchanged)."""
    if isinstance(value, list):
        return [snake(v) for v in value]
    if isinstance(value, dict):
        return {
            (k if under_tags else SNAKE_NAMES.get(k, k)): snake(
                v, under_tags=k == "taggedSystemMessages"
            )
            for k, v in value.items()
        }
    return value


def make_run(**changes: Any) -> ScorerRun[Any, Any]:
    fields: dict[str, Any] = {
        "input": to_agent_input(copy.deepcopy(CAMEL_INPUT)),
        "output": to_agent_output(copy.deepcopy(CAMEL_OUTPUT)),
        "run_id": "run-1",
        "ground_truth": "21°C",
        "request_context": {"tenant": "acme"},
    }
    return ScorerRun(**{**fields, **changes})
