"""Reading the chat messages a span recorded, whatever shape the tracer used.

Understood shapes: OpenTelemetry GenAI messages (``{"role", "parts": [{"type": "text",
"content"}, {"type": "tool_call", "id", "name", "arguments"}, {"type":
"tool_call_response", "id", "response"}]}``), AI SDK / Mastra messages (``{"role",
"content": "..." | [{"type": "text", "text"}, {"type": "tool-call", "toolCallId",
"toolName", "input"}, {"type": "tool-result", ..., "output"}]}``), OpenAI chat messages
(``tool_calls``, ``tool_call_id``), ``{"messages": [...]}`` and Mastra's ``{"text": ...,
"toolCalls": [...]}`` outputs. They all become :class:`ChatMessage`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from scorer_runtime.traces.values import decode_json_text, first_text

PartKind: TypeAlias = Literal["text", "reasoning", "tool_call", "tool_result", "other"]

_TOOL_CALL_TYPES = frozenset({"tool_call", "tool-call", "function_call"})
_TOOL_RESULT_TYPES = frozenset({"tool_call_response", "tool-result", "function_call_output"})
_AI_SDK_OUTPUT_TYPES = frozenset({"json", "text", "error-json", "error-text", "content"})


@dataclass(frozen=True, slots=True)
class ChatPart:
    """One part of a chat message: text, reasoning, a tool call or a tool result."""

    kind: PartKind
    text: str | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    arguments: Any = None
    result: Any = None
    raw: Mapping[str, Any] | None = None
    """The part as recorded, for kinds this reader does not interpret."""


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """A chat message in a format-neutral shape."""

    role: str
    parts: tuple[ChatPart, ...]

    @property
    def text(self) -> str:
        """The text parts joined by newlines."""
        return "\n".join(p.text for p in self.parts if p.kind == "text" and p.text)


def read_messages(value: Any, *, default_role: str) -> list[ChatMessage]:
    """The messages in ``value``; a bare string is one message from ``default_role``.

    Anything not recognisable as messages gives ``[]``.
    """
    if value is None:
        return []
    if isinstance(value, str):
        return [ChatMessage(default_role, (ChatPart("text", text=value),))] if value else []
    if isinstance(value, Mapping):
        if isinstance(value.get("messages"), list):
            return read_messages(value["messages"], default_role=default_role)
        if "role" in value:
            return [_message(value)]
        if "text" in value or "toolCalls" in value:
            return [_mastra_output(value)]
        return []
    if isinstance(value, list):
        messages: list[ChatMessage] = []
        for item in value:
            if isinstance(item, str) and item:
                messages.append(ChatMessage(default_role, (ChatPart("text", text=item),)))
            elif isinstance(item, Mapping) and "role" in item:
                messages.append(_message(item))
        return messages
    return []


def _message(raw: Mapping[str, Any]) -> ChatMessage:
    role = str(raw.get("role") or "user")
    parts = _parts_of(raw.get("parts"))
    content = raw.get("content")
    if isinstance(content, str) and content:
        if role == "tool" and raw.get("tool_call_id"):  # OpenAI's tool message
            result = decode_json_text(content)
            parts.append(
                ChatPart("tool_result", tool_call_id=str(raw["tool_call_id"]), result=result)
            )
        else:
            parts.append(ChatPart("text", text=content))
    elif isinstance(content, list):
        parts += _parts_of(content)
    elif isinstance(content, Mapping):  # Mastra's stored content: {"format": 2, "parts": ...}
        parts += _parts_of(content.get("parts")) or _parts_of(content.get("content"))
    parts += _openai_tool_calls(raw.get("tool_calls"))
    return ChatMessage(role, tuple(parts))


def _openai_tool_calls(calls: Any) -> list[ChatPart]:
    """OpenAI's ``tool_calls``: ``[{"id", "function": {"name", "arguments"}}]``."""
    parts = []
    for call in calls if isinstance(calls, list) else ():
        function = call.get("function") if isinstance(call, Mapping) else None
        if isinstance(function, Mapping):
            parts.append(
                ChatPart(
                    "tool_call",
                    tool_call_id=first_text(call, "id"),
                    tool_name=first_text(function, "name"),
                    arguments=decode_json_text(function.get("arguments")),
                )
            )
    return parts


