"""Revision 0007: keys stored before redaction on write are removed from existing rows."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import text

from scorer_runtime.store import get_run, get_score, make_engine, read_session, upgrade

BEFORE = "0006_zero_cost_no_judge_call"
NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
KEY = "sk-proj-Zq8vN3xR7tK2mW9pL4sH6jD1fG5bC0aE"
GOOGLE = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
ERROR = f"HTTP 401: Incorrect API key provided: {KEY}. Check your key."


def _evidence(raw: str, message: str) -> dict[str, object]:
    return {
        "generate_score": {
            "step": "generate_score",
            "status": "failed",
            "prompt": "Is the answer polite? sk-short",
            "raw_output": raw,
            "error": message,
            "calls": [
                {"ok": False, "error": message, "status_code": 401},
                {"ok": False, "error": f"Authorization: Bearer {KEY}", "status_code": 500},
            ],
        }
    }


def _rows_before_0007(connection) -> None:
    statements = [
        (
            "INSERT INTO scorers (id, name, description, created_at, updated_at) "
            "VALUES (1, 'tone', 'd', :t, :t)",
            {},
        ),
        (
            "INSERT INTO scorer_versions (id, scorer_id, version, spec, content_hash, note, "
            "created_at) VALUES (1, 1, 1, '{}', 'abc', '', :t)",
            {},
        ),
        ("INSERT INTO datasets (id, name, description, created_at) VALUES (1, 'faq', '', :t)", {}),
        (
            "INSERT INTO runs (id, scorer_id, scorer_version_id, dataset_id, status, concurrency, "
            "total, done_count, failed_count, cost, cancel_requested, error, created_at) "
            "VALUES (1, 1, 1, 1, 'failed', 2, 1, 1, 1, 0.0, false, :error, :t)",
            {"error": f"the run stopped: {ERROR}"},
        ),
    ]
    score = (
        "INSERT INTO scores (id, run_id, scorer_id, scorer_version_id, outcome, score, error, "
        "judge, attempts, input_tokens, output_tokens, total_tokens, created_at) "
        "VALUES (:id, 1, 1, 1, :outcome, :score, :error, :judge, 1, 0, 0, 0, :t)"
    )
    failed = _evidence(f"<html>key={GOOGLE}</html>", ERROR)
    clean = _evidence('{"score": 1}', "HTTP 500: The server had an error.")
    statements += [
        (score, {"id": 1, "outcome": "provider_error", "score": None, "error": ERROR,
                 "judge": json.dumps(failed)}),
        (score, {"id": 2, "outcome": "scored", "score": 1.0, "error": None,
                 "judge": json.dumps(clean)}),
        (score, {"id": 3, "outcome": "step_error", "score": None, "error": "no judge",
                 "judge": None}),
    ]  # fmt: skip
    for sql, values in statements:
        connection.execute(text(sql), {"t": NOW, **values})


def test_keys_in_stored_errors_and_evidence_are_redacted(db_url):
    engine = make_engine(db_url)
    upgrade(engine, BEFORE)
    with engine.begin() as connection:
        _rows_before_0007(connection)

    upgrade(engine)

    with read_session(engine) as session:
        failed, scored, plain = (get_score(session, score_id=i) for i in (1, 2, 3))
        run = get_run(session, run_id=1)
    with engine.connect() as connection:
        dumped = " ".join(
            str(row) for row in connection.execute(text("SELECT * FROM scores")).all()
        ) + str(connection.execute(text("SELECT * FROM runs")).all())
    engine.dispose()
    assert KEY not in dumped
    assert GOOGLE not in dumped
    assert failed.error == "HTTP 401: Incorrect API key provided: [redacted]. Check your key."
    assert run.error == f"the run stopped: {failed.error}"
    execution = failed.judge["generate_score"]
    assert execution["error"] == failed.error
    assert execution["raw_output"] == "<html>key=[redacted]</html>"
    assert [c["error"] for c in execution["calls"]] == [
        failed.error,
        "Authorization: Bearer [redacted]",
    ]
    # Everything else is as it was: the prompt's short "sk-short" is no key.
    assert execution["prompt"] == "Is the answer polite? sk-short"
    assert execution["calls"][0]["status_code"] == 401
    assert scored.judge["generate_score"]["raw_output"] == '{"score": 1}'
    assert scored.judge["generate_score"]["calls"][1]["error"] == "Authorization: Bearer [redacted]"
    assert (plain.error, plain.judge, plain.outcome) == ("no judge", None, "step_error")
