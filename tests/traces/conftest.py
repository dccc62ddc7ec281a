"""Trace fixtures: realistic files in fixtures/, and a builder for small Mastra traces."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scorer_runtime.traces import Trace, load_traces, parse_traces

FIXTURES = Path(__file__).parent / "fixtures"

WEATHER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SUPPORT_TRACE = "5b8aa5a2d2c872e8321cf37308d69df2"
SUMMARY_TRACE = "0af7651916cd43dd8448eb211c80319c"
HTTP_TRACE = "d4cda95b652f4a1592b449d5929fda1b"


@pytest.fixture
def fixtures() -> Path:
    """The folder of trace fixture files."""
    return FIXTURES


@pytest.fixture
def weather_otlp() -> Trace:
    """The weather agent's turn as OTLP JSON (tool spans beside the chat spans)."""
    (trace,) = load_traces(FIXTURES / "weather.otlp.json")
    return trace


@pytest.fixture
def weather_mastra() -> Trace:
    """The same turn as Mastra spans (tool spans nested under model steps)."""
    (trace,) = load_traces(FIXTURES / "weather.mastra.json")
    return trace


@pytest.fixture
def support_traces() -> list[Trace]:
    """The support agent (5 model steps, a failed and retried tool) and a model-only trace."""
    return load_traces(FIXTURES / "support_agent.otlp.jsonl")


@pytest.fixture
def http_only() -> Trace:
    """A trace of plain HTTP and database spans: nothing an agent scorer can read."""
    (trace,) = load_traces(FIXTURES / "http_only.otlp.json")
    return trace


def _mastra_span(span_id: str, span_type: str, start: str, **fields: Any) -> dict[str, Any]:
    """A Mastra span record of trace ``t1`` (``start`` like ``"00:01"``, minutes:seconds)."""
    return {
        "traceId": "t1",
        "spanId": span_id,
        "name": fields.pop("name", f"{span_type} {span_id}"),
        "spanType": span_type,
        "startedAt": f"2025-01-01T10:{start}Z",
        "endedAt": f"2025-01-01T10:{fields.pop('end', start)}Z",
        **fields,
    }


@pytest.fixture
def mastra_span() -> Callable[..., dict[str, Any]]:
    """Make a Mastra span record of trace ``t1``: ``mastra_span(id, type, "00:01", ...)``."""
    return _mastra_span


@pytest.fixture
def mastra_trace() -> Callable[..., Trace]:
    """Build a one-trace Mastra file from span records (see :func:`mastra_span`)."""

    def build(*spans: dict[str, Any]) -> Trace:
        (trace,) = parse_traces(json.dumps({"spans": list(spans)}))
        return trace

    return build
