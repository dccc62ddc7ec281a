"""Agent scorer types and helpers: what a ``type="agent"`` scorer sees, and how to read it
(``readable`` shows a run to a person: turns, tool calls and answers).

Python equivalents of Mastra's ``ScorerRunInputForAgent`` / ``ScorerRunOutputForAgent``
(:class:`AgentRunInput`, ``list[AgentMessage]``), its scorer utils
(``get_user_message_from_run_input``, ``extract_tool_calls``, ...) and ``filterRun``
(:func:`filter_run`).
"""

from __future__ import annotations

from scorer_runtime.agent.filter import RunFilter, filter_run
from scorer_runtime.agent.models import (
    AgentMessage,
    AgentModel,
    AgentRunInput,
    MessageContent,
    MessagePart,
    OtherPart,
    ReasoningPart,
    Role,
    StepStartPart,
    SystemMessage,
    TextPart,
    ToolInvocation,
    ToolInvocationPart,
    ToolState,
)
from scorer_runtime.agent.normalize import AgentShapeError, to_agent_input, to_agent_output
from scorer_runtime.agent.scorer_utils import (
    ToolCallInfo,
    ToolCalls,
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
)

__all__ = [
    "AgentMessage",
    "AgentModel",
    "AgentRunInput",
    "AgentShapeError",
    "MessageContent",
    "MessagePart",
    "OtherPart",
    "ReasoningPart",
    "Role",
    "RunFilter",
    "StepStartPart",
    "SystemMessage",
    "TextPart",
    "ToolCallInfo",
    "ToolCalls",
    "ToolInvocation",
    "ToolInvocationPart",
    "ToolState",
    "extract_agent_response_messages",
    "extract_input_messages",
    "extract_tool_calls",
    "filter_run",
    "get_assistant_message_from_run_output",
    "get_combined_system_prompt",
    "get_conversation_history",
    "get_last_assistant_message",
    "get_reasoning_from_run_output",
    "get_system_messages_from_run_input",
    "get_text_content",
    "get_tool_results",
    "get_user_message_from_run_input",
    "to_agent_input",
    "to_agent_output",
]
