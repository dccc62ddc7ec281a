"""Agent scorer types, helpers and filter_run (scorer_runtime.agent)."""

from __future__ import annotations

import copy
import inspect
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
    ToolCallInfo,
    ToolInvocationPart,
    extract_agent_response_messages,
    extract_input_messages,
    extract_tool_calls,
    filter_run,
    get_assistant_message_from_run_output,
    get_combined_system_prompt,
    get_conversation_history,
    get_last_assistant_message,
    get_reasoning_from_run_output,
    get_system_messages_from_run_input,
    get_text_content,
    get_tool_results,
    get_user_message_from_run_input,
    normalize,
    to_agent_input,
    to_agent_output,
)
from scorer_runtime.run import ScorerRun

# --- Fixtures: a weather agent's second turn, as Mastra stores it (camelCase JSON) ---------


def _msg(mid: str, role: str, at: str, parts: list[dict[str, Any]], **content: Any) -> Any:
    return {
        "id": mid,
        "role": role,
        "createdAt": at,
        "threadId": "thread-1",
        "content": {"format": 2, "parts": parts, **content},
    }


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _tool(state: str, call_id: str, name: str, args: dict[str, Any], **rest: Any) -> Any:
    return {"state": state, "toolCallId": call_id, "toolName": name, "args": args, **rest}


WEATHER = _tool("result", "call-1", "get_weather", {"city": "Lyon"}, result={"tempC": 21})
FORECAST = _tool("call", "call-2", "get_forecast", {"city": "Lyon", "days": 3})
PARIS = _tool("result", "call-0", "get_weather", {"city": "Paris"}, result={"tempC": 18})
SOURCE = {"type": "source", "source": {"sourceType": "url", "id": "s1", "url": "https://m.ex/ly"}}

CAMEL_INPUT: dict[str, Any] = {
    "inputMessages": [
        _msg("u2", "user", "2025-03-01T10:02:00Z", [_text("And in Lyon?"), _text("Celsius.")])
    ],
    "rememberedMessages": [
        _msg("u1", "user", "2025-03-01T10:00:00Z", [_text("Weather in Paris?")]),
        _msg(
            "a1",
            "assistant",
            "2025-03-01T10:00:05Z",
            [
                {"type": "step-start"},
                {"type": "tool-invocation", "toolInvocation": PARIS},
                _text("It is 18°C in Paris."),
            ],
            content="It is 18°C in Paris.",
        ),
        _msg("u1b", "user", "2025-03-01T10:01:00Z", [_text("Thanks!")]),
    ],
    "systemMessages": [{"role": "system", "content": "You are a weather assistant."}],
    "taggedSystemMessages": {
        "memory": [{"role": "system", "content": "The user prefers Celsius."}],
        "working-memory": [{"role": "system", "content": [_text("# User\nName: Ana")]}],
    },
}

CAMEL_OUTPUT: list[Any] = [
    _msg(
        "a2",
        "assistant",
        "2025-03-01T10:02:04Z",
        [
            {"type": "step-start"},
            {
                "type": "reasoning",
                "reasoning": "",
                "details": [_text("Lyon now. "), _text("Then.")],
            },
            {"type": "tool-invocation", "toolInvocation": WEATHER},
            {"type": "step-start"},
            {"type": "tool-invocation", "toolInvocation": FORECAST},
            _text("It is 21°C in Lyon right now."),
            SOURCE,
        ],
        content="It is 21°C in Lyon right now.",
        toolInvocations=[WEATHER, FORECAST],
        metadata={"model": "gpt-x"},
    ),
    _msg("a3", "assistant", "2025-03-01T10:02:05Z", [_text("Want the 3-day forecast?")]),
]

LEGACY_OUTPUT: list[Any] = [
    {
        "id": "a9",
        "role": "assistant",
        "content": {
            "format": 2,
            "content": "Found it in the docs.",
            "toolInvocations": [
                _tool("result", "c1", "search_docs", {"q": "x"}, result=["doc-1"]),
                _tool("partial-call", "c2", "open_doc", {}),
                _tool("call", "c3", "open_doc", {"id": "doc-1"}),
            ],
        },
    }
]

