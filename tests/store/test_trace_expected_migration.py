"""Revision 0008: traces get an expected answer; traces stored before keep theirs empty and
can be given one."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import text

from scorer_runtime.store import (
    get_trace,
    make_engine,
    read_session,
    session_scope,
    set_trace_expected,
    upgrade,
)

BEFORE = "0007_redact_stored_keys"
NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
TRACE = "ab" * 16
SPAN = {
    "trace_id": TRACE,
    "span_id": "cd" * 8,
    "name": "invoke_agent bot",
    "type": "agent_run",
    "start_time": NOW.isoformat(),
}


def test_traces_stored_before_have_no_expected_answer_and_can_be_given_one(db_url):
    engine = make_engine(db_url)
    upgrade(engine, BEFORE)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO traces (trace_id, name, source, formats, span_count, agent_runs, "
                "model_calls, tool_calls, errors, started_at, spans, imported_at, updated_at) "
                "VALUES (:id, 'bot', 'old.jsonl', 'otlp', 1, 1, 0, 0, 0, :t, :spans, :t, :t)"
            ),
            {"id": TRACE, "t": NOW, "spans": json.dumps([SPAN])},
        )

    upgrade(engine)

    with read_session(engine) as session:
        assert get_trace(session, trace_id=TRACE).expected is None
    with session_scope(engine) as session:
        set_trace_expected(session, trace_id=TRACE, expected=["lookup_order"])
    with read_session(engine) as session:
        assert get_trace(session, trace_id=TRACE).expected == ["lookup_order"]
    engine.dispose()
