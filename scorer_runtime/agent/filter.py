"""``filter_run``: a declarative ``prepare_run`` for agent scorers (Mastra's ``filterRun``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from scorer_runtime.agent.models import (
    AgentMessage,
    AgentRunInput,
    MessageContent,
    MessagePart,
    ToolInvocationPart,
)
from scorer_runtime.agent.normalize import INPUT_KEYS, short_repr, to_agent_input, to_agent_output
from scorer_runtime.run import ScorerRun

M = TypeVar("M", bound=BaseModel)

_DEFAULTS: dict[str, Any] = {
    "drop_request_context": False,
    "drop_ground_truth": False,
    "part_types": None,
    "tool_names": None,
    "max_remembered_messages": 0,
    "max_output_messages": 0,
}


def _copy(model: M, update: Mapping[str, Any]) -> M:
    """A shallow copy with ``update`` applied; fields set to None count as never given."""
    copy = model.model_copy(update=dict(update))
    copy.__pydantic_fields_set__.difference_update(k for k, v in update.items() if v is None)
    return copy


def _message_like(value: object) -> bool:
    if isinstance(value, AgentMessage):
        return True
    return isinstance(value, Mapping) and "role" in value and "content" in value


def _agent_input_like(value: object) -> bool:
    if isinstance(value, AgentRunInput):
        return True
    if isinstance(value, Mapping):
        return bool(INPUT_KEYS.intersection(value))
    return isinstance(value, list | tuple) and bool(value) and all(map(_message_like, value))


def _agent_output_like(value: object) -> bool:
    if isinstance(value, AgentMessage):
        return True
    return isinstance(value, list | tuple) and bool(value) and all(map(_message_like, value))


class RunFilter:
    """The ``prepare_run`` function :func:`filter_run` returns (call it with a run).

    Its ``repr`` (and ``__qualname__``) is the ``filter_run(...)`` call that made it.
    """

    def __init__(self, options: Mapping[str, Any]) -> None:
        self._options: dict[str, Any] = {**_DEFAULTS, **options}
        part_types, tool_names = self._options["part_types"], self._options["tool_names"]
        self._part_types = None if part_types is None else frozenset(part_types)
        self._tool_names = None if tool_names is None else frozenset(tool_names)
        self._filters_parts = part_types is not None or tool_names is not None
        self._filters_messages = self._filters_parts or any(
            self._options[name] for name in ("max_remembered_messages", "max_output_messages")
        )
        self.__qualname__ = self.__name__ = repr(self)

    @property
    def options(self) -> dict[str, Any]:
        """Every option, defaults included (a copy; name lists as lists)."""
        return dict(self._options)

    def __repr__(self) -> str:
        changed = [f"{k}={v!r}" for k, v in self._options.items() if v != _DEFAULTS[k]]
        return f"filter_run({', '.join(changed)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunFilter) and other._options == self._options

    def __hash__(self) -> int:
        return hash(repr(self))

    def __call__(self, run: ScorerRun[Any, Any]) -> ScorerRun[Any, Any]:
        """A new run with the options applied; ``run`` and what it holds are not changed."""
        changes: dict[str, Any] = {}
        if self._options["drop_request_context"]:
            changes["request_context"] = None
        if self._options["drop_ground_truth"]:
            changes["ground_truth"] = None
        if self._filters_messages and _agent_input_like(run.input):
            changes["input"] = self._filter_input(to_agent_input(run.input))
        if self._filters_messages and _agent_output_like(run.output):
            limit = self._options["max_output_messages"]
            changes["output"] = self._filter_messages(to_agent_output(run.output), limit)
        return run.replace(**changes)

    def _filter_input(self, agent_input: AgentRunInput) -> AgentRunInput:
        limit = self._options["max_remembered_messages"]
        update = {
            "input_messages": self._filter_messages(agent_input.input_messages, 0),
            "remembered_messages": self._filter_messages(agent_input.remembered_messages, limit),
        }
        return _copy(agent_input, update)

    def _filter_messages(self, messages: list[AgentMessage], limit: int) -> list[AgentMessage]:
        """Parts filtered (emptied messages dropped), then the last ``limit`` (0: all) kept."""
        if self._filters_parts:
            kept = [m for m in map(self._filter_message, messages) if m is not None]
        else:
            kept = list(messages)
        return kept[-limit:] if limit else kept

    def _keep_part(self, part: MessagePart) -> bool:
        if self._part_types is not None and part.type not in self._part_types:
            return False
        if self._tool_names is not None and isinstance(part, ToolInvocationPart):
            return part.tool_invocation.tool_name in self._tool_names
        return True

    def _content_update(self, content: MessageContent) -> dict[str, Any]:
        """What to change in ``content``: kept parts, and legacy mirrors of dropped types."""
        update: dict[str, Any] = {}
        parts = [part for part in content.parts if self._keep_part(part)]
        if len(parts) != len(content.parts):
            update["parts"] = parts
        invocations = content.tool_invocations
        kinds = self._part_types
        if kinds is not None:
            if "text" not in kinds and content.content is not None:
                update["content"] = None
            if "reasoning" not in kinds and content.reasoning is not None:
                update["reasoning"] = None
            if "tool-invocation" not in kinds and invocations is not None:
                update["tool_invocations"] = invocations = None
        if self._tool_names is not None and invocations:
            kept = [i for i in invocations if i.tool_name in self._tool_names]
            if len(kept) != len(invocations):
                update["tool_invocations"] = kept
        return update

    def _filter_message(self, message: AgentMessage) -> AgentMessage | None:
        """The message with parts filtered; None when filtering left it empty."""
        update = self._content_update(message.content)
        if not update:
            return message
        content = _copy(message.content, update)
        if not (content.parts or content.content or content.tool_invocations):
            return None
        return _copy(message, {"content": content})


def _names(option: str, value: Iterable[str] | str | None) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    try:
        names = list(dict.fromkeys(value))
    except TypeError:
        raise ValueError(
            f"filter_run: {option} must be a list of names or None; "
            f"got {type(value).__name__} {short_repr(value)}"
        ) from None
    bad = [name for name in names if not isinstance(name, str) or not name]
    if bad:
        raise ValueError(f"filter_run: {option} must hold non-empty strings; got {bad!r}")
    return names


def _limit(option: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(
            f"filter_run: {option} must be an int >= 0 (0 means no limit); "
            f"got {type(value).__name__} {short_repr(value)}"
        )
    return value


def filter_run(
    *,
    drop_request_context: bool = False,
    drop_ground_truth: bool = False,
    part_types: Iterable[str] | None = None,
    tool_names: Iterable[str] | None = None,
    max_remembered_messages: int = 0,
    max_output_messages: int = 0,
) -> RunFilter:
    """A ``prepare_run`` function that trims a run before the pipeline sees it.

    The function returns a new run and never changes the one it is given:

    - ``drop_request_context`` / ``drop_ground_truth``: set that field to None.
    - ``part_types``: keep only message parts of these types (``"text"``, ``"reasoning"``,
      ``"tool-invocation"``, ...) in input, remembered and output messages. Legacy mirrors of
      dropped types go too (``content.content`` for text, ``content.reasoning``,
      ``content.tool_invocations``). A message the filter leaves empty is dropped.
    - ``tool_names``: keep only tool invocations of these tools (other parts untouched);
      ``[]`` drops every tool invocation.
    - ``max_remembered_messages`` / ``max_output_messages``: keep the last N messages
      (0: no limit), counted after part filtering.

    Message options apply to agent-shaped runs (input: an ``AgentRunInput``, a dict with its
    keys, or a list of messages; output: a list of messages or one ``AgentMessage``), which
    come back normalised (an ``AgentRunInput``, a ``list[AgentMessage]``); messages the
    options leave unchanged are shared, not copied. Other inputs and outputs (strings, lists
    of strings, workflow data) are left as they are. Raises ``ValueError`` on invalid options.
    """
    parts = _names("part_types", part_types)
    if parts == []:
        raise ValueError(
            "filter_run: part_types is empty, which would drop every message; "
            "pass None to keep all part types"
        )
    return RunFilter(
        {
            "drop_request_context": bool(drop_request_context),
            "drop_ground_truth": bool(drop_ground_truth),
            "part_types": parts,
            "tool_names": _names("tool_names", tool_names),
            "max_remembered_messages": _limit("max_remembered_messages", max_remembered_messages),
            "max_output_messages": _limit("max_output_messages", max_output_messages),
        }
    )
