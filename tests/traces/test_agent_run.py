"""trace_to_agent_run: the run an agent scorer sees, read from OTLP or Mastra spans."""

from __future__ import annotations

from scorer_runtime.agent import (
    AgentRunInput,
    ReasoningPart,
    TextPart,
    ToolInvocationPart,
    extract_tool_calls,
    get_assistant_message_from_run_output,
    get_combined_system_prompt,
    get_conversation_history,
    get_reasoning_from_run_output,
    get_tool_results,
    get_user_message_from_run_input,
)
from scorer_runtime.traces import (
    AgentRunTarget,
    NotScorableTarget,
    SpanTarget,
    trace_to_agent_run,
    trace_to_span_run,
    trace_to_target,
)

from .conftest import HTTP_TRACE, WEATHER_TRACE

QUESTION = "Lyon, tomorrow. What's the weather going to be, and should I pack an umbrella?"
FINAL = (
    "Tomorrow (Friday 13 June) Lyon will be cool and wet: 12–17 °C with rain most of the day "
    "(about 6 mm, 85 % chance). Yes, pack an umbrella and a light waterproof jacket."
)


def _run(trace, span_id=None) -> AgentRunTarget:
    target = trace_to_agent_run(trace, span_id)
    assert isinstance(target, AgentRunTarget), target
    return target


def test_the_same_conversation_from_otlp_and_from_mastra_gives_the_same_run(
    weather_otlp, weather_mastra
):
    from_otlp, from_mastra = _run(weather_otlp), _run(weather_mastra)
    assert from_otlp.input == from_mastra.input
    assert from_otlp.output == from_mastra.output
    assert from_otlp.input.to_dict(camel=True, mode="json") == from_mastra.input.to_dict(
        camel=True, mode="json"
    )
    assert (from_otlp.trace_id, from_otlp.span_id) == (WEATHER_TRACE, "b7ad6b7169203331")
    assert from_mastra.span_id == "b7ad6b7169203331"


def test_the_agent_input(weather_mastra):
    run_input = _run(weather_mastra).input
    assert isinstance(run_input, AgentRunInput)
    assert get_user_message_from_run_input(run_input) == QUESTION
    assert get_conversation_history(run_input) == [
        {"role": "user", "content": "Hi! I'm planning a trip to France next week."},
        {
            "role": "assistant",
            "content": "Lovely! Which city are you visiting, and which day do you need the "
            "forecast for?",
        },
        {"role": "user", "content": QUESTION},
    ]
    # The agent's instructions and the model's system message are the same text: once.
    assert get_combined_system_prompt(run_input) == (
        "You are a helpful travel weather assistant. Use the tools to look up real data; "
        "answer in one or two sentences and say whether to pack an umbrella."
    )
    assert run_input.input_messages[0].created_at.isoformat() == "2025-06-12T09:15:02.100000+00:00"


def test_tool_calls_nested_under_model_steps_are_found(weather_mastra):
    # Mastra puts tool spans under model_step spans: Mastra's own conversion reads only the
    # agent span's direct children and would find no tool call here.
    agent = weather_mastra.of_type("agent_run")[0]
    assert not [s for s in weather_mastra.children(agent) if s.type == "tool_call"]
    assert {weather_mastra.parent(t).source_type for t in weather_mastra.of_type("tool_call")} == {
        "model_step"
    }
    (message,) = _run(weather_mastra).output
    calls = extract_tool_calls([message])
    assert calls.tools == ["geocode", "get_weather"]
    assert [(c.tool_call_id, c.state, c.args) for c in calls.tool_call_infos] == [
        ("call_geo_1", "result", {"query": "Lyon, France"}),
        ("call_wx_2", "result", {"lat": 45.764, "lon": 4.8357, "date": "2025-06-13"}),
    ]
    assert get_tool_results([message])[1].result["chanceOfRainPct"] == 85
    assert get_assistant_message_from_run_output([message]) == FINAL
    assert message.role == "assistant"
    assert [type(p) for p in message.content.parts] == [
        ToolInvocationPart,
        ToolInvocationPart,
        TextPart,
    ]
    # Mastra's legacy mirrors are filled as its own trace conversion fills them.
    assert message.content.content == FINAL
    assert [i.tool_name for i in message.content.tool_invocations] == ["geocode", "get_weather"]


def test_a_multi_step_agent_with_a_failed_and_retried_tool(support_traces):
    target = _run(support_traces[0])
    calls = extract_tool_calls(target.output).tool_call_infos
    assert [(c.tool_name, c.tool_call_id) for c in calls] == [
        ("lookup_order", "call_lk"),
        # Not instrumented: no tool span; the call is the model's request and the result
        # what the next model step was told.
        ("cancel_order", "call_cx"),
        ("issue_refund", "call_rf1"),
        ("issue_refund", "call_rf2"),
    ]
    assert calls[1].result == {"order_id": "4821", "cancelled": True}
    # The failed call keeps what the agent saw: the error the model was given.
    assert calls[2].result == "Error: payment gateway timeout (upstream 504)"
    assert calls[3].result == {"refund_id": "rf_993", "status": "pending"}
    assert get_reasoning_from_run_output(target.output) == "The refund timed out; retry once."
    assert isinstance(target.output[0].content.parts[0], ReasoningPart)
    assert get_assistant_message_from_run_output(target.output).startswith(
        "Done: order 4821 is cancelled"
    )
    assert target.input.remembered_messages == []


