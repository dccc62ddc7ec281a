"""An agent run as a person reads it: who said what, which tools the agent called with what,
and what came back — one line per turn, for people grading or looking at a run (never what a
scorer reads: the steps read the messages themselves).

``readable_run`` gives ``None`` for a value that is not an agent run's input or output, so a
caller shows it as it is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from scorer_runtime.agent.models import (
    AgentMessage,
    ReasoningPart,
    TextPart,
    ToolInvocationPart,
)
from scorer_runtime.agent.normalize import (
    INPUT_KEYS,
    AgentShapeError,
    to_agent_input,
    to_agent_output,
)
from scorer_runtime.agent.scorer_utils import get_system_messages_from_run_input, get_text_content

ROLE_WORDS = {"user": "User", "assistant": "Agent", "system": "System", "tool": "Tool"}
MAX_VALUE_CHARS = 300
"""A tool's arguments or answer longer than this is cut, with "…"."""


def readable_run(value: Any) -> str | None:
    """An agent run's input (its messages, system prompt first) or output (its messages and
    tool calls) as lines to read; None when ``value`` is neither."""
    try:
        if isinstance(value, Mapping) and INPUT_KEYS.intersection(value):
            return "\n\n".join(_input_lines(value)) or None
        if _messages(value):
            return "\n\n".join(_output_lines(to_agent_output(value))) or None
    except (AgentShapeError, ValueError):  # shaped almost like a run: shown as it is
        return None
    return None


def _messages(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(m, Mapping) and "role" in m for m in value)
    )


def _input_lines(value: Mapping[str, Any]) -> list[str]:
    run_input = to_agent_input(value)
    lines = [f"System: {text}" for text in get_system_messages_from_run_input(value)]
    for message in (*run_input.remembered_messages, *run_input.input_messages):
        if message.role != "system":
            lines += _message_lines(message)
    return lines


def _output_lines(messages: list[AgentMessage]) -> list[str]:
    return [line for message in messages for line in _message_lines(message)]


def _message_lines(message: AgentMessage) -> list[str]:
    who = ROLE_WORDS.get(message.role, message.role.capitalize())
    lines: list[str] = []
    for part in message.content.parts:
        if isinstance(part, TextPart) and part.text.strip():
            lines.append(f"{who}: {part.text}")
        elif isinstance(part, ReasoningPart) and part.reasoning.strip():
            lines.append(f"{who} (thinking): {part.reasoning}")
        elif isinstance(part, ToolInvocationPart):
            lines.append(_tool_line(part))
    if not lines and (text := get_text_content(message)):
        lines.append(f"{who}: {text}")
    return lines


def _tool_line(part: ToolInvocationPart) -> str:
    call = part.tool_invocation
    args = ", ".join(f"{name}: {_short(value, quote=True)}" for name, value in call.args.items())
    line = f"→ Called {call.tool_name}({args})"
    if call.state == "result":
        line += f"\n← {call.tool_name} answered: {_short(call.result)}"
    else:
        line += "\n← (no answer recorded)"
    return line


def _short(value: Any, *, quote: bool = False) -> str:
    plain = isinstance(value, str) and not quote
    text = value if plain else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"
