"""Keys a provider echoed are removed from rows stored before they were redacted on write.

Until this revision, a provider's error that quoted the API key ("Incorrect API key provided:
sk-…") was stored as it came: in a score's ``error``, in its judge evidence (each execution's
``error`` and ``raw_output``, each provider call's ``error``) and in a run's ``error``. Those
texts are rewritten with key-shaped text replaced by ``[redacted]``. The key values themselves
are not known here, so only the shapes are (the runtime also replaces the judge's own key).

Rows are read in pages of 1,000 by id, a text search skips the rows with nothing key-shaped in
them, and only rows that change are written.

Revision ID: 0007_redact_stored_keys
Revises: 0006_zero_cost_no_judge_call
Create Date: 2026-12-01
"""

from __future__ import annotations

import json
import re
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0007_redact_stored_keys"
down_revision: str | None = "0006_zero_cost_no_judge_call"
branch_labels = None
depends_on = None

_PAGE = 1_000
_JSON = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")
_REDACTED = "[redacted]"
# Spelled out here, not imported from scorer_runtime.secrets: a migration stays as it was
# written. The same shapes as that module's KEY_SHAPES on 2026-12-01.
_KEY_SHAPES = re.compile(
    r"(?<![\w-])sk-[A-Za-z0-9_-]{20,}"
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bgithub_pat_\w{22,}"
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}"
    r"|\bAIza[0-9A-Za-z_-]{35}"
    r"|\b(?:gsk|hf)_[A-Za-z0-9]{30,}\b"
    r"|(?i:\bbearer\s+)(?P<redact>[A-Za-z0-9._~+/=-]{16,})"
    r"|(?i:\b(?:x-)?api[_-]?key[\"']?\s*[:=]\s*[\"']?)(?P<redact_value>[A-Za-z0-9._~+/=-]{16,})"
)


def _shape(match: re.Match[str]) -> str:
    text, offset = match.group(0), match.start()
    for group in ("redact", "redact_value"):
        if match.group(group) is not None:
            start, end = match.span(group)
            return text[: start - offset] + _REDACTED + text[end - offset :]
    return _REDACTED


def _redact(value: Any) -> Any:
    return _KEY_SHAPES.sub(_shape, value) if isinstance(value, str) else value


def _redact_execution(execution: Any) -> Any:
    if not isinstance(execution, dict):
        return execution
    clean = dict(execution)
    for name in ("error", "raw_output"):
        if name in clean:
            clean[name] = _redact(clean[name])
    calls = execution.get("calls")
    if isinstance(calls, list):
        clean["calls"] = [
            {**call, "error": _redact(call["error"])}
            if isinstance(call, dict) and "error" in call
            else call
            for call in calls
        ]
    return clean


def _clean_judge(judge: Any) -> Any:
    """The evidence with its server texts redacted (same shape; JSON text in, data out)."""
    data = json.loads(judge) if isinstance(judge, str) else judge
    if not isinstance(data, dict):
        return data
    return {step: _redact_execution(execution) for step, execution in data.items()}


def _has_shape(value: Any) -> bool:
    if value is None:
        return False
    text = value if isinstance(value, str) else json.dumps(value)
    return _KEY_SHAPES.search(text) is not None


def _scores(connection: sa.Connection) -> None:
    table = sa.table("scores", sa.column("id"), sa.column("error"), sa.column("judge", _JSON))
    update = (
        sa.update(table)
        .where(table.c.id == sa.bindparam("row_id"))
        .values(error=sa.bindparam("new_error"), judge=sa.bindparam("new_judge"))
    )
    select = sa.text(
        "SELECT id, error, judge FROM scores WHERE id > :last "
        "AND (error IS NOT NULL OR judge IS NOT NULL) ORDER BY id LIMIT :page"
    )
    last = 0
    while True:
        rows = connection.execute(select, {"last": last, "page": _PAGE}).all()
        if not rows:
            return
        changed = [
            {
                "row_id": ident,
                "new_error": _redact(error),
                "new_judge": None if judge is None else _clean_judge(judge),
            }
            for ident, error, judge in rows
            if _has_shape(error) or _has_shape(judge)
        ]
        if changed:
            connection.execute(update, changed)
        last = rows[-1][0]


def _runs(connection: sa.Connection) -> None:
    rows = connection.execute(sa.text("SELECT id, error FROM runs WHERE error IS NOT NULL")).all()
    changed = [{"id": i, "error": _redact(e)} for i, e in rows if _has_shape(e)]
    if changed:
        connection.execute(sa.text("UPDATE runs SET error = :error WHERE id = :id"), changed)


def upgrade() -> None:
    connection = op.get_bind()
    _scores(connection)
    _runs(connection)


def downgrade() -> None:
    """Nothing to undo: a redacted key cannot (and must not) be brought back."""
