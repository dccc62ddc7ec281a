"""Traces made in code for the scoring-rule tests: one agent span with the resource, agent
and attributes a test asks for."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from scorer_runtime.traces.model import GenAIInfo, Span, Trace

STARTED = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


def agent_trace(
    trace_id: str,
    *,
    service: str = "checkout",
    environment: str | None = "production",
    agent: str = "support-agent",
    span_name: str = "invoke_agent support-agent",
    attributes: dict[str, Any] | None = None,
    answer: str = "Your refund is on its way.",
) -> Trace:
    """A trace of one agent span that asked and answered (input and output recorded)."""
    resource: dict[str, Any] = {"service.name": service}
    if environment is not None:
        resource["deployment.environment.name"] = environment
    span = Span(
        trace_id=trace_id,
        span_id=f"{trace_id[:12]}0001",
        name=span_name,
        type="agent_run",
        start_time=STARTED,
        end_time=STARTED + timedelta(seconds=1),
        attributes={"gen_ai.agent.name": agent, **(attributes or {})},
        input="Where is my refund?",
        output=answer,
        gen_ai=GenAIInfo(operation="invoke_agent", agent_name=agent),
        source="otlp",
        resource=resource,
    )
    return Trace(trace_id, (span,))


def trace_ids(count: int, prefix: str = "t") -> list[str]:
    """``count`` distinct 32-character trace ids."""
    return [f"{prefix}{n:031x}"[:32] for n in range(count)]
