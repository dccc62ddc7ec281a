"""Turning what a caller passes into the agent types, with clear errors on other shapes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from scorer_runtime.agent.models import (
    AgentMessage,
    AgentRunInput,
    MessageContent,
    Role,
    TextPart,
)

M = TypeVar("M", bound=BaseModel)

INPUT_KEYS = frozenset(
    {
        "inputMessages",
        "input_messages",
        "rememberedMessages",
        "remembered_messages",
        "systemMessages",
        "system_messages",
        "taggedSystemMessages",
        "tagged_system_messages",
    }
)
"""The keys that make a dict an agent run input (camelCase or snake_case)."""

INPUT_EXPECTED = (
    "an AgentRunInput, a dict with inputMessages / rememberedMessages / systemMessages / "
    "taggedSystemMessages (camelCase or snake_case), a message (AgentMessage or a dict with "
    "'role' and 'content'), a list of messages, or a string"
)
OUTPUT_EXPECTED = (
    "a list of messages (AgentMessage, dicts with 'role' and 'content', or strings), "
    "a single message, or a string"
)


class AgentShapeError(ValueError):
    """A value is not in (and cannot be normalised to) the agent input or output shape."""


def short_repr(value: object, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shape_error(where: str, expected: str, value: object, detail: str = "") -> AgentShapeError:
    got = f"{type(value).__name__} {short_repr(value)}"
    suffix = f": {detail}" if detail else ""
    return AgentShapeError(f"{where}: expected {expected}; got {got}{suffix}")


def _errors_summary(error: ValidationError, limit: int = 3) -> str:
    errors = error.errors(include_url=False)
    lines = [
        f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
        for err in errors[:limit]
    ]
    more = f" (and {len(errors) - limit} more)" if len(errors) > limit else ""
    return "; ".join(lines) + more


def _validate(model: type[M], data: object, where: str, expected: str) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise _shape_error(where, expected, data, _errors_summary(error)) from error


def is_message_like(value: object) -> bool:
    """True for an :class:`AgentMessage` or a mapping with a ``role`` key."""
    return isinstance(value, AgentMessage) or (isinstance(value, Mapping) and "role" in value)


def to_agent_input(value: object) -> AgentRunInput:
    """Normalise ``value`` to an :class:`AgentRunInput`.

    Accepts an ``AgentRunInput`` (returned as is, not re-validated), a dict with any of the
    input keys in camelCase or snake_case, a single message or string (becomes the one input
    message, a string as a user message), or a list of messages / strings (the input
    messages). Raises :class:`AgentShapeError` (a ``ValueError``) on anything else.
    """
    if isinstance(value, AgentRunInput):
        return value
    where = "to_agent_input"
    if isinstance(value, str) or is_message_like(value):
        return _validate(AgentRunInput, {"input_messages": [value]}, where, INPUT_EXPECTED)
    if isinstance(value, list | tuple):
        return _validate(AgentRunInput, {"input_messages": list(value)}, where, INPUT_EXPECTED)
    if isinstance(value, Mapping) and INPUT_KEYS.intersection(value):
        return _validate(AgentRunInput, dict(value), where, INPUT_EXPECTED)
    detail = f"keys {sorted(map(str, value))}" if isinstance(value, Mapping) else ""
    raise _shape_error(where, INPUT_EXPECTED, value, detail)


def text_message(text: str, role: Role) -> AgentMessage:
    """A message with one text part."""
    return AgentMessage(role=role, content=MessageContent(parts=[TextPart(text=text)]))


def _output_message(item: object, index: int) -> AgentMessage:
    if isinstance(item, AgentMessage):
        return item
    if isinstance(item, str):
        return text_message(item, "assistant")
    where = f"to_agent_output (message {index})"
    if isinstance(item, Mapping):
        return _validate(AgentMessage, item, where, OUTPUT_EXPECTED)
    raise _shape_error(where, OUTPUT_EXPECTED, item)


def to_agent_output(value: object) -> list[AgentMessage]:
    """Normalise ``value`` to a list of :class:`AgentMessage` (Mastra's agent output).

    Accepts a list (or tuple) of messages, where a dict is validated and a string becomes an
    assistant text message; a single message or string (a one-item list). A list that
    already holds only ``AgentMessage`` objects is returned as is (not copied, not
    re-validated). Raises :class:`AgentShapeError` (a ``ValueError``) on anything else.
    """
    if isinstance(value, list) and all(isinstance(m, AgentMessage) for m in value):
        return value
    items: Sequence[object]
    if isinstance(value, list | tuple):
        items = value
    elif isinstance(value, str) or is_message_like(value):
        items = [value]
    else:
        raise _shape_error("to_agent_output", OUTPUT_EXPECTED, value)
    return [_output_message(item, i) for i, item in enumerate(items)]
