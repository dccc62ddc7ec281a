"""filter_run: dropping fields, keeping part types and tools, limits, never mutating."""

from __future__ import annotations

import copy
import inspect
from typing import Any

import pytest

from scorer_runtime.agent import (
    AgentMessage,
    AgentRunInput,
    extract_tool_calls,
    filter_run,
    get_assistant_message_from_run_output,
    get_conversation_history,
    get_reasoning_from_run_output,
    get_text_content,
    get_tool_results,
    get_user_message_from_run_input,
)
from scorer_runtime.run import ScorerRun
from tests.agent.agent_fixtures import (
    CAMEL_INPUT,
    CAMEL_OUTPUT,
    FORECAST,
    LEGACY_OUTPUT,
    make_run,
)

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
