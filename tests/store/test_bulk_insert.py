"""The SQLite bulk path of add_scores stores exactly what SQLAlchemy's generic insert stores."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, insert, text

from scorer_runtime.store import (
    add_scores,
    ensure_schema,
    make_engine,
    outcome_counts,
    read_session,
    score_stats,
    session_scope,
)
from scorer_runtime.store.canonical import json_text
from scorer_runtime.store.tables import ScoreRecord
from tests.store.fixtures import make_version

TOKYO = timezone(timedelta(hours=9))


def _rows(scorer_id, version_id):
    shared = datetime(2026, 11, 2, 9, 30, 0, 123456, tzinfo=TOKYO)
    base = {"scorer_id": scorer_id, "scorer_version_id": version_id}
    return [
        {**base, "outcome": "scored", "score": 1, "reason": "int score, shared time"},
        {**base, "outcome": "scored", "score": 0.25, "created_at": shared, "cost": 2},
        {**base, "outcome": "scored", "score": 0.5, "created_at": shared, "latency_ms": 12},
        {
            **base,
            "outcome": "judge_format_error",
            "error": "Le juge a répondu « non » 🙂",
            "step_results": {"analyze_step_result": {"ok": [1, 2.5, None, True]}, "é": "ü"},
            "prompts": {"analyze": 'Say "hi"\n\ttwice'},
            "judge": {"analyze": {"raw_output": "{not json", "usage": {"input_tokens": 3}}},
            "created_at": datetime(1999, 1, 1, 0, 0, tzinfo=UTC),
        },
        {**base, "outcome": "not_scorable", "step_results": {}, "prompts": None, "attempts": 3},
        {**base, "outcome": "step_error", "step_results": "just text", "judge": [1, "two"]},
    ]


def _stored(path):
    with sqlite3.connect(path) as connection:
        columns = [c.name for c in ScoreRecord.__table__.columns if c.name != "id"]
        query = f"SELECT {', '.join(f'{c}, typeof({c})' for c in columns)} FROM scores ORDER BY id"
        return columns, connection.execute(query).fetchall()


def test_the_bulk_path_stores_the_same_values_and_types_as_a_generic_insert(tmp_path):
    stored = []
    for name in ("bulk", "generic"):
        path = tmp_path / f"{name}.db"
        engine = make_engine(f"sqlite:///{path}")
        ensure_schema(engine)
        scorer_id, version_id = make_version(engine)
        rows = _rows(scorer_id, version_id)
        now = datetime(2026, 11, 30, 8, 0, 0, 1, tzinfo=UTC)
        if name == "bulk":
            with session_scope(engine) as session:
                add_scores(session, rows=[{"created_at": now, **r} for r in rows])
        else:  # a plain SQLAlchemy engine binds every value itself, row by row
            empty = {c.name: None for c in ScoreRecord.__table__.columns if c.name != "id"}
            counts = {"attempts": 0, "input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
            full = [{**empty, **counts, "created_at": now, **r} for r in rows]
            plain = create_engine(f"sqlite:///{path}")
            with plain.begin() as connection:
                connection.execute(insert(ScoreRecord.__table__), full)
            plain.dispose()
        engine.dispose()
        stored.append(_stored(path))
    (columns, bulk), (_, generic) = stored
    assert len(bulk) == 6
    assert bulk == generic
    row = dict(zip(columns, bulk[3][::2], strict=True))
    assert row["created_at"] == "1999-01-01 00:00:00.000000"
    assert json.loads(row["step_results"])["é"] == "ü"
    assert dict(zip(columns, bulk[1][::2], strict=True))["created_at"] == (
        "2026-11-02 00:30:00.123456"  # Tokyo time stored as UTC
    )
    assert dict(zip(columns, bulk[0][1::2], strict=True))["score"] == "real"


def test_stored_rows_read_back_as_they_were_written(engine):
    scorer_id, version_id = make_version(engine)
    with session_scope(engine) as session:
        add_scores(session, rows=_rows(scorer_id, version_id))
    with read_session(engine) as session:
        records = session.exec(text("SELECT id FROM scores ORDER BY id")).all()
        got = [session.get(ScoreRecord, r[0]) for r in records]
    assert got[0].score == 1.0
    assert got[1].created_at == datetime(2026, 11, 2, 0, 30, 0, 123456, tzinfo=UTC)
    assert got[3].step_results == {"analyze_step_result": {"ok": [1, 2.5, None, True]}, "é": "ü"}
    assert got[3].judge["analyze"]["raw_output"] == "{not json"
    assert got[4].prompts is None  # Python None is SQL NULL, not the JSON text null
    assert got[4].step_results == {}
    assert got[5].judge == [1, "two"]


def test_an_outcome_written_outside_add_scores_is_still_counted(engine):
    scorer_id, version_id = make_version(engine)
    with session_scope(engine) as session:
        add_scores(
            session,
            rows=[
                {"scorer_id": scorer_id, "scorer_version_id": version_id, "outcome": o}
                for o in ("not_scorable", "step_error", "step_error")
            ],
        )
        session.connection().execute(
            text(
                "UPDATE scores SET outcome = 'legacy_error' WHERE id = (SELECT MIN(id) FROM scores)"
            )
        )
    with read_session(engine) as session:
        counts = outcome_counts(session)
        stats = score_stats(session)
    assert counts == {"legacy_error": 1, "step_error": 2}
    assert (stats.outcome_counts, stats.total, stats.count) == (counts, 3, 0)


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_json_values)
def test_json_text_is_json_dumps(value):
    assert json_text(value) == json.dumps(value)


def test_json_text_refuses_what_json_dumps_refuses():
    with pytest.raises(TypeError, match="not JSON serializable"):
        json_text({"when": datetime.now(UTC)})
