"""Scorers with type="agent": runs arrive in Mastra's agent shapes, helpers read them."""

from __future__ import annotations

import pytest

from scorer_runtime import (
    AgentMessage,
    AgentRunInput,
    Judge,
    PromptStep,
    create_scorer,
    extract_tool_calls,
    filter_run,
    get_assistant_message_from_run_output,
    get_user_message_from_run_input,
)

RUN_INPUT = {
    "inputMessages": [
        {
            "id": "u1",
            "role": "user",
            "content": {"format": 2, "parts": [{"type": "text", "text": "Weather in Lyon?"}]},
        }
    ],
    "rememberedMessages": [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello! How can I help?"},
    ],
    "systemMessages": [{"role": "system", "content": "You are a weather agent."}],
    "taggedSystemMessages": {},
}
RUN_OUTPUT = [
    {
        "id": "a1",
        "role": "assistant",
        "content": {
            "format": 2,
            "parts": [
                {
                    "type": "tool-invocation",
                    "toolInvocation": {
                        "state": "result",
                        "toolCallId": "c1",
                        "toolName": "get_weather",
                        "args": {"city": "Lyon"},
                        "result": {"tempC": 21},
                    },
                },
                {"type": "text", "text": "It is 21 °C in Lyon."},
            ],
        },
    }
]


def _tool_scorer(**options):
    return (
        create_scorer(id="tools", description="Called the weather tool?", type="agent", **options)
        .preprocess(lambda run: extract_tool_calls(run.output).tools)
        .generate_score(lambda results: float("get_weather" in results.preprocess_step_result))
        .generate_reason(
            lambda run, score: f"{get_user_message_from_run_input(run.input)} -> {score}"
        )
    )


def test_agent_runs_are_normalised_to_agent_shapes():
    seen = {}

    def score(run):
        seen["run"] = run
        return 1

    create_scorer(id="a", description="d", type="agent").generate_score(score).run_sync(
        input=RUN_INPUT, output=RUN_OUTPUT
    )
    run = seen["run"]
    assert isinstance(run.input, AgentRunInput)
    assert all(isinstance(m, AgentMessage) for m in run.output)
    assert get_assistant_message_from_run_output(run.output) == "It is 21 °C in Lyon."


def test_tool_call_scorer_on_mastra_shaped_dicts():
    result = _tool_scorer().run_sync(input=RUN_INPUT, output=RUN_OUTPUT)
    assert result.preprocess_step_result == ["get_weather"]
    assert result.score == 1.0
    assert result.reason == "Weather in Lyon? -> 1.0"
    data = result.to_dict()
    assert data["output"][0]["content"]["parts"][0]["type"] == "tool-invocation"


def test_plain_strings_are_accepted_as_agent_messages():
    result = _tool_scorer().run_sync(input="Weather?", output="No idea.")
    assert result.score == 0.0
    assert result.reason == "Weather? -> 0.0"


def test_filter_run_as_prepare_run_limits_what_steps_see():
    seen = {}

    def score(run):
        seen["run"] = run
        return 1

    scorer = create_scorer(
        id="f",
        description="d",
        type="agent",
        prepare_run=filter_run(part_types=["text"], max_remembered_messages=1),
    ).generate_score(score)
    result = scorer.run_sync(input=RUN_INPUT, output=RUN_OUTPUT, request_context={"a": 1})
    run = seen["run"]
    assert len(run.input.remembered_messages) == 1
    assert extract_tool_calls(run.output).tools == []
    assert get_assistant_message_from_run_output(run.output) == "It is 21 °C in Lyon."
    assert len(result.input.remembered_messages) == 1  # the result echoes the prepared run


def test_a_run_that_is_not_agent_shaped_is_a_clear_error():
    scorer = create_scorer(id="bad", description="d", type="agent").generate_score(lambda: 1)
    with pytest.raises(ValueError, match="agent scorer 'bad' cannot read this run"):
        scorer.run_sync(input=RUN_INPUT, output=12345)


def test_agent_prompt_step_sees_messages_through_helpers(fake_judge):
    fake_judge.reply({"score": 0.9}, when="Lyon")
    judge = Judge(
        model="openai/fake-judge",
        instructions="Grade the agent.",
        api_base=fake_judge.base_url,
        api_key="sk-test",
        json_prompt_injection="system",
    )
    scorer = create_scorer(id="p", description="d", type="agent", judge=judge).generate_score(
        PromptStep(
            description="grade",
            create_prompt=lambda run: (
                f"Q: {get_user_message_from_run_input(run.input)}\n"
                f"A: {get_assistant_message_from_run_output(run.output)}"
            ),
            calculate_score=lambda judge_output: judge_output["score"],
        )
    )
    result = scorer.run_sync(input=RUN_INPUT, output=RUN_OUTPUT)
    assert result.score == 0.9
    assert result.generate_score_prompt == "Q: Weather in Lyon?\nA: It is 21 °C in Lyon."