def test_a_model_call_without_an_agent_is_a_one_step_run(support_traces):
    target = _run(support_traces[1])
    assert get_user_message_from_run_input(target.input).startswith("Ticket #88")
    assert get_combined_system_prompt(target.input) == "Summarise support tickets in one sentence."
    assert get_assistant_message_from_run_output(target.output) == (
        "Order 4821 cancelled at the customer's request; card refund rf_993 is pending."
    )


def test_a_trace_without_agent_or_model_spans_is_not_scorable(http_only):
    target = trace_to_agent_run(http_only)
    assert target == NotScorableTarget(
        HTTP_TRACE,
        None,
        "the trace has no agent_run or model_generation span, so there is no agent run to "
        "score (its 3 spans: 'GET /api/orders/{id}' (other), 'SELECT shop.orders' (other), "
        "'GET' (other))",
    )


def test_asking_for_a_span_that_is_missing_or_not_a_run(weather_mastra):
    missing = trace_to_agent_run(weather_mastra, "deadbeef")
    assert missing.reason == f"trace '{WEATHER_TRACE}' has no span 'deadbeef'"
    tool = trace_to_agent_run(weather_mastra, "a1b2c3d4e5f60718")
    assert isinstance(tool, NotScorableTarget)
    assert tool.reason == (
        "span \"tool: 'geocode'\" (a1b2c3d4e5f60718) is a tool_call span; an agent run is "
        "read from an agent_run or model_generation span"
    )
    model = _run(weather_mastra, "00f067aa0ba902b7")
    assert model.span_id == "00f067aa0ba902b7"
    assert extract_tool_calls(model.output).tools == ["geocode", "get_weather"]


def test_an_agent_without_input_or_output_is_not_scorable(mastra_trace, mastra_span):
    no_input = mastra_trace(mastra_span("a", "agent_run", "00:01", output={"text": "Hello"}))
    assert trace_to_agent_run(no_input).reason == (
        "agent span 'agent_run a' has no input messages, and no model span under it records them"
    )
    failed = mastra_trace(
        mastra_span("a", "agent_run", "00:01", input="Hi", errorInfo={"message": "rate limited"})
    )
    assert trace_to_agent_run(failed).reason == (
        "agent span 'agent_run a' has no output: no response text and no tool calls; "
        "it failed: rate limited"
    )


def test_remembered_tool_calls_are_folded_into_one_answered_invocation(mastra_trace, mastra_span):
    history = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Stock of SKU 7?"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool-call", "toolCallId": "c1", "toolName": "stock", "input": {"sku": 7}}
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "toolName": "stock",
                    "output": {"type": "json", "value": {"units": 3}},
                }
            ],
        },
        {"role": "assistant", "content": "3 units."},
        {"role": "user", "content": "And SKU 8?"},
    ]
    trace = mastra_trace(
        mastra_span(
            "a",
            "agent_run",
            "00:01",
            end="00:09",
            input="And SKU 8?",
            output={"text": "None left."},
        ),
        mastra_span(
            "m", "model_generation", "00:02", parentSpanId="a", input={"messages": history}
        ),
    )
    run_input = _run(trace).input
    remembered = run_input.remembered_messages
    assert [m.role for m in remembered] == ["user", "assistant", "assistant"]
    invocation = remembered[1].content.parts[0].tool_invocation
    assert (invocation.state, invocation.args, invocation.result) == (
        "result",
        {"sku": 7},
        {"units": 3},
    )
    assert get_combined_system_prompt(run_input) == "Be brief."


def test_a_nested_agent_is_a_run_of_its_own(mastra_trace, mastra_span):
    trace = mastra_trace(
        mastra_span(
            "a", "agent_run", "00:01", end="00:09", input="Plan my day", output={"text": "Done."}
        ),
        mastra_span(
            "t",
            "tool_call",
            "00:02",
            end="00:06",
            parentSpanId="a",
            entityName="ask_helper",
            input={"q": "weather"},
            output={"answer": "sunny"},
        ),
        mastra_span(
            "h",
            "agent_run",
            "00:03",
            end="00:05",
            parentSpanId="t",
            input="weather?",
            output={"text": "sunny"},
        ),
        mastra_span(
            "ht",
            "tool_call",
            "00:04",
            parentSpanId="h",
            entityName="get_weather",
            input={},
            output={"sky": "clear"},
        ),
    )
    outer, inner = _run(trace), _run(trace, "h")
    assert extract_tool_calls(outer.output).tools == ["ask_helper"]
    assert extract_tool_calls(inner.output).tools == ["get_weather"]
    assert get_user_message_from_run_input(inner.input) == "weather?"
    # A tool span without a call id is named by its span id.
    assert extract_tool_calls(outer.output).tool_call_infos[0].tool_call_id == "t"


def test_targets_for_scorers_that_are_not_agent_scorers(weather_mastra, http_only):
    target = trace_to_span_run(weather_mastra)
    assert isinstance(target, SpanTarget)
    agent = weather_mastra.of_type("agent_run")[0]
    assert (target.span_id, target.input, target.output) == (
        agent.span_id,
        agent.input,
        agent.output,
    )
    tool = trace_to_target(weather_mastra, agent=False, span_id="a1b2c3d4e5f60718")
    assert (tool.input, tool.output["name"]) == ({"query": "Lyon, France"}, "Lyon")
    nothing = trace_to_span_run(http_only)
    assert nothing.reason == "span 'GET /api/orders/{id}' (other) recorded neither input nor output"
    assert trace_to_span_run(http_only, "nope").reason == f"trace '{HTTP_TRACE}' has no span 'nope'"
    assert isinstance(trace_to_target(weather_mastra, agent=True), AgentRunTarget)
    assert target.run_kwargs()["trace_id"] == WEATHER_TRACE
