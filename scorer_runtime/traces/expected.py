"""Expected answers of traces: what the agent should have done, for scorers that compare.

A trace can carry an expected answer (a scorer's ``ground_truth``): the tools the agent
should call, in order (a list of tool names), or the answer it should give (a text). It comes
from the import file or is typed on the Traces page:

- **OpenTelemetry (OTLP JSON)**: the attribute ``scorer_studio.expected_answer`` on any span
  of the trace (usually the agent's root span) or on its resource. An ``arrayValue`` of
  strings is a tool order; a ``stringValue`` is an answer text (a JSON list of names in a
  string is read as a tool order too).
- **Mastra spans**: ``metadata.expectedAnswer`` of any span of the trace (what
  ``tracingOptions.metadata`` sets on the agent's root span): a list of tool names, or a text.

:func:`expected_need` tells whether a scorer reads the expected answer, and what kind it
needs, so a page can say before scoring which traces it cannot score yet.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:
    from scorer_runtime.spec import ScorerSpec
    from scorer_runtime.spec.registry import StepRegistry
    from scorer_runtime.traces.model import Span, Trace

OTLP_EXPECTED_ATTRIBUTE = "scorer_studio.expected_answer"
"""The OTLP span or resource attribute holding a trace's expected answer."""
MASTRA_EXPECTED_KEY = "expectedAnswer"
"""The key in a Mastra span's ``metadata`` holding a trace's expected answer."""

ExpectedKind: TypeAlias = Literal["tools", "text"]
"""What an expected answer is: the tools to call, in order, or the answer text."""


def normalise_expected(value: Any) -> Any:
    """An expected answer as stored: a list of tool names (blank names dropped; an empty
    list means "no tool call expected"), a text (trimmed; blank is None), other plain data
    as it is."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                decoded = json.loads(text)
            except ValueError:
                return text
            if isinstance(decoded, list) and all(isinstance(v, str) for v in decoded):
                return normalise_expected(decoded)
        return text or None
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value if v.strip()]
    return value


def expected_kind(value: Any) -> ExpectedKind | None:
    """``tools`` for a list of tool names, ``text`` for a text, None for anything else."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "tools"
    return "text" if isinstance(value, str) else None


def _in_span(span: Span) -> Any:
    attributes = span.attributes
    for found in (
        attributes.get(OTLP_EXPECTED_ATTRIBUTE),
        _metadata(attributes).get(MASTRA_EXPECTED_KEY),
        span.resource.get(OTLP_EXPECTED_ATTRIBUTE),
    ):
        value = normalise_expected(found)
        if value is not None:
            return value
    return None


def _metadata(attributes: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = attributes.get("mastra.metadata")
    return metadata if isinstance(metadata, Mapping) else {}


def expected_in_spans(spans: Iterable[Span]) -> Any:
    """The expected answer the spans carry (the first span, in the order given, that has
    one), or None."""
    for span in spans:
        value = _in_span(span)
        if value is not None:
            return value
    return None


@dataclass(frozen=True, slots=True)
class ExpectedNeed:
    """Whether a scorer compares with an expected answer, and which kind it needs."""

    required: bool = False
    """A step cannot score without one (it gives "not scorable")."""
    kind: ExpectedKind | None = None
    """``tools`` when a step compares the order of tool calls; None when any kind will do."""
    steps: tuple[str, ...] = ()
    """The built-in steps that read it (their titles), for messages."""

    def problem(self, expected: Any) -> str | None:
        """Why a trace with this expected answer cannot be scored, in words; None when it can."""
        if not self.required:
            return None
        if expected is None:
            return "it has no expected answer"
        if self.kind == "tools" and expected_kind(expected) != "tools":
            return "its expected answer is a text, not the tools to call in order"
        return None


def expected_need(spec: ScorerSpec, registry: StepRegistry | None = None) -> ExpectedNeed:
    """What ``spec`` needs of a trace's expected answer: read from its built-in steps, whose
    parameters say where they read the expected value (``expected_field``, by default
    ``ground_truth``) unless a fixed ``expected`` is given."""
    from scorer_runtime.spec.models.steps import FunctionStepSpec
    from scorer_runtime.spec.registry import default_registry

    steps = registry if registry is not None else default_registry()
    readers: list[str] = []
    kind: ExpectedKind | None = None
    for step in spec.steps:
        if not isinstance(step, FunctionStepSpec) or step.use not in steps:
            continue
        entry = steps.get(step.use)
        try:
            params = entry.params_model.model_validate(step.with_).model_dump()
        except ValueError:  # the spec's own checks report it
            continue
        if _reads_ground_truth(params):
            readers.append(entry.title)
            kind = "tools" if entry.expected == "tools" else kind
    return ExpectedNeed(bool(readers), kind, tuple(readers))


def _reads_ground_truth(params: Mapping[str, Any]) -> bool:
    """A ``*_field`` parameter pointing at ``ground_truth`` with no fixed value beside it."""
    for name, value in params.items():
        if not (name.endswith("_field") and isinstance(value, str)):
            continue
        if value.split(".")[0] == "ground_truth" and params.get(name[: -len("_field")]) is None:
            return True
    return False


def tools_called(trace: Trace) -> list[str]:
    """The tools the trace's agent run called, in order (empty when it holds no run)."""
    from scorer_runtime.agent import extract_tool_calls
    from scorer_runtime.traces.agent_run import trace_to_agent_run
    from scorer_runtime.traces.targets import AgentRunTarget

    target = trace_to_agent_run(trace)
    return extract_tool_calls(target.output).tools if isinstance(target, AgentRunTarget) else []
