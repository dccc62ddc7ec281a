"""``trace_to_agent_run``: the agent run a trace records, in the shape agent scorers read.

The agent span (the root ``agent_run`` span, or the one asked for) gives the input and the
response; the model spans under it give the system prompt and the remembered
conversation; the tool spans anywhere under it — also under model steps, which Mastra's
own conversion misses — give the tool calls and their results. Tool calls a model asked
for without a tool span are taken from the model's output, answered by a later model
input's tool result when there is one. A nested agent is a run of its own and is left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from scorer_runtime.agent import AgentRunInput, SystemMessage, ToolState
from scorer_runtime.traces.agent_messages import (
    SYSTEM_ROLES,
    ToolCallRecord,
    response_message,
    to_agent_messages,
    tool_args,
)
from scorer_runtime.traces.model import Span, Trace
from scorer_runtime.traces.span_messages import ChatMessage, ChatPart, read_messages
from scorer_runtime.traces.targets import AgentRunTarget, NotScorableTarget, describe_spans

_RUN_TYPES = ("agent_run", "model_generation")


def trace_to_agent_run(
    trace: Trace, span_id: str | None = None
) -> AgentRunTarget | NotScorableTarget:
    """The agent run in ``trace`` (at ``span_id``, or its root agent span), or why there is none.

    Without an agent span, the first model span is read as a one-step run. A trace without
    the spans needed (no agent or model span, no input, no output) gives a
    :class:`NotScorableTarget` with the reason; this function does not raise for bad traces.
    """
    picked = _pick(trace, span_id)
    if isinstance(picked, str):
        return NotScorableTarget(trace.trace_id, span_id, picked)
    return _Reader(trace, picked).target()


@dataclass(frozen=True)
class ToolCallCount:
    """The tool calls of a trace as an agent scorer counts them: those with a span of their
    own, and those a model asked for in its messages whose tool left no span."""

    spans: int
    in_messages: int

    @property
    def total(self) -> int:
        """Every tool call, as the scorer sees them."""
        return self.spans + self.in_messages


def count_tool_calls(trace: Trace) -> ToolCallCount:
    """The tool calls of ``trace``, matched to the models' requests as the scorer matches
    them (same call id, else same tool and arguments): a request a tool span answers is
    counted once."""
    models = sorted(trace.of_type("model_generation"), key=lambda s: s.start_time)
    tools = sorted(trace.of_type("tool_call"), key=lambda s: s.start_time)
    requests = [
        _Request(part, model)
        for model in models
        for message in read_messages(model.output, default_role="assistant")
        for part in message.parts
        if part.kind == "tool_call"
    ]
    for tool in tools:
        _match(tool, requests)
    return ToolCallCount(len(tools), sum(not r.used for r in requests))


def _pick(trace: Trace, span_id: str | None) -> Span | str:
    """The span to read the run from, or the reason there is none."""
    if span_id is not None:
        span = trace.get(span_id)
        if span is None:
            return f"trace {trace.trace_id!r} has no span {span_id!r}"
        if span.type not in _RUN_TYPES:
            return (
                f"span {span.name!r} ({span_id}) is a {span.type} span; an agent run is "
                "read from an agent_run or model_generation span"
            )
        return span
    for wanted in _RUN_TYPES:
        found = next((s for s in trace.walk() if s.type == wanted), None)
        if found is not None:
            return found
    return (
        "the trace has no agent_run or model_generation span, so there is no agent run "
        f"to score ({describe_spans(trace)})"
    )


def _dedupe(texts: Iterable[str]) -> list[str]:
    return [t for t in dict.fromkeys(texts) if t]


def _key(message: ChatMessage) -> tuple[str, str]:
    return (message.role, message.text)


def _trailing_user(history: list[ChatMessage]) -> list[ChatMessage]:
    """The last run of user messages: the turn's new input."""
    start = len(history)
    while start > 0 and history[start - 1].role == "user":
        start -= 1
    return history[start:]


def _remembered(history: list[ChatMessage], given: list[ChatMessage]) -> list[ChatMessage]:
    """The conversation before this turn: the model's history without the turn's input."""
    count = len(given)
    if count and [_key(m) for m in history[-count:]] == [_key(m) for m in given]:
        return history[:-count]
    # The input is not the tail of the history: drop it wherever it appears, as Mastra does.
    keys = {_key(m) for m in given}
    return [m for m in history if _key(m) not in keys]


@dataclass
class _Request:
    """A tool call a model asked for, and whether a tool span already accounts for it."""

    part: ChatPart
    model: Span
    used: bool = False


