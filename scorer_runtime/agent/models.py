"""Mastra's agent scorer types: stored messages (format 2) and the agent run input.

Every model keeps unknown keys (``extra="allow"``), accepts snake_case and Mastra's camelCase
keys, and serialises back to plain dicts with :meth:`AgentModel.to_dict`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

Role: TypeAlias = Literal["user", "assistant", "system", "tool"]
"""Who wrote a stored message."""

ToolState: TypeAlias = Literal["call", "partial-call", "result"]
"""How far a tool invocation got: streamed in part, called, or answered."""


class AgentModel(BaseModel):
    """Base of the agent types: extra keys kept, snake_case or camelCase keys accepted."""

    model_config = ConfigDict(
        extra="allow",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
    )
    _always_dumped: ClassVar[tuple[str, ...]] = ()
    """Fields with defaults that are part of the shape, so they are dumped even when defaulted."""

    def model_post_init(self, context: Any, /) -> None:
        """Mark the shape-defining defaults as set, so ``to_dict`` always includes them."""
        self.__pydantic_fields_set__.update(self._always_dumped)

    def to_dict(
        self, *, camel: bool = False, mode: Literal["python", "json"] = "python"
    ) -> dict[str, Any]:
        """Plain data: the keys that were given (or define the shape), nested models as dicts.

        ``camel=True`` uses Mastra's camelCase keys (extra keys keep their own spelling).
        ``mode="json"`` gives JSON-ready values (e.g. ``created_at`` as an ISO string).
        """
        return self.model_dump(mode=mode, by_alias=camel, exclude_unset=True)


class ToolInvocation(AgentModel):
    """One tool call as stored in a message (``toolInvocation`` / ``toolInvocations[i]``)."""

    state: ToolState
    tool_call_id: str
    tool_name: str
    args: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    """The tool's answer; only meaningful when ``state == "result"``."""


class TextPart(AgentModel):
    """``{"type": "text", "text": ...}``."""

    _always_dumped = ("type",)
    type: Literal["text"] = "text"
    text: str


class ReasoningPart(AgentModel):
    """``{"type": "reasoning", "reasoning": ..., "details": [{"type": "text", "text": ...}]}``."""

    _always_dumped = ("type",)
    type: Literal["reasoning"] = "reasoning"
    reasoning: str = ""
    details: list[dict[str, Any]] = Field(default_factory=list)


class ToolInvocationPart(AgentModel):
    """``{"type": "tool-invocation", "toolInvocation": {...}}``."""

    _always_dumped = ("type",)
    type: Literal["tool-invocation"] = "tool-invocation"
    tool_invocation: ToolInvocation


class StepStartPart(AgentModel):
    """``{"type": "step-start"}``: marks the start of a model step inside one message."""

    _always_dumped = ("type",)
    type: Literal["step-start"] = "step-start"


class OtherPart(AgentModel):
    """Any other part type (``source``, ``file``, ...), kept as given."""

    type: str


_TAG_BY_CLASS: dict[type[AgentModel], str] = {
    TextPart: "text",
    ReasoningPart: "reasoning",
    ToolInvocationPart: "tool-invocation",
    StepStartPart: "step-start",
}
_KNOWN_TAGS = frozenset(_TAG_BY_CLASS.values())


def _part_tag(value: Any) -> str:
    """Which part model validates ``value``: known types by name, everything else ``other``."""
    if isinstance(value, AgentModel):
        return _TAG_BY_CLASS.get(type(value), "other")
    kind = value.get("type") if isinstance(value, Mapping) else None
    return kind if isinstance(kind, str) and kind in _KNOWN_TAGS else "other"


MessagePart: TypeAlias = Annotated[
    Annotated[TextPart, Tag("text")]
    | Annotated[ReasoningPart, Tag("reasoning")]
    | Annotated[ToolInvocationPart, Tag("tool-invocation")]
    | Annotated[StepStartPart, Tag("step-start")]
    | Annotated[OtherPart, Tag("other")],
    Discriminator(_part_tag),
]
"""One part of a message; unknown part types become :class:`OtherPart` (lossless)."""


class MessageContent(AgentModel):
    """A stored message's content (``format: 2``): parts plus legacy mirrors."""

    _always_dumped = ("format",)
    format: Literal[2] = 2
    parts: list[MessagePart] = Field(default_factory=list)
    content: str | None = None
    """Legacy plain-text mirror of the text parts."""
    reasoning: str | None = None
    """Legacy reasoning text (Mastra reads it before reasoning parts)."""
    tool_invocations: list[ToolInvocation] | None = None
    """Legacy list of tool invocations (``toolInvocations``)."""
    metadata: dict[str, Any] | None = None


