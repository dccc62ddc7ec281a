"""The filters templates add for agent runs and JSON, built on scorer_runtime.agent helpers.

They take the plain data of the context (message dicts, lists, strings) and give plain
data back, so a template can loop over, join or print what they return.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from scorer_runtime.agent import (
    AgentShapeError,
    extract_tool_calls,
    get_assistant_message_from_run_output,
    get_combined_system_prompt,
    get_conversation_history,
    get_tool_results,
    get_user_message_from_run_input,
)
from scorer_runtime.spec.sandbox.limits import check_expanded_size


class RenderProblem(Exception):
    """Rendering stopped for a reason the user can fix (the message says which and how)."""


def user_message(run_input: Any) -> str | None:
    """The text of the first user message of an agent input (None when there is none)."""
    return get_user_message_from_run_input(run_input)


def assistant_message(output: Any) -> str | None:
    """The text of the first assistant message of an agent output."""
    return get_assistant_message_from_run_output(output)


def system_prompt(run_input: Any) -> str:
    """Every system prompt of an agent input, joined by a blank line."""
    return get_combined_system_prompt(run_input)


def history(run_input: Any) -> list[dict[str, str]]:
    """The conversation so far (remembered, then input messages) as ``{role, content}``."""
    return get_conversation_history(run_input)


def tool_calls(output: Any) -> list[str]:
    """The names of the tools called in an agent output, in call order."""
    return extract_tool_calls(output).tools


def tool_results(output: Any) -> list[dict[str, Any]]:
    """The tool calls that have a result, as plain dicts (tool_name, args, result, ...)."""
    return [info.to_dict() for info in get_tool_results(output)]


def to_json(value: Any, indent: int | None = 2) -> str:
    """A value as JSON, pretty (indent 2) unless told otherwise; non-ASCII kept as is."""
    if indent is not None and (not isinstance(indent, int) or not 0 <= indent <= 8):
        raise RenderProblem("json(indent) takes a whole number from 0 to 8")
    check_expanded_size(value, indent=indent or 0)
    return json.dumps(value, ensure_ascii=False, indent=indent, default=str)


AGENT_FILTER_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "assistant_message": assistant_message,
    "history": history,
    "json": to_json,
    "system_prompt": system_prompt,
    "tool_calls": tool_calls,
    "tool_results": tool_results,
    "user_message": user_message,
}
"""The filters this project adds to Jinja's, by name."""


def guarded(name: str, fn: Callable[..., Any], fail: Callable[[Any], None]) -> Callable[..., Any]:
    """``fn`` as a filter: an undefined value fails as undefined, a bad shape says so plainly.

    ``fail(value)`` raises when ``value`` is undefined (the template engine supplies it).
    """

    def apply(value: Any, *args: Any, **kwargs: Any) -> Any:
        fail(value)
        try:
            return fn(value, *args, **kwargs)
        except AgentShapeError as error:
            raise RenderProblem(
                f"the {name} filter needs agent messages (or text): {error}"
            ) from error

    apply.__name__ = name
    apply.__doc__ = fn.__doc__
    return apply