class _Reader:
    """Reads one agent run from the spans under ``run`` (an agent or model span)."""

    def __init__(self, trace: Trace, run: Span) -> None:
        self.trace, self.run = trace, run
        scope = sorted(self._scope(), key=lambda s: s.start_time)
        models = [s for s in scope if s.type == "model_generation"]
        self.models = [run, *models] if run.type == "model_generation" else models
        self.tools = [s for s in scope if s.type == "tool_call"]
        self.label = f"{'agent' if run.type == 'agent_run' else 'model'} span {run.name!r}"

    def _scope(self) -> list[Span]:
        """Spans under the run, not entering nested agent runs."""
        found: list[Span] = []
        stack = list(self.trace.children(self.run))
        while stack:
            span = stack.pop()
            if span.type != "agent_run":
                found.append(span)
                stack.extend(self.trace.children(span))
        return found

    def target(self) -> AgentRunTarget | NotScorableTarget:
        run_input = self._input()
        if not run_input.input_messages:
            return self._not_scorable(
                f"{self.label} has no input messages, and no model span under it records them"
            )
        text, calls = self._response_text(), self._tool_calls()
        if not text and not calls:
            error = self.run.error or "no error message was recorded"
            failed = f"; it failed: {error}" if self.run.status == "error" else ""
            return self._not_scorable(
                f"{self.label} has no output: no response text and no tool calls{failed}"
            )
        created = self.run.end_time or self.run.start_time
        output = [response_message(text, calls, self._reasoning(), created)]
        return AgentRunTarget(self.trace.trace_id, self.run.span_id, run_input, output)

    def _not_scorable(self, reason: str) -> NotScorableTarget:
        return NotScorableTarget(self.trace.trace_id, self.run.span_id, reason)

    # -- input ------------------------------------------------------------------------------

    def _input(self) -> AgentRunInput:
        first = self.models[0] if self.models else None
        model_input = read_messages(first.input, default_role="user") if first else []
        history = [m for m in model_input if m.role not in SYSTEM_ROLES]
        given: list[ChatMessage] = []
        agent_system: list[str] = []
        if self.run.type == "agent_run":
            messages = read_messages(self.run.input, default_role="user")
            given = [m for m in messages if m.role not in SYSTEM_ROLES]
            agent_system = [m.text for m in messages if m.role in SYSTEM_ROLES]
        given = given or _trailing_user(history)
        system = _dedupe(
            [
                *(m.text for m in model_input if m.role in SYSTEM_ROLES),
                *(first.gen_ai.system_instructions if first else ()),
                *agent_system,
                *self.run.gen_ai.system_instructions,
            ]
        )
        remembered_at = first.start_time if first else self.run.start_time
        return AgentRunInput(
            input_messages=to_agent_messages(given, self.run.start_time),
            remembered_messages=to_agent_messages(_remembered(history, given), remembered_at),
            system_messages=[SystemMessage(content=text) for text in system],
        )

    # -- output -----------------------------------------------------------------------------

    def _response_text(self) -> str:
        """The last assistant text of the run's output, else of the last model's output."""
        for span in (self.run, *reversed(self.models)):
            messages = read_messages(span.output, default_role="assistant")
            texts = [m.text for m in messages if m.role == "assistant" and m.text]
            if texts:
                return texts[-1]
        return ""

    def _reasoning(self) -> list[str]:
        return [
            part.text
            for model in self.models
            for message in read_messages(model.output, default_role="assistant")
            for part in message.parts
            if part.kind == "reasoning" and part.text
        ]

    def _requests(self) -> list[_Request]:
        return [
            _Request(part, model)
            for model in self.models
            for message in read_messages(model.output, default_role="assistant")
            for part in message.parts
            if part.kind == "tool_call"
        ]

    def _answers(self) -> dict[str, ChatPart]:
        """Tool results the models were given, by call id."""
        return {
            part.tool_call_id: part
            for model in self.models
            for message in read_messages(model.input, default_role="user")
            for part in message.parts
            if part.kind == "tool_result" and part.tool_call_id
        }

    def _tool_calls(self) -> list[ToolCallRecord]:
        requests, answers = self._requests(), self._answers()
        calls = [self._from_span(tool, requests, answers) for tool in self.tools]
        for n, request in enumerate(requests):
            if not request.used:
                calls.append(self._from_request(request, n, answers))
        return sorted(calls, key=lambda c: c.at)

    def _from_span(
        self, tool: Span, requests: list[_Request], answers: dict[str, ChatPart]
    ) -> ToolCallRecord:
        request = _match(tool, requests)
        call_id = tool.gen_ai.tool_call_id or (request.part.tool_call_id if request else None)
        name = tool.gen_ai.tool_name or (request.part.tool_name if request else None)
        args = tool.input if tool.input is not None or request is None else request.part.arguments
        answer = answers.get(call_id or "")
        state: ToolState
        # What the tool returned, else what the model was told, else the span's error.
        if tool.output is not None:
            state, result = "result", tool.output
        elif answer is not None:
            state, result = "result", answer.result
        elif tool.status == "error":
            state, result = "result", {"error": tool.error or "the tool failed"}
        else:
            state, result = "call", None
        return ToolCallRecord(
            call_id or tool.span_id,
            name or tool.name,
            tool_args(args),
            state,
            result,
            tool.start_time,
        )

    def _from_request(
        self, request: _Request, n: int, answers: dict[str, ChatPart]
    ) -> ToolCallRecord:
        part, model = request.part, request.model
        answer = answers.get(part.tool_call_id or "")
        return ToolCallRecord(
            part.tool_call_id or f"{model.span_id}-call-{n}",
            part.tool_name or "unknown",
            tool_args(part.arguments),
            "result" if answer is not None else "call",
            answer.result if answer is not None else None,
            model.end_time or model.start_time,
        )


def _match(tool: Span, requests: list[_Request]) -> _Request | None:
    """The model request a tool span answers: same call id, else same tool name and arguments."""
    call_id = tool.gen_ai.tool_call_id
    for request in requests:
        if request.used:
            continue
        part = request.part
        same_id = call_id is not None and part.tool_call_id == call_id
        same_call = (
            call_id is None
            and part.tool_name == tool.gen_ai.tool_name
            and tool_args(part.arguments) == tool_args(tool.input)
        )
        if same_id or same_call:
            request.used = True
            return request
    return None
