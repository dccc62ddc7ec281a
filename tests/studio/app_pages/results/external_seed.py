"""A trace that our scorer and another tool (through its span events) both scored: what the
Results and Traces tests, in AppTest and in Chromium, look at."""

from __future__ import annotations

import time

from sqlalchemy import Engine

from scorer_runtime.store import ScoreFilter, add_scores, list_scores, read_session, save_traces
from scorer_runtime.store import session_scope as writing
from scorer_runtime.traces import read_otlp_document
from tests.store.fixtures import make_version

TRACE, SPAN = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
START_NS = (time.time_ns() // 10**9 - 3600) * 10**9
"""An hour ago, to the second: the trace ran then, and the other tool judged it."""


def _value(value: object) -> dict[str, object]:
    return {"doubleValue": value} if isinstance(value, float) else {"stringValue": value}


def _event(offset_ns: int, **attributes: object) -> dict[str, object]:
    return {
        "name": "gen_ai.evaluation.result",
        "timeUnixNano": str(START_NS + offset_ns),
        "attributes": [
            {"key": "gen_ai.evaluation." + k.replace("_", "."), "value": _value(v)}
            for k, v in attributes.items()
        ],
    }


def _document() -> dict[str, object]:
    span = {
        "traceId": TRACE,
        "spanId": SPAN,
        "name": "invoke_agent support",
        "startTimeUnixNano": str(START_NS),
        "endTimeUnixNano": str(START_NS + 900_000_000),
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}],
        "events": [
            _event(
                1, name="ragas", score_value=0.8, score_label="faithful", explanation="Grounded."
            ),
            _event(2, name="relevance", score_label="on topic"),
        ],
    }
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}


def seed_compared(studio_db: Engine) -> dict[str, int]:
    """One trace scored by our scorer and, through its span events, by another tool; the
    result ids by label ("faithful", "on topic"; "ours"), and the id of ragas' scorer."""
    found = read_otlp_document(_document())
    assert not found.problems
    with writing(studio_db) as session:
        save_traces(session, traces=found.traces, source="t.json", evaluations=found.evaluations)
    scorer_id, version_id = make_version(studio_db, "tone")
    row = {"scorer_id": scorer_id, "scorer_version_id": version_id, "trace_id": TRACE}
    with writing(studio_db) as session:
        add_scores(session, rows=[{**row, "span_id": SPAN, "score": 0.5, "outcome": "scored"}])
    with read_session(studio_db) as session:
        rows = list_scores(session, filter=ScoreFilter()).rows
    return {r.label or "ours": r.id for r in rows} | {
        "ragas_scorer": next(r.scorer_id for r in rows if r.label == "faithful")
    }
