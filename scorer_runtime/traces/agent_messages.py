"""Turning chat messages read from spans into Mastra's stored message shape (format 2).

Tool calls become ``tool-invocation`` parts; a later tool result with the same call id is
folded into its call (state ``result``), as Mastra stores an answered tool call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from scorer_runtime.agent import AgentMessage, Role, ToolState
from scorer_runtime.traces.span_messages import ChatMessage, ChatPart

_ROLES: dict[str, Role] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "tool": "tool",
    "developer": "system",
    "model": "assistant",
}
SYSTEM_ROLES = frozenset({"system", "developer"})


def tool_args(value: Any) -> dict[str, Any]:
    """Tool arguments as the dict a tool invocation holds (anything else under ``input``)."""
    if isinstance(value, Mapping):
        return dict(value)
    return {} if value is None else {"input": value}


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """One tool call of an agent run, with its answer when there is one."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    state: ToolState
    result: Any
    at: datetime
    """When the call happened (orders the calls)."""

    def invocation(self) -> dict[str, Any]:
        """The ``toolInvocation`` dict of a message part."""
        out: dict[str, Any] = {
            "state": self.state,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "args": self.args,
        }
        if self.state == "result":
            out["result"] = self.result
        return out


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _reasoning_part(text: str) -> dict[str, Any]:
    return {"type": "reasoning", "reasoning": text, "details": [{"type": "text", "text": text}]}


def _part(part: ChatPart, open_calls: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if part.kind == "text":
        return _text_part(part.text or "")
    if part.kind == "reasoning":
        return _reasoning_part(part.text or "")
    if part.kind == "tool_call":
        invocation: dict[str, Any] = {
            "state": "call",
            "toolCallId": part.tool_call_id or "",
            "toolName": part.tool_name or "unknown",
            "args": tool_args(part.arguments),
        }
        if part.tool_call_id:
            open_calls[part.tool_call_id] = invocation
        return {"type": "tool-invocation", "toolInvocation": invocation}
    if part.kind == "tool_result":
        # A result whose call is not in these messages: kept as recorded, not dropped.
        return {
            "type": "tool-result",
            "toolCallId": part.tool_call_id,
            "toolName": part.tool_name,
            "result": part.result,
        }
    raw = dict(part.raw or {})
    return raw if isinstance(raw.get("type"), str) else {**raw, "type": "other"}


def message(
    role: Role, parts: list[dict[str, Any]], created_at: datetime | None, **content: Any
) -> AgentMessage:
    """A stored message from part dicts; ``content.content`` mirrors the text, as Mastra does."""
    texts = [p["text"] for p in parts if p.get("type") == "text" and p.get("text")]
    body: dict[str, Any] = {"format": 2, "parts": parts, **content}
    if texts:
        body["content"] = "\n".join(texts)
    data: dict[str, Any] = {"role": role, "content": body}
    if created_at is not None:
        data["createdAt"] = created_at
    return AgentMessage.model_validate(data)


def to_agent_messages(
    messages: Iterable[ChatMessage], created_at: datetime | None
) -> list[AgentMessage]:
    """Chat messages as stored agent messages; tool results folded into their calls.

    Messages with a role Mastra does not know are left out, as are tool messages whose
    every result was folded into a call.
    """
    built: list[tuple[Role, list[dict[str, Any]]]] = []
    open_calls: dict[str, dict[str, Any]] = {}
    for chat in messages:
        role = _ROLES.get(chat.role.lower())
        if role is None:
            continue
        parts = []
        for part in chat.parts:
            call_id = part.tool_call_id or ""
            if part.kind == "tool_result" and call_id in open_calls:
                open_calls.pop(call_id).update(state="result", result=part.result)
                continue
            parts.append(_part(part, open_calls))
        if parts:
            built.append((role, parts))
    return [message(role, parts, created_at) for role, parts in built]


def response_message(
    text: str, calls: list[ToolCallRecord], reasoning: list[str], created_at: datetime | None
) -> AgentMessage:
    """The agent's response as one assistant message: reasoning, tool invocations, text.

    Like Mastra's own trace conversion, the legacy ``content.content`` and
    ``content.toolInvocations`` mirror the text and the calls.
    """
    parts = [_reasoning_part(r) for r in reasoning]
    parts += [{"type": "tool-invocation", "toolInvocation": c.invocation()} for c in calls]
    if text:
        parts.append(_text_part(text))
    extra = {"toolInvocations": [c.invocation() for c in calls]} if calls else {}
    return message("assistant", parts, created_at, **extra)
