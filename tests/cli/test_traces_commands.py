"""``scorer-studio traces import|list|score`` in-process, against real files, a real SQLite
file and the fake judge over HTTP."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from scorer_runtime.store import ScoreFilter, list_scores, make_engine, read_session
from tests.cli.helpers import KEY_ENV, agent_verdict_spec, cli, write_spec
from tests.fakes.collector import FakeCollector

FIXTURES = Path(__file__).resolve().parents[1] / "traces" / "fixtures"
SUPPORT_TRACE = "5b8aa5a2d2c872e8321cf37308d69df2"
WEATHER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


def _import(db_url: str, name: str):
    return cli(db_url, "traces", "import", str(FIXTURES / name))


def _stored_scores(db_url: str) -> list:
    engine = make_engine(db_url)
    with read_session(engine) as session:
        rows = list_scores(session, filter=ScoreFilter(), limit=100).rows
    engine.dispose()
    return rows


@pytest.fixture
def agent_scorer(db_url, tmp_path, fake_judge, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    spec = write_spec(tmp_path, agent_verdict_spec(fake_judge.base_url))
    assert cli(db_url, "scorers", "import", str(spec)).exit_code == 0
    return "agent-answered"


def test_import_then_list(db_url):
    done = _import(db_url, "support_agent.otlp.jsonl")
    assert done.exit_code == 0, done.output
    assert "Imported 2 traces from support_agent.otlp.jsonl: 2 new." in done.output
    again = _import(db_url, "support_agent.otlp.jsonl")
    assert "Imported 2 traces from support_agent.otlp.jsonl: 2 already stored." in again.output
    listed = cli(db_url, "traces", "list", "--search", "support")
    assert listed.exit_code == 0
    assert "Traces (2 of 2)" in listed.output
    assert SUPPORT_TRACE[:8] in listed.output
    nothing = cli(db_url, "traces", "list", "--search", "billing")
    assert "No traces stored match 'billing'." in nothing.output


def test_a_file_with_problems_imports_the_good_spans_and_exits_1(db_url):
    done = _import(db_url, "malformed.otlp.jsonl")
    assert done.exit_code == 1
    assert "Imported 1 trace from malformed.otlp.jsonl: 1 new." in done.stdout
    assert "5 problems" in done.stderr
    assert "line 2, span 'abc0000000000001': startTimeUnixNano is missing" in done.stderr
    assert "(at resourceSpans[0].scopeSpans[0].spans[0])" in done.stderr
    assert "Traceback" not in done.output


def test_a_file_with_nothing_to_import_exits_2_and_stores_nothing(db_url, tmp_path):
    bad = tmp_path / "notes.json"
    bad.write_text('{"hello": "world"}', encoding="utf-8")
    done = cli(db_url, "traces", "import", str(bad))
    assert done.exit_code == 2
    assert "not a trace document" in done.stderr
    missing = cli(db_url, "traces", "import", str(tmp_path / "missing.json"))
    assert missing.exit_code == 2
    assert "cannot read the file" in missing.stderr
    assert "No traces stored." in cli(db_url, "traces", "list").output


def test_score_scores_new_traces_only_and_stores_them(db_url, agent_scorer, fake_judge):
    fake_judge.reply({"verdict": "yes"}, when="Please cancel order 4821")
    fake_judge.reply({"verdict": "no"})
    _import(db_url, "support_agent.otlp.jsonl")
    first = cli(db_url, "traces", "score", agent_scorer)
    assert first.exit_code == 0, first.output
    assert "Scoring 2 traces with agent-answered v1." in first.output
    assert "agent-answered v1: 2 scored; mean 0.500." in first.output
    _import(db_url, "weather.otlp.json")
    second = cli(db_url, "traces", "score", agent_scorer)
    assert "Scoring 1 trace with agent-answered v1; 2 already scored by this version" in (
        second.output
    )
    assert fake_judge.request_count == 3
    rows = _stored_scores(db_url)
    assert sorted(r.trace_id for r in rows) == sorted(
        [SUPPORT_TRACE, WEATHER_TRACE, "0af7651916cd43dd8448eb211c80319c"]
    )
    history = cli(db_url, "history", agent_scorer)
    assert SUPPORT_TRACE[:8] in history.output  # trace scores are in the history


def test_score_lists_what_was_not_scored_and_why(db_url, agent_scorer, fake_judge):
    _import(db_url, "http_only.otlp.json")
    fake_judge.fault(status=500, times=None)
    _import(db_url, "weather.otlp.json")
    done = cli(db_url, "traces", "score", agent_scorer, "--concurrency", "1")
    assert done.exit_code == 0, done.output
    assert "1 failed, 1 not scorable" in done.output
    assert "Not scored" in done.output
    assert "analyze" in done.output  # the step that failed
    assert "provider_error" not in done.output  # statuses read as words


def test_sample_and_trace_pick_what_is_scored(db_url, agent_scorer, fake_judge):
    fake_judge.reply({"verdict": "yes"})
    _import(db_url, "support_agent.otlp.jsonl")
    _import(db_url, "weather.otlp.json")
    none = cli(db_url, "traces", "score", agent_scorer, "--sample", "0")
    assert "Scoring 0 traces with agent-answered v1; 3 outside the sample." in none.output
    one = cli(db_url, "traces", "score", agent_scorer, "--trace", WEATHER_TRACE)
    assert "Scoring 1 trace" in one.output
    assert [r.trace_id for r in _stored_scores(db_url)] == [WEATHER_TRACE]
    unknown = cli(db_url, "traces", "score", agent_scorer, "--trace", "feedbeef")
    assert unknown.exit_code == 2
    assert "feedbeef" in unknown.stderr


def test_a_judge_key_not_set_fails_before_any_call(db_url, agent_scorer, fake_judge, monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    _import(db_url, "weather.otlp.json")
    done = cli(db_url, "traces", "score", agent_scorer)
    assert done.exit_code == 2
    assert KEY_ENV in done.stderr
    assert "nothing was scored" in done.stderr
    assert fake_judge.request_count == 0
    assert _stored_scores(db_url) == []


def test_expect_gives_a_stored_trace_its_expected_answer(db_url):
    assert _import(db_url, "support_agent.otlp.jsonl").exit_code == 0
    done = cli(db_url, "traces", "expect", SUPPORT_TRACE, "--tools", "lookup_order, issue_refund")
    assert done.exit_code == 0, done.output
    assert "lookup_order → issue_refund" in done.output
    listed = cli(db_url, "traces", "list", "--search", SUPPORT_TRACE[:10])
    assert "lookup_order → issue_refund" in " ".join(listed.output.split())
    said = cli(db_url, "traces", "expect", SUPPORT_TRACE, "--answer", "Order cancelled.")
    assert "Order cancelled." in said.output
    cleared = cli(db_url, "traces", "expect", SUPPORT_TRACE, "--clear")
    assert f"Expected answer of trace {SUPPORT_TRACE}: none." in " ".join(cleared.output.split())
    both = cli(db_url, "traces", "expect", SUPPORT_TRACE, "--tools", "a", "--clear")
    assert both.exit_code != 0
    assert "Give exactly one of --tools, --answer or --clear." in both.stderr
    missing = cli(db_url, "traces", "expect", "no-such-trace", "--answer", "x")
    assert missing.exit_code != 0
    assert "Traceback" not in missing.output


def test_score_says_which_traces_lack_the_expected_answer_the_scorer_needs(
    db_url, fake_judge, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    fake_judge.reply("The agent called the expected tools.")
    demo = Path(__file__).resolve().parents[2] / "data" / "scorers" / "tool-call-accuracy.json"
    assert cli(db_url, "scorers", "import", str(demo)).exit_code == 0
    assert _import(db_url, "weather.mastra.json").exit_code == 0  # no expected answer in it
    base = ("traces", "score", "tool-call-accuracy", "--api-base", fake_judge.base_url)
    lacking = cli(db_url, *base)
    assert "1 of them has no expected answer" in " ".join(lacking.output.split())
    assert f"scorer-studio traces expect {WEATHER_TRACE} --tools" in lacking.output
    cli(db_url, "traces", "expect", WEATHER_TRACE, "--tools", "geocode, get_weather")
    done = cli(db_url, *base, "--rescore")
    assert done.exit_code == 0, done.output
    assert "no expected answer" not in done.output
    (row, *_) = [r for r in _stored_scores(db_url) if r.outcome == "scored"]
    assert row.trace_id == WEATHER_TRACE
    assert row.score == 1.0


def test_score_sends_each_score_to_the_teams_collector_as_an_evaluation_event(
    db_url, agent_scorer, fake_judge
):
    fake_judge.reply({"verdict": "yes"}, when="Please cancel order 4821")
    fake_judge.reply({"verdict": "no"})
    _import(db_url, "support_agent.otlp.jsonl")
    with FakeCollector() as collector:
        done = cli(db_url, "traces", "score", agent_scorer, "--export-otlp", collector.url)
        assert done.exit_code == 0, done.output
        records = collector.wait_for_records(2)
    assert f"Sent 2 evaluation events to {collector.url}/v1/logs." in done.output
    stored = {(r.trace_id, r.span_id): r.score for r in _stored_scores(db_url)}
    sent = {(r.trace_id, r.span_id): r.attributes["gen_ai.evaluation.score.value"] for r in records}
    assert sent == stored  # each event parented to the span its stored score judged
    assert {r.attributes["gen_ai.evaluation.name"] for r in records} == {agent_scorer}


def test_score_says_when_the_collector_took_nothing_and_keeps_the_scores(
    db_url, agent_scorer, fake_judge, monkeypatch
):
    fake_judge.reply({"verdict": "yes"})
    _import(db_url, "weather.otlp.json")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    monkeypatch.setenv("SCORER_STUDIO_EXPORT_OTLP", f"http://127.0.0.1:{closed}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
    done = cli(db_url, "traces", "score", agent_scorer)
    assert done.exit_code == 0, done.output
    assert "1 event could not be sent: is the collector running" in done.output
    assert len(_stored_scores(db_url)) == 1


def _evaluated_trace_file(tmp_path: Path) -> Path:
    """An OTLP JSON file (as a collector's file exporter writes it) whose agent span carries
    another tool's evaluation event."""
    event = {
        "name": "gen_ai.evaluation.result",
        "timeUnixNano": "1764936000500000000",
        "attributes": [
            {"key": "gen_ai.evaluation.name", "value": {"stringValue": "ragas"}},
            {"key": "gen_ai.evaluation.score.value", "value": {"doubleValue": 0.6}},
            {"key": "gen_ai.evaluation.explanation", "value": {"stringValue": "Half right."}},
        ],
    }
    span = {
        "traceId": WEATHER_TRACE,
        "spanId": "00f067aa0ba902b7",
        "name": "invoke_agent weather",
        "startTimeUnixNano": "1764936000000000000",
        "endTimeUnixNano": "1764936001000000000",
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}],
        "events": [event],
    }
    path = tmp_path / "evaluated.otlp.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    return path


def test_import_stores_another_tools_evaluation_events_which_cannot_be_exported(db_url, tmp_path):
    path = _evaluated_trace_file(tmp_path)
    done = cli(db_url, "traces", "import", str(path))
    assert done.exit_code == 0, done.output
    assert "Stored 1 score another tool sent with the spans" in done.output
    again = cli(db_url, "traces", "import", str(path))
    assert "another tool" not in again.output  # already stored: nothing new
    [row] = _stored_scores(db_url)
    assert (row.trace_id, row.span_id, row.score, row.reason) == (
        WEATHER_TRACE,
        "00f067aa0ba902b7",
        0.6,
        "Half right.",
    )
    assert "ragas" not in cli(db_url, "scorers", "list").output
    refused = cli(db_url, "scorers", "export", "ragas (external)")
    assert refused.exit_code != 0
    assert "cannot be run or exported here" in refused.output
