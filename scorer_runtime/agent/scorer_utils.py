"""Reading agent runs: message text, system prompts, history, tool calls, reasoning.

Names follow Mastra's scorer utils (``@mastra/evals/scorers/utils``) in snake_case. Every
helper accepts the normalised types (used as they are, no re-validation) or raw data in any
shape :func:`to_agent_input` / :func:`to_agent_output` accept; bad shapes raise
:class:`AgentShapeError`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from scorer_runtime.agent.models import (
    AgentMessage,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolInvocation,
    ToolInvocationPart,
    ToolState,
)
from scorer_runtime.agent.normalize import to_agent_input, to_agent_output


def _as_message(message: object) -> AgentMessage:
    if isinstance(message, AgentMessage):
        return message
    return to_agent_output([message])[0]


def get_text_content(message: object) -> str | None:
    """The text of one message: its text parts joined by newlines, else ``content.content``.

    None when the message has neither (e.g. a message holding only tool invocations).
    Accepts an :class:`AgentMessage` or a message dict.
    """
    msg = _as_message(message)
    texts = [part.text for part in msg.content.parts if isinstance(part, TextPart)]
    if texts:
        return "\n".join(texts)
    return msg.content.content


def _first_text(messages: Iterator[AgentMessage]) -> str | None:
    message = next(messages, None)
    return None if message is None else get_text_content(message)


def get_user_message_from_run_input(run_input: object) -> str | None:
    """The text of the first input message with role ``user`` (None when there is none)."""
    messages = to_agent_input(run_input).input_messages
    return _first_text(m for m in messages if m.role == "user")


def get_assistant_message_from_run_output(output: object) -> str | None:
    """The text of the first ``assistant`` message of the output, as Mastra does.

    None when there is no assistant message or it has no text.
    """
    messages = to_agent_output(output)
    return _first_text(m for m in messages if m.role == "assistant")


def get_last_assistant_message(output: object) -> str | None:
    """The text of the last ``assistant`` message of the output (the final answer)."""
    messages = to_agent_output(output)
    return _first_text(m for m in reversed(messages) if m.role == "assistant")


def extract_input_messages(run_input: object) -> list[str]:
    """The text of every input message, in order (``""`` for a message without text)."""
    return [get_text_content(m) or "" for m in to_agent_input(run_input).input_messages]


def extract_agent_response_messages(output: object) -> list[str]:
    """The text of every ``assistant`` message of the output (``""`` when without text)."""
    return [get_text_content(m) or "" for m in to_agent_output(output) if m.role == "assistant"]


def _system_text(message: SystemMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    texts = (p.get("text") for p in message.content if p.get("type") == "text")
    return "\n".join(t for t in texts if isinstance(t, str))


def get_system_messages_from_run_input(run_input: object) -> list[str]:
    """The system prompt texts, in order, empty ones left out.

    First ``system_messages``, then input messages with role ``system`` (as Mastra does),
    then every list of ``tagged_system_messages`` in the dict's order.
    """
    agent_input = to_agent_input(run_input)
    texts = [_system_text(m) for m in agent_input.system_messages]
    texts += [get_text_content(m) or "" for m in agent_input.input_messages if m.role == "system"]
    for messages in agent_input.tagged_system_messages.values():
        texts += [_system_text(m) for m in messages]
    return [text for text in texts if text]


def get_combined_system_prompt(run_input: object) -> str:
    """All system prompt texts (see :func:`get_system_messages_from_run_input`), joined by
    a blank line (``"\\n\\n"``); ``""`` when there are none."""
    return "\n\n".join(get_system_messages_from_run_input(run_input))


def get_conversation_history(run_input: object) -> list[dict[str, str]]:
    """``{"role", "content"}`` for the remembered messages, then the input messages.

    ``content`` is the message text (``""`` for a message without text, e.g. tool calls only).
    """
    agent_input = to_agent_input(run_input)
    messages = [*agent_input.remembered_messages, *agent_input.input_messages]
    return [{"role": m.role, "content": get_text_content(m) or ""} for m in messages]


@dataclass(frozen=True, slots=True)
class ToolCallInfo:
    """One tool call found in an agent's output."""

    tool_name: str
    tool_call_id: str
    args: dict[str, Any]
    result: Any
    state: ToolState
    message_index: int
    """Index of the message in the output."""
    part_index: int | None
    """Index of the part in ``content.parts``; None when only in ``content.tool_invocations``."""

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ToolCalls:
    """What :func:`extract_tool_calls` returns: tool names in call order, and the details."""

    tools: list[str] = field(default_factory=list)
    tool_call_infos: list[ToolCallInfo] = field(default_factory=list)


def _dedupe_key(invocation: ToolInvocation) -> str:
    return invocation.tool_call_id or f"{invocation.tool_name}:{invocation.args!r}"


def _message_invocations(message: AgentMessage) -> list[tuple[ToolInvocation, int | None]]:
    """The message's tool invocations: parts first, then legacy ones not already seen."""
    found: list[tuple[ToolInvocation, int | None]] = [
        (part.tool_invocation, index)
        for index, part in enumerate(message.content.parts)
        if isinstance(part, ToolInvocationPart)
    ]
    seen = {_dedupe_key(invocation) for invocation, _ in found}
    for invocation in message.content.tool_invocations or ():
        key = _dedupe_key(invocation)
        if key not in seen:
            seen.add(key)
            found.append((invocation, None))
    return found


def extract_tool_calls(output: object) -> ToolCalls:
    """Every tool call of the output, in order (message by message, part by part).

    Reads ``tool-invocation`` parts, and also ``content.tool_invocations`` (legacy) for calls
    not already found in the parts of the same message (matched by ``tool_call_id``).
    As in Mastra, only invocations in state ``call`` or ``result`` count: ``partial-call``
    (a call still being streamed) is left out.
    """
    infos = [
        ToolCallInfo(
            tool_name=invocation.tool_name,
            tool_call_id=invocation.tool_call_id,
            args=invocation.args,
            result=invocation.result,
            state=invocation.state,
            message_index=message_index,
            part_index=part_index,
        )
        for message_index, message in enumerate(to_agent_output(output))
        for invocation, part_index in _message_invocations(message)
        if invocation.state != "partial-call"
    ]
    return ToolCalls(tools=[info.tool_name for info in infos], tool_call_infos=infos)


def get_tool_results(output: object) -> list[ToolCallInfo]:
    """The tool calls of the output that have a result (state ``result``), in order."""
    return [info for info in extract_tool_calls(output).tool_call_infos if info.state == "result"]


def _reasoning_text(part: ReasoningPart) -> str:
    if part.details:
        texts = (d.get("text") for d in part.details if d.get("type") == "text")
        return "".join(t for t in texts if isinstance(t, str))
    return part.reasoning


def get_reasoning_from_run_output(output: object) -> str | None:
    """The reasoning of the first ``assistant`` message, as Mastra reads it.

    ``content.reasoning`` when set; else the ``reasoning`` parts, each taken from the text
    entries of its ``details`` (concatenated) or else its ``reasoning`` string, joined by
    newlines. None when there is no assistant message or no reasoning.
    """
    messages = to_agent_output(output)
    message = next((m for m in messages if m.role == "assistant"), None)
    if message is None:
        return None
    if message.content.reasoning:
        return message.content.reasoning
    parts = (p for p in message.content.parts if isinstance(p, ReasoningPart))
    texts = [text for text in map(_reasoning_text, parts) if text]
    return "\n".join(texts) if texts else None
