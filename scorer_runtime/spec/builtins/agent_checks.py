"""Agent checks: which tools the agent called, in what order, how often, and with what luck.

Tool calls are read with :func:`scorer_runtime.agent.extract_tool_calls`, so streamed
``partial-call`` invocations never count, as in Mastra.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from scorer_runtime.results import NotScorable, not_scorable
from scorer_runtime.spec.builtins.base import (
    BuiltinStep,
    BuiltinStepError,
    FieldPath,
    StepParams,
    make_params,
)
from scorer_runtime.spec.builtins.context_values import read, read_tool_calls

ToolName = Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True)]

_FIELD = Field("output", description="The agent's messages: usually the agent's answer.")


def _called(ctx: dict[str, Any], path: str, step: str) -> list[str]:
    return [info.tool_name for info in read_tool_calls(ctx, path, step)]


# -- tool called / not called / max calls ---------------------------------------------------


class ToolCalledParams(StepParams):
    """Parameters of :func:`tool_called`."""

    tool: ToolName = Field(description="The tool's name, e.g. 'lookup_order'.")
    min_times: int = Field(1, ge=1, description="How many times it must be called at least.")
    field: FieldPath = _FIELD


def tool_called(**params: Any) -> BuiltinStep:
    """1 when the agent called the tool (at least ``min_times`` times), else 0."""
    p = make_params(ToolCalledParams, params, "tool_called")

    def apply(ctx: dict[str, Any]) -> float:
        return 1.0 if _called(ctx, p.field, "tool_called").count(p.tool) >= p.min_times else 0.0

    return BuiltinStep("tool_called", p, apply)


class ToolNotCalledParams(StepParams):
    """Parameters of :func:`tool_not_called`."""

    tools: list[ToolName] = Field(
        min_length=1, description="Tools the agent must not call, e.g. ['issue_refund']."
    )
    field: FieldPath = _FIELD


def tool_not_called(**params: Any) -> BuiltinStep:
    """1 when the agent called none of the tools, else 0."""
    p = make_params(ToolNotCalledParams, params, "tool_not_called")
    forbidden = set(p.tools)

    def apply(ctx: dict[str, Any]) -> float:
        return 0.0 if forbidden.intersection(_called(ctx, p.field, "tool_not_called")) else 1.0

    return BuiltinStep("tool_not_called", p, apply)


class MaxToolCallsParams(StepParams):
    """Parameters of :func:`max_tool_calls`."""

    max_calls: int = Field(ge=0, description="The most tool calls allowed.")
    tool: ToolName | None = Field(
        None, description="Count only calls of this tool; when empty, every call counts."
    )
    field: FieldPath = _FIELD


def max_tool_calls(**params: Any) -> BuiltinStep:
    """1 when the agent made at most ``max_calls`` tool calls (of one tool, or in all)."""
    p = make_params(MaxToolCallsParams, params, "max_tool_calls")

    def apply(ctx: dict[str, Any]) -> float:
        names = _called(ctx, p.field, "max_tool_calls")
        count = len(names) if p.tool is None else names.count(p.tool)
        return 1.0 if count <= p.max_calls else 0.0

    return BuiltinStep("max_tool_calls", p, apply)


# -- tool order -----------------------------------------------------------------------------


class ToolOrderParams(StepParams):
    """Parameters of :func:`tool_order`."""

    expected: list[ToolName] | None = Field(
        None,
        description="The tools in the order they should be called; when empty, "
        "expected_field is read instead.",
    )
    expected_field: FieldPath = Field(
        "ground_truth",
        description="Where the expected list of tool names is when 'expected' is not given.",
    )
    mode: Literal["strict", "subsequence"] = Field(
        "subsequence",
        description="'strict': exactly these calls, in this order, nothing else; "
        "'subsequence': these calls in this order, other calls in between allowed.",
    )
    field: FieldPath = _FIELD


def tool_order(**params: Any) -> BuiltinStep:
    """1 when the agent called the expected tools in the expected order, else 0.

    No expected list on the run (e.g. no ground truth): not scorable.
    """
    p = make_params(ToolOrderParams, params, "tool_order")

    def apply(ctx: dict[str, Any]) -> float | NotScorable:
        expected = p.expected if p.expected is not None else _expected_tools(ctx, p)
        if expected is None:
            return not_scorable(f"tool_order: there is no {p.expected_field} to compare with")
        called = _called(ctx, p.field, "tool_order")
        if p.mode == "strict":
            return 1.0 if called == expected else 0.0
        return 1.0 if _is_subsequence(expected, iter(called)) else 0.0

    return BuiltinStep("tool_order", p, apply)


def _is_subsequence(expected: list[str], called: Iterator[str]) -> bool:
    # `name in iterator` consumes the iterator up to the match: order is enforced.
    return all(name in called for name in expected)


def _expected_tools(ctx: dict[str, Any], p: ToolOrderParams) -> list[str] | None:
    try:
        value = read(ctx, p.expected_field, "tool_order")
    except BuiltinStepError:
        return None
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise BuiltinStepError(
        f"tool_order: {p.expected_field!r} should be a list of tool names such as "
        f"['lookup_order', 'issue_refund'], but is a {type(value).__name__}. Point "
        "expected_field at such a list, or give 'expected'."
    )


# -- tool errors ----------------------------------------------------------------------------


class NoToolErrorsParams(StepParams):
    """Parameters of :func:`no_tool_errors`."""

    scoring: Literal["all_or_nothing", "fraction"] = Field(
        "all_or_nothing",
        description="'all_or_nothing': 1 only when no tool failed; 'fraction': the share of "
        "tool results without an error.",
    )
    error_keys: list[str] = Field(
        default=["error", "isError", "is_error"],
        description="A tool result that is an object with one of these keys set (not empty, "
        "not false) is an error.",
    )
    error_prefixes: list[str] = Field(
        default=["error"],
        description="A tool result that is text starting with one of these (any case) is an error.",
    )
    field: FieldPath = _FIELD


def _is_error(result: Any, p: NoToolErrorsParams) -> bool:
    if isinstance(result, Mapping):
        return any(result.get(key) for key in p.error_keys)
    if isinstance(result, str):
        text = result.strip().casefold()
        return any(text.startswith(prefix.casefold()) for prefix in p.error_prefixes if prefix)
    return False


def no_tool_errors(**params: Any) -> BuiltinStep:
    """1 when no tool call came back with an error (or the share that did not, as a fraction).

    Calls still waiting for a result do not count; no tool results at all scores 1.
    """
    p = make_params(NoToolErrorsParams, params, "no_tool_errors")

    def apply(ctx: dict[str, Any]) -> float:
        infos = read_tool_calls(ctx, p.field, "no_tool_errors")
        results = [info.result for info in infos if info.state == "result"]
        if not results:
            return 1.0
        failed = sum(_is_error(result, p) for result in results)
        if p.scoring == "fraction":
            return 1.0 - failed / len(results)
        return 0.0 if failed else 1.0

    return BuiltinStep("no_tool_errors", p, apply)