def _parts_of(value: Any) -> list[ChatPart]:
    if isinstance(value, str):
        return [ChatPart("text", text=value)] if value else []
    if not isinstance(value, list):
        return []
    return [part for raw in value for part in _part(raw)]


def _part(raw: Any) -> list[ChatPart]:
    """The parts one recorded part stands for (a stored, answered tool call is two)."""
    if isinstance(raw, str):
        return [ChatPart("text", text=raw)]
    if not isinstance(raw, Mapping):
        return [ChatPart("other", raw={"value": raw})]
    kind = raw.get("type") if isinstance(raw.get("type"), str) else None
    if kind == "text":
        return [ChatPart("text", text=first_text(raw, "content", "text") or "")]
    if kind == "reasoning":
        return [ChatPart("reasoning", text=first_text(raw, "content", "text", "reasoning") or "")]
    if kind in _TOOL_CALL_TYPES:
        return [
            ChatPart(
                "tool_call",
                tool_call_id=first_text(raw, "id", "toolCallId", "call_id"),
                tool_name=first_text(raw, "name", "toolName"),
                arguments=decode_json_text(_first_present(raw, "arguments", "input", "args")),
            )
        ]
    if kind in _TOOL_RESULT_TYPES:
        return [
            ChatPart(
                "tool_result",
                tool_call_id=first_text(raw, "id", "toolCallId", "call_id"),
                tool_name=first_text(raw, "name", "toolName"),
                result=_tool_output(_first_present(raw, "response", "output", "result")),
            )
        ]
    if kind == "tool-invocation" and isinstance(raw.get("toolInvocation"), Mapping):
        return _stored_invocation(raw["toolInvocation"])
    if kind == "step-start":
        return []
    return [ChatPart("other", raw=dict(raw))]


def _stored_invocation(invocation: Mapping[str, Any]) -> list[ChatPart]:
    """Mastra's stored ``toolInvocation``: the call, and its result once answered."""
    call_id = first_text(invocation, "toolCallId")
    name = first_text(invocation, "toolName")
    call = ChatPart(
        "tool_call", tool_call_id=call_id, tool_name=name, arguments=invocation.get("args")
    )
    if invocation.get("state") != "result":
        return [call]
    answer = ChatPart(
        "tool_result", tool_call_id=call_id, tool_name=name, result=invocation.get("result")
    )
    return [call, answer]


def _first_present(raw: Mapping[str, Any], *keys: str) -> Any:
    return next((raw[k] for k in keys if raw.get(k) is not None), None)


def _tool_output(value: Any) -> Any:
    """A tool's answer: AI SDK 5 wraps it as ``{"type": "json", "value": ...}``."""
    if isinstance(value, Mapping) and "value" in value:
        wrapper = value.get("type")
        if isinstance(wrapper, str) and wrapper in _AI_SDK_OUTPUT_TYPES:
            value = value["value"]
    return decode_json_text(value)


def _mastra_output(raw: Mapping[str, Any]) -> ChatMessage:
    """Mastra's model / agent output object: ``{"text", "reasoning", "toolCalls", ...}``."""
    parts: list[ChatPart] = []
    reasoning = raw.get("reasoningText") or raw.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        parts.append(ChatPart("reasoning", text=reasoning))
    elif isinstance(reasoning, list):
        read = [p for p in _parts_of(reasoning) if p.kind in ("reasoning", "text") and p.text]
        parts += [ChatPart("reasoning", text=p.text) for p in read]
    if isinstance(raw.get("text"), str) and raw["text"]:
        parts.append(ChatPart("text", text=raw["text"]))
    calls = raw.get("toolCalls")
    for call in calls if isinstance(calls, list) else ():
        if isinstance(call, Mapping):
            parts.append(
                ChatPart(
                    "tool_call",
                    tool_call_id=first_text(call, "toolCallId", "id"),
                    tool_name=first_text(call, "toolName", "name"),
                    arguments=decode_json_text(_first_present(call, "args", "input", "arguments")),
                )
            )
    return ChatMessage("assistant", tuple(parts))