def _text_content(content: str) -> dict[str, Any]:
    return {"format": 2, "parts": [{"type": "text", "text": content}]}


class AgentMessage(AgentModel):
    """A message in Mastra's stored shape (``MastraDBMessage``, format 2).

    Simple forms are normalised: ``{"role": "user", "content": "hello"}`` gets one text part,
    a list ``content`` (AI SDK message parts) becomes ``content.parts``, and OpenTelemetry's
    GenAI message (``{"role": ..., "parts": [{"type": "text", "content": ...}, ...]}``, as an
    instrumented app records ``gen_ai.input.messages`` and ``gen_ai.output.messages``) gets
    its text, reasoning and tool call parts (other parts are kept as they are).
    """

    id: str | None = None
    role: Role
    content: MessageContent
    created_at: datetime | None = None

    @model_validator(mode="before")
    @classmethod
    def _simple_content(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            content = data.get("content")
            if isinstance(content, str):
                return {**data, "content": _text_content(content)}
            if isinstance(content, list):
                return {**data, "content": {"format": 2, "parts": content}}
            if content is None and isinstance(data.get("parts"), list):
                rest = {k: v for k, v in data.items() if k not in ("parts", "finish_reason")}
                parts = [_genai_part(p) for p in data["parts"]]
                return {**rest, "content": {"format": 2, "parts": parts}}
        return data


def _genai_part(part: Any) -> Any:
    """One part of an OpenTelemetry GenAI message in Mastra's part shape (see AgentMessage)."""
    if not isinstance(part, Mapping):
        return part
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("content"), str):
        return {"type": "text", "text": part["content"]}
    if kind == "reasoning" and isinstance(part.get("content"), str):
        return {"type": "reasoning", "reasoning": part["content"]}
    if kind == "tool_call" and isinstance(part.get("name"), str):
        arguments = part.get("arguments")
        call = {
            "state": "call",
            "toolCallId": str(part.get("id") or ""),
            "toolName": part["name"],
            "args": arguments if isinstance(arguments, Mapping) else {},
        }
        return {"type": "tool-invocation", "toolInvocation": call}
    return part


class SystemMessage(AgentModel):
    """A system message (``CoreSystemMessage``): ``{"role": "system", "content": "..."}``.

    ``content`` may also be a list of parts (``[{"type": "text", "text": ...}]``). A plain
    string is accepted as the content.
    """

    _always_dumped = ("role",)
    role: Literal["system"] = "system"
    content: str | list[dict[str, Any]]

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data: Any) -> Any:
        return {"role": "system", "content": data} if isinstance(data, str) else data


def _as_list(value: Any) -> Any:
    """A single item (string, message, dict) becomes a one-item list; lists pass through."""
    if isinstance(value, str | Mapping | AgentModel):
        return [value]
    return value


def _user_strings(value: Any) -> Any:
    value = _as_list(value)
    if isinstance(value, list | tuple):
        return [{"role": "user", "content": v} if isinstance(v, str) else v for v in value]
    return value


class AgentRunInput(AgentModel):
    """What an agent scorer sees as ``run.input`` (Mastra's ``ScorerRunInputForAgent``)."""

    _always_dumped = (
        "input_messages",
        "remembered_messages",
        "system_messages",
        "tagged_system_messages",
    )
    input_messages: list[AgentMessage] = Field(default_factory=list)
    """The messages sent to the agent for this turn (plain strings become user messages)."""
    remembered_messages: list[AgentMessage] = Field(default_factory=list)
    """Earlier messages recalled from memory."""
    system_messages: list[SystemMessage] = Field(default_factory=list)
    tagged_system_messages: dict[str, list[SystemMessage]] = Field(default_factory=dict)
    """System messages grouped by tag (e.g. memory instructions)."""

    @field_validator("input_messages", "remembered_messages", mode="before")
    @classmethod
    def _messages(cls, value: Any) -> Any:
        return _user_strings(value)

    @field_validator("system_messages", mode="before")
    @classmethod
    def _system(cls, value: Any) -> Any:
        return _as_list(value)

    @field_validator("tagged_system_messages", mode="before")
    @classmethod
    def _tagged(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {tag: _as_list(messages) for tag, messages in value.items()}
        return value
