"""Agent run types and their normalisation: camelCase and snake_case shapes, round trips,
unknown parts kept, bad shapes rejected clearly."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from scorer_runtime.agent import (
    AgentMessage,
    AgentRunInput,
    AgentShapeError,
    MessageContent,
    OtherPart,
    ReasoningPart,
    StepStartPart,
    TextPart,
    ToolInvocationPart,
    filter_run,
    get_conversation_history,
    get_reasoning_from_run_output,
    get_text_content,
    get_tool_results,
    get_user_message_from_run_input,
    normalize,
    to_agent_input,
    to_agent_output,
)
from tests.agent.agent_fixtures import (
    CAMEL_INPUT,
    CAMEL_OUTPUT,
    LEGACY_OUTPUT,
    SOURCE,
    make_run,
    snake,
    text_part,
)

# --- Types and normalisation ------------------------------------------------------------


def test_camel_and_snake_dicts_give_equal_objects() -> None:
    assert to_agent_input(CAMEL_INPUT) == to_agent_input(snake(CAMEL_INPUT))
    assert to_agent_output(CAMEL_OUTPUT) == to_agent_output(snake(CAMEL_OUTPUT))


def test_parsed_shape_is_typed_and_keeps_unknowns() -> None:
    agent_input = to_agent_input(CAMEL_INPUT)
    user = agent_input.input_messages[0]
    assert user.created_at == datetime(2025, 3, 1, 10, 2, tzinfo=UTC)
    assert user.model_extra == {"threadId": "thread-1"}
    assert set(agent_input.tagged_system_messages) == {"memory", "working-memory"}
    parts = to_agent_output(CAMEL_OUTPUT)[0].content.parts
    assert [type(p) for p in parts] == [
        StepStartPart,
        ReasoningPart,
        ToolInvocationPart,
        StepStartPart,
        ToolInvocationPart,
        TextPart,
        OtherPart,
    ]
    assert parts[6].type == "source"
    assert parts[6].model_extra == {"source": SOURCE["source"]}


@pytest.mark.parametrize("camel", [True, False])
def test_round_trip_model_dict_model(camel: bool) -> None:
    agent_input = to_agent_input(CAMEL_INPUT)
    output = to_agent_output(CAMEL_OUTPUT + LEGACY_OUTPUT)
    assert AgentRunInput.model_validate(agent_input.to_dict(camel=camel)) == agent_input
    assert to_agent_output([m.to_dict(camel=camel) for m in output]) == output


def test_to_dict_json_camel_is_lossless() -> None:
    assert to_agent_input(CAMEL_INPUT).to_dict(camel=True, mode="json") == CAMEL_INPUT
    messages = to_agent_output(CAMEL_OUTPUT + LEGACY_OUTPUT)
    assert [m.to_dict(camel=True, mode="json") for m in messages] == CAMEL_OUTPUT + LEGACY_OUTPUT
    assert to_agent_input(snake(CAMEL_INPUT)).to_dict(mode="json") == snake(CAMEL_INPUT)


def test_simple_forms_are_normalised() -> None:
    hello = {"role": "user", "content": {"format": 2, "parts": [text_part("hello")]}}
    for value in ("hello", {"role": "user", "content": "hello"}, ["hello"], ("hello",)):
        assert to_agent_input(value).to_dict()["input_messages"] == [hello]
    mixed = to_agent_input({"inputMessages": ["a", {"role": "user", "content": [text_part("b")]}]})
    assert [get_text_content(m) for m in mixed.input_messages] == ["a", "b"]
    system = to_agent_input({"systemMessages": "Be brief.", "taggedSystemMessages": {"t": "x"}})
    assert system.to_dict()["system_messages"] == [{"role": "system", "content": "Be brief."}]
    out = to_agent_output("Hi!")
    assert out[0].role == "assistant"
    assert get_text_content(out[0]) == "Hi!"
    assert to_agent_output({"role": "assistant", "content": "x"})[0].content.parts == [
        TextPart(text="x")
    ]
    assert to_agent_output([]) == []


def test_opentelemetry_genai_messages_are_read() -> None:
    """``gen_ai.output.messages`` as an instrumented app records it: parts with ``content``."""
    recorded = [
        {
            "role": "assistant",
            "parts": [
                {"type": "reasoning", "content": "They want the refund date."},
                {"type": "text", "content": "Your refund arrives Friday."},
                {"type": "tool_call", "id": "c1", "name": "lookup", "arguments": {"order": 42}},
                {"type": "uri", "uri": "https://example.org/x.png", "modality": "image"},
            ],
            "finish_reason": "stop",
        }
    ]
    (message,) = to_agent_output(recorded)
    assert get_text_content(message) == "Your refund arrives Friday."
    reasoning, text, call, other = message.content.parts
    assert reasoning == ReasoningPart(reasoning="They want the refund date.")
    assert text == TextPart(text="Your refund arrives Friday.")
    assert isinstance(call, ToolInvocationPart)
    assert (call.tool_invocation.tool_name, call.tool_invocation.args) == ("lookup", {"order": 42})
    assert isinstance(other, OtherPart)
    assert other.type == "uri"
    asked = to_agent_input([{"role": "user", "parts": [{"type": "text", "content": "Refund?"}]}])
    assert get_text_content(asked.input_messages[0]) == "Refund?"


def hello_content(text: str) -> dict[str, Any]:
    return {"format": 2, "parts": [text_part(text)]}


def test_models_build_by_field_name() -> None:
    message = AgentMessage(role="user", content=MessageContent(parts=[TextPart(text="hi")]))
    assert message.to_dict(camel=True) == {"role": "user", "content": hello_content("hi")}
    assert to_agent_input([message]).input_messages[0] is message


def test_normalised_values_are_not_revalidated(monkeypatch: pytest.MonkeyPatch) -> None:
    run = make_run()
    agent_input, output = run.input, run.output
    assert to_agent_input(agent_input) is agent_input
    assert to_agent_output(output) is output

    def fail(*args: object) -> None:
        raise AssertionError("validated again")

    monkeypatch.setattr(normalize, "_validate", fail)
    monkeypatch.setattr(AgentMessage, "model_validate", fail)
    assert get_user_message_from_run_input(agent_input) == "And in Lyon?\nCelsius."
    assert get_tool_results(output)[0].tool_name == "get_weather"
    assert get_reasoning_from_run_output(output) == "Lyon now. Then."
    assert len(get_conversation_history(agent_input)) == 4
    assert filter_run(part_types=["text"], tool_names=["x"], max_output_messages=1)(run).output


def test_unknown_part_types_are_kept_and_odd_ones_rejected() -> None:
    parts = [{"type": "data-progress", "data": {"pct": 50}}, {"type": "file", "mimeType": "a/b"}]
    content = to_agent_output([{"role": "assistant", "content": parts}])[0].content
    assert [type(p) for p in content.parts] == [OtherPart, OtherPart]
    assert content.to_dict()["parts"] == parts
    with pytest.raises(AgentShapeError, match=r"parts\.0\.other\.type: Input should be"):
        to_agent_output([{"role": "assistant", "content": [{"type": ["weird"]}]}])


@pytest.mark.parametrize(
    ("call", "value", "fragments"),
    [
        (to_agent_input, 42, ["to_agent_input: expected an AgentRunInput", "got int 42"]),
        (to_agent_input, None, ["got NoneType None"]),
        (to_agent_input, {"prompt": "hi"}, ["got dict {'prompt': 'hi'}", "keys ['prompt']"]),
        (to_agent_input, [{"role": "bot", "content": "x"}], ["input_messages.0.role"]),
        (to_agent_input, {"inputMessages": [{"role": "user"}]}, ["content: Field required"]),
        (to_agent_output, {"text": "hi"}, ["to_agent_output: expected a list of messages"]),
        (to_agent_output, 3.5, ["got float 3.5"]),
        (to_agent_output, ["ok", 7], ["(message 1)", "got int 7"]),
        (to_agent_output, [{"role": "assistant", "content": {"parts": [1]}}], ["content.parts.0"]),
        (to_agent_output, [{"role": "tool", "content": {"format": 1}}], ["format: Input should"]),
    ],
)
def test_bad_shapes_raise_clear_errors(call: Any, value: Any, fragments: list[str]) -> None:
    with pytest.raises(AgentShapeError) as raised:
        call(value)
    assert isinstance(raised.value, ValueError)
    for fragment in fragments:
        assert fragment in str(raised.value)


def test_error_repr_is_short() -> None:
    with pytest.raises(ValueError, match="…") as raised:
        to_agent_input({"prompt": "x" * 1000})
    assert len(str(raised.value)) < 400
