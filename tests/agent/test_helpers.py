"""The agent helpers: user/assistant/system messages, history, tool calls and results,
reasoning, from models and raw dicts alike."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from scorer_runtime.agent import (
    ToolCallInfo,
    extract_agent_response_messages,
    extract_input_messages,
    extract_tool_calls,
    get_assistant_message_from_run_output,
    get_combined_system_prompt,
    get_conversation_history,
    get_last_assistant_message,
    get_reasoning_from_run_output,
    get_system_messages_from_run_input,
    get_text_content,
    get_tool_results,
    get_user_message_from_run_input,
    to_agent_input,
    to_agent_output,
)
from tests.agent.agent_fixtures import (
    CAMEL_INPUT,
    CAMEL_OUTPUT,
    LEGACY_OUTPUT,
    PARIS,
    snake,
    tool_part,
)

# --- Helpers ----------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["model", "camel", "snake"])
def test_helpers_accept_models_and_raw_dicts(shape: str) -> None:
    raw_in: Any = CAMEL_INPUT
    raw_out: Any = CAMEL_OUTPUT
    if shape == "snake":
        raw_in, raw_out = snake(CAMEL_INPUT), snake(CAMEL_OUTPUT)
    if shape == "model":
        raw_in, raw_out = to_agent_input(raw_in), to_agent_output(raw_out)
    assert get_user_message_from_run_input(raw_in) == "And in Lyon?\nCelsius."
    assert get_assistant_message_from_run_output(raw_out) == "It is 21°C in Lyon right now."
    assert get_last_assistant_message(raw_out) == "Want the 3-day forecast?"
    assert extract_tool_calls(raw_out).tools == ["get_weather", "get_forecast"]
    assert get_combined_system_prompt(raw_in).startswith("You are a weather assistant.")


def test_user_message_fallbacks() -> None:
    legacy = {"role": "user", "content": {"format": 2, "content": "legacy text"}}
    assert get_user_message_from_run_input([legacy]) == "legacy text"
    assert get_user_message_from_run_input("plain") == "plain"
    assert get_user_message_from_run_input({"inputMessages": []}) is None
    assert get_user_message_from_run_input([{"role": "system", "content": "s"}]) is None
    tool_only = {"role": "user", "content": {"format": 2, "parts": [{"type": "step-start"}]}}
    assert get_user_message_from_run_input([tool_only, "second"]) is None


def test_assistant_message_helpers() -> None:
    assert get_assistant_message_from_run_output(LEGACY_OUTPUT) == "Found it in the docs."
    assert get_assistant_message_from_run_output("plain answer") == "plain answer"
    assert get_assistant_message_from_run_output([{"role": "tool", "content": "x"}]) is None
    assert get_last_assistant_message([]) is None
    assert extract_agent_response_messages(CAMEL_OUTPUT) == [
        "It is 21°C in Lyon right now.",
        "Want the 3-day forecast?",
    ]
    assert extract_input_messages(CAMEL_INPUT) == ["And in Lyon?\nCelsius."]
    assert get_text_content({"role": "assistant", "content": {"parts": []}}) is None


def test_system_messages_in_order() -> None:
    value = copy.deepcopy(CAMEL_INPUT)
    value["inputMessages"].insert(0, {"role": "system", "content": "Inline system."})
    value["systemMessages"].append({"role": "system", "content": ""})
    expected = [
        "You are a weather assistant.",
        "Inline system.",
        "The user prefers Celsius.",
        "# User\nName: Ana",
    ]
    assert get_system_messages_from_run_input(value) == expected
    assert get_combined_system_prompt(value) == "\n\n".join(expected)
    assert get_combined_system_prompt("just a user message") == ""


def test_conversation_history() -> None:
    assert get_conversation_history(CAMEL_INPUT) == [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "It is 18°C in Paris."},
        {"role": "user", "content": "Thanks!"},
        {"role": "user", "content": "And in Lyon?\nCelsius."},
    ]
    tool_only = {"role": "assistant", "content": {"toolInvocations": [PARIS]}}
    assert get_conversation_history({"rememberedMessages": [tool_only]}) == [
        {"role": "assistant", "content": ""}
    ]


def test_extract_tool_calls_from_parts_without_duplicates() -> None:
    calls = extract_tool_calls(CAMEL_OUTPUT)
    assert calls.tools == ["get_weather", "get_forecast"]
    assert calls.tool_call_infos == [
        ToolCallInfo("get_weather", "call-1", {"city": "Lyon"}, {"tempC": 21}, "result", 0, 2),
        ToolCallInfo("get_forecast", "call-2", {"city": "Lyon", "days": 3}, None, "call", 0, 4),
    ]
    assert calls.tool_call_infos[0].to_dict()["part_index"] == 2


def test_extract_tool_calls_from_legacy_tool_invocations() -> None:
    calls = extract_tool_calls(LEGACY_OUTPUT)
    assert calls.tools == ["search_docs", "open_doc"]  # the partial call is left out
    assert [(i.tool_call_id, i.part_index) for i in calls.tool_call_infos] == [
        ("c1", None),
        ("c3", None),
    ]
    mixed = copy.deepcopy(CAMEL_OUTPUT[0])
    mixed["content"]["toolInvocations"].append(tool_part("call", "call-9", "notify", {}))
    assert extract_tool_calls([mixed]).tools == ["get_weather", "get_forecast", "notify"]
    assert extract_tool_calls(["no tools here"]).tools == []


def test_tool_results_and_reasoning() -> None:
    results = get_tool_results(CAMEL_OUTPUT + LEGACY_OUTPUT)
    assert [(r.tool_name, r.result, r.message_index) for r in results] == [
        ("get_weather", {"tempC": 21}, 0),
        ("search_docs", ["doc-1"], 2),
    ]
    assert get_reasoning_from_run_output(CAMEL_OUTPUT) == "Lyon now. Then."
    parts = [{"type": "reasoning", "reasoning": "a"}, {"type": "reasoning", "reasoning": "b"}]
    as_parts = {"role": "assistant", "content": {"parts": parts}}
    assert get_reasoning_from_run_output([as_parts]) == "a\nb"
    legacy = {"role": "assistant", "content": {"reasoning": "first", "parts": parts}}
    assert get_reasoning_from_run_output([legacy]) == "first"
    assert get_reasoning_from_run_output(LEGACY_OUTPUT) is None
    assert get_reasoning_from_run_output([{"role": "user", "content": "x"}]) is None
