"""Reading the step context: values by path, as text, as numbers, as agent tool calls.

Agent-shaped values (lists of messages, agent run inputs) are read through the
:mod:`scorer_runtime.agent` helpers, so a built-in works the same on a plain answer and on
an agent's messages; other dicts and lists where text is expected are read as JSON text.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from scorer_runtime.spec.builtins.base import BuiltinStepError

_MISSING = object()
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+")


def read(context: Mapping[str, Any], path: str, step: str) -> Any:
    """The value at ``path``; :class:`BuiltinStepError` saying what is there when it is not."""
    current: Any = context
    walked: list[str] = []
    for part in path.split("."):
        nxt = _child(current, part)
        if nxt is _MISSING:
            raise BuiltinStepError(_missing_message(step, path, walked, current))
        walked.append(part)
        current = nxt
    return current


def _child(value: Any, part: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(part, _MISSING)
    if isinstance(value, list) and part.lstrip("-").isdigit():
        index = int(part)
        return value[index] if -len(value) <= index < len(value) else _MISSING
    return _MISSING


def _missing_message(step: str, path: str, walked: list[str], found: Any) -> str:
    where = ".".join(walked)
    if isinstance(found, Mapping):
        keys = ", ".join(sorted(map(str, found))) or "none"
        there = f"{where} has the keys: {keys}"
    elif isinstance(found, list):
        there = f"{where} is a list of {len(found)} items"
    elif found is None:
        there = f"{where} is empty (does the step that fills it run before this one?)"
    else:
        there = f"{where} is a {type(found).__name__}, which has no parts"
    return f"{step}: cannot read {path!r}: {there}. Check the field path."


def is_messages(value: Any) -> bool:
    """True for a non-empty list of message dicts (each with a ``role``)."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(m, Mapping) and "role" in m for m in value)
    )


def _is_agent_input(value: Any) -> bool:
    from scorer_runtime.agent.normalize import INPUT_KEYS

    return isinstance(value, Mapping) and bool(INPUT_KEYS.intersection(value))


def as_text(value: Any, step: str, path: str) -> str:
    """``value`` as text: agent messages as their text, other data as JSON, None as ``""``.

    A list of messages reads as the assistant's text (all assistant messages, joined by
    newlines), or all message texts when none is from the assistant; an agent run input
    reads as the user's message.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        if is_messages(value):
            return _messages_text(value)
        if _is_agent_input(value):
            from scorer_runtime.agent import get_user_message_from_run_input

            return get_user_message_from_run_input(value) or ""
        if isinstance(value, Mapping) and "role" in value and "content" in value:
            return _messages_text([value])
    except ValueError as error:  # AgentShapeError: say which field had the odd shape
        raise BuiltinStepError(f"{step}: cannot read {path!r} as messages: {error}") from None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def _messages_text(messages: list[Any]) -> str:
    from scorer_runtime.agent import extract_agent_response_messages, get_text_content

    texts = extract_agent_response_messages(messages)
    if not texts:
        texts = [get_text_content(m) or "" for m in messages]
    return "\n".join(t for t in texts if t)


def read_text(context: Mapping[str, Any], path: str, step: str) -> str:
    """The text at ``path`` (``""`` when the value is empty)."""
    return as_text(read(context, path, step), step, path)


def read_optional(context: Mapping[str, Any], path: str, step: str) -> Any:
    """The value at ``path``, or None when it (or a parent) is not there or empty."""
    try:
        value = read(context, path, step)
    except BuiltinStepError:
        return None
    return None if value == "" or value == [] else value


def to_number(value: Any) -> float | None:
    """A finite number from a number, a bool (1/0) or a numeric string; else None."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip().replace(",", ""))
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def read_number(context: Mapping[str, Any], path: str, step: str) -> float:
    """The number at ``path``; :class:`BuiltinStepError` naming the path when it is not one."""
    value = read(context, path, step)
    number = to_number(value)
    if number is None:
        shown = json.dumps(value, ensure_ascii=False, default=str)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise BuiltinStepError(
            f"{step}: expected a number at {path!r}, found {shown}. Point the field at a "
            "numeric value (or a true/false one)."
        )
    return number


def find_number(text: str, which: str) -> float | None:
    """The first or last number written in ``text`` (``1,234.5`` and ``-3e2`` understood)."""
    whole = to_number(text)
    if whole is not None:
        return whole
    found = _NUMBER.findall(text)
    if not found:
        return None
    return to_number(found[0] if which == "first" else found[-1])


def read_tool_calls(context: Mapping[str, Any], path: str, step: str) -> list[Any]:
    """The tool calls (``ToolCallInfo``) of the agent output at ``path``, in call order."""
    from scorer_runtime.agent import extract_tool_calls

    value = read(context, path, step)
    if value is None or value == "":
        return []
    try:
        return list(extract_tool_calls(value).tool_call_infos)
    except ValueError as error:
        raise BuiltinStepError(
            f"{step}: {path!r} is not an agent output (a list of messages): {error}"
        ) from None