_SNAKE = {
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
            (k if under_tags else _SNAKE.get(k, k)): snake(
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
    hello = {"role": "user", "content": {"format": 2, "parts": [_text("hello")]}}
    for value in ("hello", {"role": "user", "content": "hello"}, ["hello"], ("hello",)):
        assert to_agent_input(value).to_dict()["input_messages"] == [hello]
    mixed = to_agent_input({"inputMessages": ["a", {"role": "user", "content": [_text("b")]}]})
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


def hello_content(text: str) -> dict[str, Any]:
    return {"format": 2, "parts": [_text(text)]}


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
    mixed["content"]["toolInvocations"].append(_tool("call", "call-9", "notify", {}))
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


# --- filter_run -------------------------------------------------------------------------


def test_drop_options_only_touch_their_fields() -> None:
    run = make_run()
    new = filter_run(drop_request_context=True, drop_ground_truth=True)(run)
    assert (new.request_context, new.ground_truth) == (None, None)
    assert new.input is run.input
    assert new.output is run.output
    assert run.request_context == {"tenant": "acme"}
    assert run.ground_truth == "21°C"
    assert filter_run(drop_ground_truth=True)(run).request_context == {"tenant": "acme"}


def test_part_types_keeps_only_those_parts() -> None:
    new = filter_run(part_types=["text"])(make_run())
    first = new.output[0].content
    assert [p.type for p in first.parts] == ["text"]
    assert first.content == "It is 21°C in Lyon right now."
    assert first.tool_invocations is None
    assert "tool_invocations" not in first.to_dict()
    assert extract_tool_calls(new.output).tools == []
    assert get_reasoning_from_run_output(new.output) is None
    assert [p.type for p in new.input.remembered_messages[1].content.parts] == ["text"]
    assert new.input.system_messages == make_run().input.system_messages


def test_part_types_drops_emptied_messages_and_text_mirror() -> None:
    new = filter_run(part_types="tool-invocation")(make_run())
    assert [m.id for m in new.output] == ["a2"]
    assert new.output[0].content.content is None
    assert get_assistant_message_from_run_output(new.output) is None
    assert extract_tool_calls(new.output).tools == ["get_weather", "get_forecast"]
    assert [m.id for m in new.input.remembered_messages] == ["a1"]
    assert new.input.input_messages == []
    legacy = filter_run(part_types=["tool-invocation"])(make_run(output=LEGACY_OUTPUT))
    assert extract_tool_calls(legacy.output).tools == ["search_docs", "open_doc"]


def test_tool_names_keeps_only_those_tools() -> None:
    new = filter_run(tool_names=["get_weather"])(make_run())
    content = new.output[0].content
    assert [p.type for p in content.parts] == [
        "step-start",
        "reasoning",
        "tool-invocation",
        "step-start",
        "text",
        "source",
    ]
    assert [i.tool_name for i in content.tool_invocations or []] == ["get_weather"]
    assert extract_tool_calls(new.output).tools == ["get_weather"]
    none = filter_run(tool_names=[])(make_run())
    assert extract_tool_calls(none.output).tools == []
    assert get_conversation_history(none.input) == get_conversation_history(make_run().input)


ASSISTANT_DONE = {"role": "assistant", "content": "done"}


def test_tool_names_drops_messages_left_empty() -> None:
    part = {"type": "tool-invocation", "toolInvocation": FORECAST}
    only_tool = {"role": "assistant", "content": {"parts": [part]}}
    new = filter_run(tool_names=["get_weather"])(make_run(output=[only_tool, ASSISTANT_DONE]))
    assert [get_text_content(m) for m in new.output] == ["done"]


@pytest.mark.parametrize(
    ("options", "remembered", "output"),
    [
        ({"max_remembered_messages": 1}, ["u1b"], ["a2", "a3"]),
        ({"max_remembered_messages": 5}, ["u1", "a1", "u1b"], ["a2", "a3"]),
        ({"max_output_messages": 1}, ["u1", "a1", "u1b"], ["a3"]),
        ({"max_output_messages": 0}, ["u1", "a1", "u1b"], ["a2", "a3"]),
        ({"part_types": ["tool-invocation"], "max_output_messages": 1}, ["a1"], ["a2"]),
        ({"part_types": ["text"], "max_remembered_messages": 2}, ["a1", "u1b"], ["a2", "a3"]),
        ({"tool_names": ["x"], "max_remembered_messages": 2}, ["a1", "u1b"], ["a2", "a3"]),
    ],
)
def test_limits_keep_the_last_messages(
    options: dict[str, Any], remembered: list[str], output: list[str]
) -> None:
    new = filter_run(**options)(make_run())
    assert [m.id for m in new.input.remembered_messages] == remembered
    assert [m.id for m in new.output] == output
    kept_user_text = options.get("part_types") != ["tool-invocation"]
    assert [m.id for m in new.input.input_messages] == (["u2"] if kept_user_text else [])


def test_everything_at_once() -> None:
    prepare = filter_run(
        drop_request_context=True,
        drop_ground_truth=True,
        part_types=["text", "tool-invocation"],
        tool_names=["get_weather"],
        max_remembered_messages=2,
        max_output_messages=1,
    )
    new = prepare(make_run())
    assert (new.request_context, new.ground_truth, new.run_id) == (None, None, "run-1")
    assert [m.id for m in new.input.remembered_messages] == ["a1", "u1b"]
    assert [get_text_content(m) for m in new.output] == ["Want the 3-day forecast?"]
    assert get_tool_results(new.input.remembered_messages)[0].args == {"city": "Paris"}


def test_filter_never_mutates_the_run() -> None:
    run = make_run()
    before = (run.input.to_dict(), [m.to_dict() for m in run.output], run.to_dict())
    prepare = filter_run(part_types=["text"], tool_names=["x"], max_output_messages=1)
    new = prepare(run)
    assert new is not run
    assert new.input is not run.input
    assert (run.input.to_dict(), [m.to_dict() for m in run.output], run.to_dict()) == before
    same = filter_run()(run)
    assert same is not run
    assert same == run


def test_raw_agent_runs_are_normalised() -> None:
    raw = make_run(input=copy.deepcopy(CAMEL_INPUT), output=copy.deepcopy(CAMEL_OUTPUT))
    new = filter_run(max_output_messages=1)(raw)
    assert isinstance(new.input, AgentRunInput)
    assert all(isinstance(m, AgentMessage) for m in new.output)
    assert raw.input == CAMEL_INPUT
    assert raw.output == CAMEL_OUTPUT
    bare = filter_run(part_types=["text"])(make_run(input=[{"role": "user", "content": "hi"}]))
    assert get_user_message_from_run_input(bare.input) == "hi"


def test_non_agent_runs_only_get_the_drop_options() -> None:
    run = ScorerRun(input="What is 2+2?", output={"answer": 4}, run_id="r", ground_truth=4)
    new = filter_run(part_types=["text"], max_output_messages=1, drop_ground_truth=True)(run)
    assert (new.input, new.output, new.ground_truth) == ("What is 2+2?", {"answer": 4}, None)
    strings: ScorerRun[list[str], list[str]] = ScorerRun(input=["a", "b"], output=[], run_id="r")
    assert filter_run(max_output_messages=1)(strings) == strings


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_output_messages": -1}, "max_output_messages must be an int >= 0"),
        ({"max_remembered_messages": 1.5}, "got float 1.5"),
        ({"max_remembered_messages": True}, "got bool True"),
        ({"part_types": []}, "part_types is empty"),
        ({"part_types": ["text", 3]}, "part_types must hold non-empty strings"),
        ({"tool_names": 7}, "tool_names must be a list of names or None; got int 7"),
        ({"tool_names": [""]}, "tool_names must hold non-empty strings"),
    ],
)
def test_filter_run_validates_options(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=r"^filter_run: ") as raised:
        filter_run(**options)
    assert message in str(raised.value)


def test_filter_run_is_readable_sync_and_comparable() -> None:
    prepare = filter_run(part_types=("text", "text", "reasoning"), max_output_messages=2)
    text = "filter_run(part_types=['text', 'reasoning'], max_output_messages=2)"
    assert repr(prepare) == prepare.__qualname__ == text
    assert repr(filter_run()) == "filter_run()"
    assert not inspect.iscoroutinefunction(prepare)
    assert prepare == filter_run(part_types=["text", "reasoning"], max_output_messages=2)
    assert prepare != filter_run(part_types=["text"], max_output_messages=2)
    assert prepare.options["tool_names"] is None
