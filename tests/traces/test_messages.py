"""read_messages: the message shapes tracers record, read into one neutral shape."""

from __future__ import annotations

import pytest

from scorer_runtime.agent import ToolInvocationPart, extract_tool_calls
from scorer_runtime.traces import (
    AgentRunTarget,
    ChatMessage,
    ChatPart,
    read_messages,
    trace_to_agent_run,
)

WEATHER_CALL = ChatPart(
    "tool_call", tool_call_id="c1", tool_name="weather", arguments={"city": "Oslo"}
)
WEATHER_ANSWER = ChatPart("tool_result", tool_call_id="c1", result={"tempC": 4})


def test_genai_semantic_convention_messages():
    value = [
        {"role": "user", "parts": [{"type": "text", "content": "Oslo?"}]},
        {
            "role": "assistant",
            "parts": [
                {"type": "tool_call", "id": "c1", "name": "weather", "arguments": {"city": "Oslo"}}
            ],
            "finish_reason": "tool_call",
        },
        {
            "role": "tool",
            "parts": [{"type": "tool_call_response", "id": "c1", "response": '{"tempC": 4}'}],
        },
    ]
    assert read_messages(value, default_role="user") == [
        ChatMessage("user", (ChatPart("text", text="Oslo?"),)),
        ChatMessage("assistant", (WEATHER_CALL,)),
        ChatMessage("tool", (WEATHER_ANSWER,)),
    ]


def test_ai_sdk_messages_with_wrapped_tool_output():
    value = {
        "messages": [
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool-call",
                        "toolCallId": "c1",
                        "toolName": "weather",
                        "input": {"city": "Oslo"},
                    }
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "c1",
                        "toolName": "weather",
                        "output": {"type": "json", "value": {"tempC": 4}},
                    }
                ],
            },
        ]
    }
    call, answer = read_messages(value, default_role="user")
    assert call.parts == (WEATHER_CALL,)
    assert answer.parts == (
        ChatPart("tool_result", tool_call_id="c1", tool_name="weather", result={"tempC": 4}),
    )


def test_openai_chat_messages():
    value = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"tempC": 4}'},
    ]
    assert [m.parts for m in read_messages(value, default_role="user")] == [
        (WEATHER_CALL,),
        (WEATHER_ANSWER,),
    ]


def test_mastra_output_objects_and_plain_text():
    output = {
        "text": "4 °C.",
        "reasoningText": "Cold.",
        "toolCalls": [{"toolCallId": "c1", "toolName": "weather", "args": {"city": "Oslo"}}],
    }
    (message,) = read_messages(output, default_role="assistant")
    assert message == ChatMessage(
        "assistant",
        (ChatPart("reasoning", text="Cold."), ChatPart("text", text="4 °C."), WEATHER_CALL),
    )
    assert read_messages("hello", default_role="user") == [
        ChatMessage("user", (ChatPart("text", text="hello"),))
    ]


@pytest.mark.parametrize("value", [None, "", 42, {"unrelated": True}, [1, 2]])
def test_values_that_are_not_messages_give_none(value):
    assert read_messages(value, default_role="user") == []


def test_mastra_stored_messages_as_agent_input_come_back_the_same(mastra_trace, mastra_span):
    stored = [
        {
            "role": "assistant",
            "content": {
                "format": 2,
                "parts": [
                    {"type": "step-start"},
                    {
                        "type": "tool-invocation",
                        "toolInvocation": {
                            "state": "result",
                            "toolCallId": "c1",
                            "toolName": "weather",
                            "args": {"city": "Oslo"},
                            "result": {"tempC": 4},
                        },
                    },
                    {"type": "text", "text": "4 °C in Oslo."},
                ],
            },
        },
        {
            "role": "user",
            "content": {"format": 2, "parts": [{"type": "text", "text": "And Bergen?"}]},
        },
    ]
    trace = mastra_trace(
        mastra_span("a", "agent_run", "00:01", input=stored, output={"text": "7 °C."})
    )
    target = trace_to_agent_run(trace)
    assert isinstance(target, AgentRunTarget)
    first, second = target.input.input_messages
    assert isinstance(first.content.parts[0], ToolInvocationPart)
    assert extract_tool_calls([first]).tool_call_infos[0].result == {"tempC": 4}
    assert first.content.content == "4 °C in Oslo."
    assert second.content.content == "And Bergen?"
