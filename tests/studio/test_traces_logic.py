"""The traces page's Streamlit-free logic: reading uploads, rows and trees, stored outcomes."""

from __future__ import annotations

from pathlib import Path

from scorer_runtime.traces import TraceScoreOutcome
from studio.traces_logic import format_duration, read_upload, span_lines, trace_rows
from studio.traces_scoring import outcome_row, stored_outcome

FIXTURES = Path(__file__).resolve().parents[1] / "traces" / "fixtures"


def test_mastra_and_otlp_files_read_into_the_same_rows():
    otlp = read_upload((FIXTURES / "weather.otlp.json").read_bytes(), "w.json")
    mastra = read_upload((FIXTURES / "weather.mastra.json").read_bytes(), "w.json")
    assert otlp.problems == []
    assert mastra.problems == []
    (a,) = trace_rows(otlp.traces)
    (b,) = trace_rows(mastra.traces)
    assert a.trace_id == b.trace_id
    assert (a.tool_calls, b.tool_calls) == (2, 2)
    assert a.model_calls >= 1
    assert b.model_calls >= 1


def test_span_tree_depths_follow_parents():
    loaded = read_upload((FIXTURES / "weather.mastra.json").read_bytes(), "w.json")
    lines = span_lines(loaded.traces[0])
    depth = {line.span.span_id: line.depth for line in lines}
    for line in lines:
        parent = line.span.parent_span_id
        if parent in depth:
            assert line.depth == depth[parent] + 1
        else:
            assert line.depth == 0
    assert max(depth.values()) >= 2  # tool calls sit under model steps in Mastra files
    assert lines[0].label().startswith(lines[0].span.name)
    assert lines[-1].label().startswith("\u2003")


def test_unreadable_uploads_are_problems_not_crashes():
    binary = read_upload(b"\xff\xfe\x00garbage", "x.json")
    assert binary.traces == []
    assert "not UTF-8" in binary.problems[0].message
    empty = read_upload(b"  ", "x.json")
    assert empty.traces == []
    assert "nothing to import" in empty.problems[0].message
    assert "Nothing could be imported" in empty.what_to_do()


def test_durations_read_like_people_say_them():
    assert format_duration(None) == "—"
    assert format_duration(850) == "850 ms"
    assert format_duration(1234) == "1.2 s"
    assert format_duration(125_000) == "2 min 5 s"


def _outcome(status, **fields) -> TraceScoreOutcome:
    return TraceScoreOutcome("s", "t1", "span1", status, **fields)


def test_outcomes_map_to_stored_outcomes():
    assert stored_outcome(_outcome("scored")) == "scored"
    assert stored_outcome(_outcome("not_scorable", reason="no agent")) == "not_scorable"
    assert stored_outcome(_outcome("failed", error_kind="format")) == "judge_format_error"
    assert stored_outcome(_outcome("failed", error_kind="rate_limited")) == "provider_error"
    assert stored_outcome(_outcome("failed", error_kind="step_error")) == "step_error"
    assert stored_outcome(_outcome("failed", error_kind="run_error")) == "step_error"


def test_rows_link_trace_and_span_and_keep_the_reason():
    row = outcome_row(
        TraceScoreOutcome("s", "t1", None, "not_scorable", reason="the trace holds no agent run"),
        scorer_id=3,
        scorer_version_id=7,
    )
    assert row["trace_id"] == "t1"
    assert row["span_id"] is None
    assert (row["scorer_id"], row["scorer_version_id"]) == (3, 7)
    assert row["outcome"] == "not_scorable"
    assert row["score"] is None
    assert row["reason"] == "the trace holds no agent run"
    failed = outcome_row(
        _outcome("failed", error_kind="run_error", error="bad shape"),
        scorer_id=3,
        scorer_version_id=7,
    )
    assert failed["failed_step"] == "prepare_run"
    assert failed["error"] == "bad shape"
